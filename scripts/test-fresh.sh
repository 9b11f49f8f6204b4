#!/usr/bin/env bash
# make test-fresh: proves the README's two commands on a machine that has nothing. A bare
# Debian 12 root is made with debootstrap (--variant=minbase) in a temporary directory; a clone
# of this repository's HEAD goes into it; inside, as root, exactly what the README says is run:
#   apt-get update && apt-get install make     (the README: "If make itself is missing")
#   make run     first, on the bare root (scripts/check-make-run.sh: it serves, keeps a
#                campaign for the next run, and Ctrl-C stops it and its PostgreSQL)
#   make test    every suite, the sanitizer pass included
# Everything else comes from the project's own installer. Needs root (debootstrap, chroot,
# mounts) and the network to Debian's and npm's registries. The root is deleted afterwards
# (M44_FRESH_KEEP=1 keeps it). About 8 minutes on 2 CPUs with a nearby mirror; CI's test step.
#   scripts/test-fresh.sh [extra make targets to run after make test]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
[ "$(id -u)" -eq 0 ] || { echo "test-fresh: run as root (debootstrap, chroot)" >&2; exit 1; }
git -C "$repo" rev-parse HEAD >/dev/null 2>&1 || { echo "test-fresh: needs a git checkout" >&2; exit 1; }
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] ||
  echo "test-fresh: note: uncommitted changes are not tested, only HEAD ($(git -C "$repo" rev-parse --short HEAD))" >&2

mirror=${M44_FRESH_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d /var/tmp/m44-fresh.XXXXXX)
root=$work/root
mounted=()
t0=$SECONDS

cleanup() {
  # Whatever still runs inside (a PostgreSQL left by a failed suite) would hold the mounts.
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null || true
  done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  # What the suites left (their logs, the daemons' logs, the e2e screenshots) comes back out.
  if [ -d "$root/root/m44d/tests/out" ]; then
    rm -rf "$repo/tests/out/fresh" && mkdir -p "$repo/tests/out" &&
      cp -a "$root/root/m44d/tests/out" "$repo/tests/out/fresh" &&
      echo "test-fresh: the suites' logs and screenshots are in tests/out/fresh/" >&2
  fi
  if [ -z "${M44_FRESH_KEEP:-}" ]; then rm -rf "$work"; else echo "test-fresh: kept $root" >&2; fi
}
trap cleanup EXIT

mnt() { # type-or-bind source target
  mkdir -p "$3"
  if [ "$1" = bind ]; then mount --bind "$2" "$3"; else mount -t "$1" "$2" "$3"; fi
  mounted+=("$3")
}

echo "test-fresh: debootstrap --variant=minbase bookworm into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
# A Debian 12 machine as installed: the release, its updates and security updates.
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${M44_FRESH_SECURITY:-http://deb.debian.org/debian-security} bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
# This machine's way to the network goes with it: a proxy, and an extra certificate authority
# for Node.js (a network that inspects TLS). Nothing else of the host is used.
pass_env=()
for v in http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY; do
  [ -n "${!v:-}" ] && pass_env+=("$v=${!v}")
done
# apt's own proxy settings (apt.conf.d), which the variables above do not carry.
apt-config dump 2>/dev/null | grep -iE '^Acquire::(http|https)::Proxy' \
  >"$root/etc/apt/apt.conf.d/90m44-host-proxy" || rm -f "$root/etc/apt/apt.conf.d/90m44-host-proxy"
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  mkdir -p "$root/usr/local/share/m44-fresh"
  cp "$NODE_EXTRA_CA_CERTS" "$root/usr/local/share/m44-fresh/extra-ca.crt"
  pass_env+=("NODE_EXTRA_CA_CERTS=/usr/local/share/m44-fresh/extra-ca.crt")
fi
mnt proc proc "$root/proc"
mnt sysfs sysfs "$root/sys"
mnt bind /dev "$root/dev"
mnt devpts devpts "$root/dev/pts"
mnt tmpfs tmpfs "$root/dev/shm"
mnt tmpfs tmpfs "$root/tmp"
chmod 1777 "$root/tmp"

git clone -q --no-hardlinks "$repo" "$root/root/m44d"
echo "test-fresh: bare root ready after $((SECONDS - t0)) s; running the README's commands in it"

extra=("$@")
t1=$SECONDS
status=0
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 "${pass_env[@]}" /bin/bash -euo pipefail -c '
    cd /root/m44d
    apt-get update -q >/dev/null
    apt-get install -y -q make >/dev/null
    # Each runs whatever the one before did: a failed make run does not hide the suites.
    st=0
    scripts/check-make-run.sh || st=$((st | 1))
    make test || st=$((st | 2))
    for t in "$@"; do make "$t" || st=$((st | 4)); done
    exit $st' test-fresh "${extra[@]}" || status=$?
echo "test-fresh: make run and make test (and the installs they made) took $((SECONDS - t1)) s; all in all $((SECONDS - t0)) s"
if [ $status -ne 0 ]; then
  what=()
  [ $status -gt 7 ] && what+=("the installs before them (exit status $status)")
  [ $status -le 7 ] && [ $((status & 1)) -ne 0 ] && what+=("make run")
  [ $status -le 7 ] && [ $((status & 2)) -ne 0 ] && what+=("make test")
  [ $status -le 7 ] && [ $((status & 4)) -ne 0 ] && what+=("the extra targets (${extra[*]})")
  echo "test-fresh: FAILED on a bare Debian 12 root: ${what[*]}" >&2
  exit 1
fi
echo "test-fresh: passed on a bare Debian 12 root"
