#!/usr/bin/env bash
# The test command (README): format, lint, unit + integration + fixture tests, golden check.
set -euo pipefail
cd "$(dirname "$0")/.."
# The reference MCP servers for pml-mcp's integration tests (pinned in mcp-servers/).
npm ci --prefix mcp-servers --no-audit --no-fund
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi
cargo test --workspace --doc --locked
cargo xtask run-pipeline --check fixtures/
