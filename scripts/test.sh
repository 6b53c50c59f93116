#!/usr/bin/env bash
# The test command (README): format, lint, unit + integration + fixture tests, golden check,
# and a type-check of the fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."
# One build per run: incremental state would only add gigabytes to the target folder.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# The reference MCP servers for pml-mcp's integration tests (pinned in mcp-servers/).
npm ci --prefix mcp-servers --no-audit --no-fund
# Mermaid's own parser, which the view tests check the Mermaid views with.
npm ci --prefix crates/pml/tests/mermaid --no-audit --no-fund
# The TypeScript compiler, which the tests type-check `pml types` output with.
npm ci --prefix crates/pml/tests/typescript --no-audit --no-fund
# Graphviz (the view tests check the DOT views with `dot -Tsvg`), Chromium (they screenshot
# the HTML view headless) and tmux, from the distribution.
missing=""
command -v dot >/dev/null 2>&1 || missing="$missing graphviz"
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
# tmux: the interrupt tests type Ctrl-C into a terminal.
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "test.sh: installing$missing (apt-get)" >&2
  apt-get update -qq >&2
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
fi
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
