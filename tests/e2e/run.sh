#!/usr/bin/env bash
# The dashboard in real headless Chromium (Debian's chromium, driven by playwright-core):
# a fresh database, the real bin/m44d on a free port, two sides in two browser contexts.
# Needs M44_TEST_BIN and M44_TEST_PGHOST (set by tests/run.sh).
set -euo pipefail
cd "$(dirname "$0")"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 18 ]; then
  echo "e2e: Node.js 18 or newer is needed (found $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi
[ -x /usr/bin/chromium ] || { echo "e2e: /usr/bin/chromium is missing (scripts/deps.sh test)" >&2; exit 1; }
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/jsqr ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
db="e2e_$$"
psql -q -h "$M44_TEST_PGHOST" -U m44 -d postgres -c "CREATE DATABASE $db" >/dev/null
export M44_E2E_DATABASE="host='$M44_TEST_PGHOST' user=m44 dbname=$db"
export M44_E2E_OUT="${M44_ROOT:-$(cd ../.. && pwd)}/tests/out/e2e"
rm -rf "$M44_E2E_OUT" && mkdir -p "$M44_E2E_OUT"
node e2e.mjs
