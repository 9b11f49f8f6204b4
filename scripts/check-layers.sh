#!/usr/bin/env bash
# The layers (request -> api -> campaign -> rules/db, util under all) have no edge back up, and
# rules/ stays pure: no I/O library, no jansson, no libpq. Run by `make lint`.
set -uo pipefail
cd "$(dirname "$0")/.."
bad=0
# layer: the project directories it may include from
declare -A may=(
  [util]="util"
  [rules]="rules"
  [db]="db util"
  [campaign]="campaign rules db util"
  [api]="api campaign rules db util"
  [cmd]="cmd api campaign rules db util"
)
for layer in "${!may[@]}"; do
  while IFS=: read -r file line text; do
    dir=$(sed -E 's/#include "([a-z_]+)\/.*/\1/' <<<"$text")
    if [[ " ${may[$layer]} " != *" $dir "* ]]; then
      echo "check-layers: $file:$line: $layer/ may not include $dir/ ($text)"
      bad=1
    fi
  done < <(grep -rnE '^#include "[a-z_]+/' --include='*.c' --include='*.h' "$layer")
done
# rules/ is pure: plain C and libsodium's hashes, nothing that talks to the world.
while IFS=: read -r file line text; do
  echo "check-layers: $file:$line: rules/ is pure ($text)"
  bad=1
done < <(grep -rnE '^#include <(jansson|libpq-fe|microhttpd|curl/|pthread|unistd|sys/|dirent|fcntl|netdb|arpa/)' rules)
[ $bad -eq 0 ] && echo "check-layers: api -> campaign -> rules/db -> util, no edge back up; rules/ is pure"
exit $bad
