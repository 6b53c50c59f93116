#!/usr/bin/env bash
# Run a command with a throwaway PostgreSQL cluster: `scripts/with-postgres.sh CMD [ARG...]`.
# The cluster lives in a temporary directory (unix socket only, no TCP port), is started from
# the distribution's packages (installed with apt-get when missing and running as root), and
# is stopped and deleted when CMD ends. CMD sees its URL in PML_TEST_POSTGRES_URL, and
# PML_REQUIRE_POSTGRES=1 (so the store tests fail rather than skip PostgreSQL).
set -euo pipefail

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then
    echo "$d"
  elif command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

BIN=$(bindir)
if [ -z "$BIN" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "with-postgres: installing PostgreSQL from the distribution's packages" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
    BIN=$(bindir)
  fi
fi
if [ -z "$BIN" ]; then
  echo "with-postgres: no PostgreSQL server programs (initdb, pg_ctl): install the distribution's postgresql package" >&2
  exit 2
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/pml-pg.XXXXXX")
# initdb refuses to run as root: the cluster belongs to the `postgres` user then.
AS=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$DIR"
  AS=(runuser -u postgres --)
fi

stop() {
  "${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap stop EXIT INT TERM

"${AS[@]}" "$BIN/initdb" -D "$DIR/data" -U pml -A trust -E UTF8 --no-sync >"$DIR/initdb.log" 2>&1 ||
  { cat "$DIR/initdb.log" >&2; exit 2; }
"${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
  -o "-k $DIR -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null ||
  { cat "$DIR/server.log" >&2; exit 2; }

export PML_TEST_POSTGRES_URL="postgres://pml@localhost/postgres?host=$DIR"
export PML_REQUIRE_POSTGRES=1
"$@"
