# What scripts/pg.sh and scripts/cluster.sh share: where PostgreSQL's programs are, and the user
# the clusters run as (PostgreSQL refuses root: as root, a system user "m44", created on first
# use). Sourced, not run.
pgbin=""
for d in /usr/lib/postgresql/15/bin $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
  [ -x "$d/initdb" ] && { pgbin=$d; break; }
done
[ -n "$pgbin" ] || { echo "PostgreSQL server not installed (run scripts/deps.sh as root)" >&2; exit 1; }

user=$(id -un)
as_owner() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
  user=m44
  if ! id -u m44 >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin m44
  fi
  as_owner() { runuser -u m44 -- "$@"; }
fi
