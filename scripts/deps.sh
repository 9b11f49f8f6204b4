#!/usr/bin/env bash
# Installs the Debian packages m44d needs, when they are missing. Idempotent and quiet when
# everything is present.
#   scripts/deps.sh [run|test|bench|fuzz]...   (default: run)
set -euo pipefail

declare -A want=()
add() { for p in "$@"; do want[$p]=1; done; }

profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=(run)
for profile in "${profiles[@]}"; do
  case "$profile" in
    run)   add make gcc libc6-dev libmicrohttpd-dev libjansson-dev libpq-dev libsodium-dev \
               postgresql util-linux passwd ;;
    test)  add make gcc libc6-dev libmicrohttpd-dev libjansson-dev libpq-dev libsodium-dev \
               postgresql util-linux passwd libcunit1-dev libcurl4-openssl-dev curl procps \
               chromium nodejs npm valgrind clang libclang-rt-14-dev git ;;
    bench) add make gcc libc6-dev libmicrohttpd-dev libjansson-dev libpq-dev libsodium-dev \
               postgresql postgresql-contrib util-linux passwd curl procps libcurl4-openssl-dev ;;
    fuzz)  add make clang libclang-rt-14-dev libmicrohttpd-dev libjansson-dev libpq-dev \
               libsodium-dev ;;
    *) echo "deps.sh: unknown profile '$profile' (run, test, bench, fuzz)" >&2; exit 2 ;;
  esac
done

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
[ ${#missing[@]} -eq 0 ] && exit 0

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
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  echo "deps.sh: 'apt-get install' failed. Its output:" >&2
  tail -n 25 "$log" >&2; rm -f "$log"; exit 1
fi
rm -f "$log"
echo "deps.sh: installed ${#missing[@]} package(s)" >&2
