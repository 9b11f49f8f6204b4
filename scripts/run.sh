#!/usr/bin/env bash
# `make run`: m44d in the foreground on 127.0.0.1:8044 (or $M44_LISTEN).
# Without DATABASE_URL, a private PostgreSQL cluster under var/pg is created and started, and
# stopped again when m44d exits (Ctrl-C). Its data stays in var/pg for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${DATABASE_URL:-}" ]; then
  exec bin/m44d "$@"
fi

scripts/pg.sh start var/pg
url=$(scripts/pg.sh url var/pg)
echo "run.sh: PostgreSQL running in var/pg (socket only); stop it with 'make stop' or Ctrl-C" >&2
stop_pg() { scripts/pg.sh stop var/pg && echo "run.sh: PostgreSQL stopped" >&2; }
trap stop_pg EXIT
# Ctrl-C reaches m44d too (same process group); it drains and exits, then the trap runs.
trap '' INT TERM
DATABASE_URL="$url" bin/m44d "$@" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' TERM
wait $pid || true
wait $pid 2>/dev/null || true
