# The Debian 12 packages each make target needs, in one place: scripts/deps.sh installs them
# and scripts/check-deps.sh checks them. Sourced, not run.
#
# PROBE: a package, and what shows it is usable: cmd:NAME (on PATH), file:PATH, or
# header:NAME (found by the C compiler, as #include <NAME>). A header the sources include must
# come from a package of its profile (or one they depend on): scripts/check-deps.sh fails
# otherwise, so a header that is only here by chance on one machine is caught.
declare -A PROBE=(
  [make]=cmd:make
  [gcc]=cmd:gcc
  [libc6-dev]=header:stdio.h
  [libmicrohttpd-dev]=header:microhttpd.h
  [libjansson-dev]=header:jansson.h
  [libpq-dev]=header:libpq-fe.h
  [libsodium-dev]=header:sodium.h
  [libcurl4-openssl-dev]=header:curl/curl.h
  [postgresql]=file:/usr/lib/postgresql/15/bin/initdb
  [util-linux]=cmd:runuser
  [passwd]=cmd:useradd
  [procps]=cmd:pgrep
  [libcunit1-dev]=header:CUnit/CUnit.h
  [curl]=cmd:curl
  [chromium]=file:/usr/bin/chromium
  [nodejs]=cmd:node
  [npm]=cmd:npm
  [valgrind]=cmd:valgrind
  [clang]=cmd:clang
  [libclang-rt-14-dev]=file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
  [debootstrap]=cmd:debootstrap
  [patch]=cmd:patch
  [clang-format]=cmd:clang-format
  [cppcheck]=cmd:cppcheck
  [git]=cmd:git
  [nginx]=file:/usr/sbin/nginx
  [pgbouncer]=cmd:pgbouncer
  [openssl]=cmd:openssl
  [prometheus]=cmd:promtool
  [systemd]=cmd:systemd-analyze
  [systemd-container]=cmd:systemd-nspawn
)

RUN_PACKAGES="make gcc libc6-dev libmicrohttpd-dev libjansson-dev libpq-dev libsodium-dev
  libcurl4-openssl-dev postgresql util-linux passwd"
# (libcurl: m44d posts to the group's chat.) The C suites, the API suite's walkthrough (curl)
# and contract check (Node.js), the dashboard in Chromium.
# The proxy suite: Debian's nginx in front of m44d with a throwaway certificate (openssl),
# promtool on /metrics (prometheus), the units' exposure (systemd-analyze, from systemd).
TEST_PACKAGES="$RUN_PACKAGES libcunit1-dev curl procps chromium nodejs npm nginx openssl prometheus
  systemd"

# profile -> packages
declare -A PROFILE=(
  [run]="$RUN_PACKAGES"
  [test]="$TEST_PACKAGES"
  [faults]="$RUN_PACKAGES libcunit1-dev procps"
  [valgrind]="$RUN_PACKAGES libcunit1-dev curl procps nodejs npm valgrind"
  [fuzz]="make clang libclang-rt-14-dev libc6-dev libmicrohttpd-dev libjansson-dev libpq-dev
    libsodium-dev libcurl4-openssl-dev"
  [bench]="$RUN_PACKAGES curl procps nginx"
  [fresh]="debootstrap"
  [mutants]="$TEST_PACKAGES patch valgrind"
  [lint]="clang-format cppcheck git"
  [rehearsal]="debootstrap systemd-container util-linux openssl curl git procps"
  [cluster]="$RUN_PACKAGES curl procps nginx pgbouncer"
)

# profile -> the source directories whose #include <...> its builds compile, and the compiler
declare -A PROFILE_SOURCES=(
  [run]="util db rules campaign api cmd tools"
  [test]="util db rules campaign api cmd tools tests"
  [faults]="util db rules campaign api cmd tools tests"
  [valgrind]="util db rules campaign api cmd tools tests"
  [fuzz]="util db rules campaign api cmd tests/fuzz"
  [bench]="util db rules campaign api cmd tools bench"
  [fresh]=""
  [mutants]="util db rules campaign api cmd tools tests"
  [lint]=""
  [rehearsal]=""
  [cluster]="util db rules campaign api cmd tools"
)
declare -A PROFILE_CC=([fuzz]=clang)
