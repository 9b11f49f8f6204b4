#!/usr/bin/env bash
# Installs the Debian packages a make target needs (scripts/packages.sh), when they are missing,
# then checks that everything is there (scripts/check-deps.sh). Idempotent; quiet when
# everything is present.
#   scripts/deps.sh [PROFILE]...   run (default), test, faults, valgrind, fuzz, bench, fresh,
#                                  mutants, lint, rehearsal
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh

declare -A want=()
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(run)
for profile in "${profiles[@]}"; do
  if [ -z "${PROFILE[$profile]+x}" ]; then
    echo "deps.sh: unknown profile '$profile' (${!PROFILE[*]})" >&2; exit 2
  fi
  for p in ${PROFILE[$profile]}; do want[$p]=1; done
done

check_all() {
  local rc=0
  for profile in "${profiles[@]}"; do scripts/check-deps.sh "$profile" || rc=1; done
  return $rc
}

installed() {
  dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

missing=()
for p in "${!want[@]}"; do
  # Node.js may come from elsewhere than Debian: a working node and npm are enough.
  if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  installed "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && { check_all; exit; }

IFS=$'\n' missing=($(sort <<<"${missing[*]}")); unset IFS
echo "deps.sh: installing missing packages: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: cannot install as a non-root user. Run as root, or install them yourself:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps.sh: apt-get not found; this script supports Debian 12. Install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/m44-deps.XXXXXX)
if ! apt-get update -q >"$log" 2>&1; then
  echo "deps.sh: 'apt-get update' failed (no network or no package mirror?). Its output:" >&2
  tail -n 15 "$log" >&2; rm -f "$log"; exit 1
fi
# Packages are installed, never started: Debian starts the services it installs (nginx on port
# 80, Prometheus on 9090, a PostgreSQL cluster), and the tests run their own on loopback. A
# policy-rc.d that says "no" (exit 101) holds them back while this runs; one already in place
# is left alone.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# scripts/deps.sh: no service starts while it installs packages\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=1
fi
drop_policy() { [ $own_policy -eq 1 ] && rm -f "$policy"; own_policy=0; }
trap drop_policy EXIT
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  echo "deps.sh: 'apt-get install' failed. Its output:" >&2
  tail -n 25 "$log" >&2; rm -f "$log"; exit 1
fi
drop_policy
rm -f "$log"
echo "deps.sh: installed ${#missing[@]} package(s)" >&2
check_all
