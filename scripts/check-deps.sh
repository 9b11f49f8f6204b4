#!/usr/bin/env bash
# Checks that everything a make target's suites use is on this machine, and names the Debian
# package that brings what is missing. The packages come from scripts/packages.sh, the same
# table scripts/deps.sh installs from, and the check cannot drift from the sources: every
# header any source of the profile includes (#include <...>) must be found, and must come from
# a package the profile lists or one of their dependencies; one that is present only by chance
# on this machine fails the check too.
#   scripts/check-deps.sh PROFILE    (run, test, faults, valgrind, fuzz, bench, fresh, mutants, lint,
#                                    rehearsal)
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh

profile=${1:-}
[ -n "$profile" ] && [ -n "${PROFILE[$profile]+x}" ] || {
  echo "usage: check-deps.sh PROFILE (${!PROFILE[*]})" >&2; exit 2; }
packages=(${PROFILE[$profile]})
cc=${PROFILE_CC[$profile]:-gcc}
problems=0
problem() { echo "check-deps ($profile): $*" >&2; problems=$((problems + 1)); }

# 1. Each package's probe: a command, a file or a header.
declare -A header_package=()
for p in "${!PROBE[@]}"; do
  case ${PROBE[$p]} in header:*) header_package[${PROBE[$p]#header:}]=$p ;; esac
done
have_header() { echo "#include <$1>" | "$cc" -E -M -xc - -I/usr/include/postgresql 2>/dev/null; }
for p in "${packages[@]}"; do
  probe=${PROBE[$p]:-}
  [ -n "$probe" ] || { problem "scripts/packages.sh lists $p but gives no probe for it"; continue; }
  case $probe in
    cmd:*) command -v "${probe#cmd:}" >/dev/null 2>&1 || problem "command ${probe#cmd:} is missing: install package $p" ;;
    file:*) [ -e "${probe#file:}" ] || problem "${probe#file:} is missing: install package $p" ;;
    header:*) have_header "${probe#header:}" >/dev/null || problem "header <${probe#header:}> is missing: install package $p" ;;
  esac
done
if command -v node >/dev/null 2>&1 && [[ " ${packages[*]} " == *" nodejs "* ]]; then
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 18 ] || problem "Node.js 18 or newer is needed (found $(node --version))"
fi
command -v "$cc" >/dev/null 2>&1 || { problem "the compiler $cc is missing"; echo "check-deps ($profile): $problems problem(s)" >&2; exit 1; }

# 2. The packages the profile may take headers from: its own and everything they depend on.
declare -A allowed=()
todo=("${packages[@]}")
while [ ${#todo[@]} -gt 0 ]; do
  batch=()
  for p in "${todo[@]}"; do p=${p%%:*}; [ -z "${allowed[$p]+x}" ] && { allowed[$p]=1; batch+=("$p"); }; done
  todo=()
  [ ${#batch[@]} -gt 0 ] || break
  deps=$(dpkg-query -W -f='${Depends}, ${Pre-Depends}\n' "${batch[@]}" 2>/dev/null |
    tr ',|' '\n\n' | sed -E 's/\(.*\)//; s/^ +//; s/ +$//; s/:any$//' | grep -v '^$' | sort -u)
  for d in $deps; do [ -z "${allowed[$d]+x}" ] && todo+=("$d"); done
done

# 3. Every header the profile's sources include.
dirs=(${PROFILE_SOURCES[$profile]})
if [ ${#dirs[@]} -gt 0 ]; then
  declare -A first_user=()
  while IFS=: read -r file header; do
    [ -n "${first_user[$header]+x}" ] || first_user[$header]=$file
  done < <(grep -rHoE '^#include <[^>]+>' --include='*.c' --include='*.h' "${dirs[@]}" 2>/dev/null |
    grep -v node_modules | sed -E 's/:#include <([^>]+)>$/:\1/')
  for header in "${!first_user[@]}"; do
    path=$(have_header "$header" | tr -d '\\' | tr ' ' '\n' | grep -m1 -F "/$header")
    if [ -z "$path" ]; then
      if [ -n "${header_package[$header]+x}" ]; then
        problem "header <$header> (used by ${first_user[$header]}) is missing: install package ${header_package[$header]}"
      else
        owner=$(dpkg -S "*/$header" 2>/dev/null | head -1 | cut -d: -f1)
        problem "header <$header> (used by ${first_user[$header]}) is missing, and scripts/packages.sh names no package for it${owner:+ (package $owner has one)}"
      fi
      continue
    fi
    real=$(readlink -f "$path")
    owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$real" 2>/dev/null)
    owner=${owner%%:*}
    owner=${owner%%,*}
    if [ -z "$owner" ]; then
      problem "header <$header> (used by ${first_user[$header]}) is $path, which no Debian package owns"
    elif [ -z "${allowed[$owner]+x}" ]; then
      problem "header <$header> (used by ${first_user[$header]}) comes from package $owner, which the '$profile' profile of scripts/packages.sh does not bring: add it there"
    fi
  done
fi

if [ $problems -gt 0 ]; then
  echo "check-deps ($profile): $problems problem(s); 'scripts/deps.sh $profile' (as root) installs the packages" >&2
  exit 1
fi
echo "check-deps ($profile): every package, command and header is here"
