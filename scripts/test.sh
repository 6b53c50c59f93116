#!/usr/bin/env bash
# The test command (README): format, lint, unit + integration + fixture tests, golden check,
# and a type-check of the fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."
# The reference MCP servers for pml-mcp's integration tests (pinned in mcp-servers/).
npm ci --prefix mcp-servers --no-audit --no-fund
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The store tests run against SQLite and a throwaway PostgreSQL cluster (scripts/with-postgres.sh).
if command -v cargo-nextest >/dev/null 2>&1; then
  scripts/with-postgres.sh cargo nextest run --workspace --locked --no-fail-fast
else
  scripts/with-postgres.sh cargo test --workspace --locked --no-fail-fast
fi
cargo test --workspace --doc --locked
cargo xtask run-pipeline --check fixtures/
# The fuzz targets are their own package (cargo-fuzz, nightly flags to run): type-check them on
# stable so that they follow the library's API (~1 min, libFuzzer's C++ included).
CARGO_TARGET_DIR=target/fuzz-check cargo check --manifest-path fuzz/Cargo.toml --locked --bins
