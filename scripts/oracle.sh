#!/usr/bin/env bash
# Regenerates the expected outcomes of the agent programs in crates/pml/tests/agents/ by running
# each one directly in Node (the reference: ../shared/node-oracle) against the same reference
# servers `pml run` uses, each run on a fresh copy of the program's data folder.
#
#   bash scripts/oracle.sh [ORACLE_DIR [PROGRAM.ts...]]
#
# ORACLE_DIR holds run.mjs with its node_modules; without it (or given as "") the oracle is
# installed from ../shared/node-oracle into a temporary folder. Runs the PROGRAMs given, else
# every one. Writes <name>.expected.json beside each program: {"ok", "result" | "error",
# "calls"}, with the data folder's path written `<root>` (strings as Python's json writes
# them: non-ASCII and lone surrogates as \u escapes), and <name>.console.txt with what the
# program's console wrote (stderr), when it wrote something. Review the diff before
# committing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
oracle="${1:-}"
if [ -z "$oracle" ]; then
  oracle=$(mktemp -d)
  cp ../shared/node-oracle/run.mjs ../shared/node-oracle/package*.json "$oracle"
  npm ci --prefix "$oracle" --no-audit --no-fund >/dev/null
fi
npm ci --prefix mcp-servers --no-audit --no-fund >/dev/null
modules="$root/mcp-servers/node_modules"
programs=("${@:2}")
if [ ${#programs[@]} -eq 0 ]; then programs=(crates/pml/tests/agents/*.ts); fi
for program in "${programs[@]}"; do
  name="${program%.ts}"
  scratch=$(mktemp -d)
  mkdir -p "$scratch/root"
  if [ -d "$name" ]; then cp -r "$name"/. "$scratch/root/"; fi
  scratch=$(cd "$scratch" && pwd -P)
  cat > "$scratch/config.json" <<JSON
{"mcpServers": {
  "filesystem": {"command": "node", "args": ["$modules/@modelcontextprotocol/server-filesystem/dist/index.js", "$scratch/root"]},
  "memory": {"command": "node", "args": ["$modules/@modelcontextprotocol/server-memory/dist/index.js"], "env": {"MEMORY_FILE_PATH": "$scratch/memory.jsonl"}},
  "everything": {"command": "node", "args": ["$modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]}
}}
JSON
  extra='{}'
  if [ -f "$name.args.json" ]; then extra=$(cat "$name.args.json"); fi
  args=$(python3 -c 'import json,sys; a=json.loads(sys.argv[1]); a["root"]=sys.argv[2]; print(json.dumps(a))' "$extra" "$scratch/root")
  node "$oracle/run.mjs" "$program" --mcp-config "$scratch/config.json" --args "$args" 2>"$scratch/stderr" \
    | python3 -c 'import json,sys; v=json.load(sys.stdin); print(json.dumps(json.loads(json.dumps(v).replace(sys.argv[1], "<root>")), indent=2))' "$scratch/root" \
    > "$name.expected.json"
  rm -f "$name.console.txt"
  if [ -s "$scratch/stderr" ]; then sed "s|$scratch/root|<root>|g" "$scratch/stderr" > "$name.console.txt"; fi
  echo "oracle: $name.expected.json"
  rm -rf "$scratch"
done
