# Campaigns made in SQL for the benchmarks (bench/run.sh, bench/cluster.sh, bench/ab.sh), with
# keys known to the load: campaign i has id md5('c' || i)::uuid and keys 'o', 'a', 'x' followed
# by i on 42 digits: the rows m44d reads for a campaign (its battles, seed, tokens), without the
# log lines the API would have written while making them (in_use adds some). The caller defines
# psqlq (psql to its database server) and LG (loadgen).
# And what the scripts measure with.

# A loadgen or pgbench line's field: field rps "$LINE".
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

# CPU time, in clock ticks, of PostgreSQL (the postmaster, its live children, and those that
# ended: the postmaster reaps them): pg_ticks [DATADIR] (default: bench/run.sh's).
TICK_MS=$(awk -v t="$(getconf CLK_TCK)" 'BEGIN { print 1000 / t }')
pg_ticks() {
  local pm; pm=$(head -1 "${1:-$host/data}/postmaster.pid")
  { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat"
    for p in $(pgrep -P "$pm"); do awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || true; done
  } | awk '{ s += $1 } END { print s }'
}
# PostgreSQL's server processes (pg_children [DATADIR]), and pg_settle N [DATADIR]: waits (at
# most 5 s) until there are no more than N: the backends of a client that just left may still
# be ending, and one that ends between pg_ticks' two reads (the postmaster's, then its
# children's) would be counted in neither.
pg_children() { pgrep -c -P "$(head -1 "${1:-$host/data}/postmaster.pid")"; }
pg_settle() {
  local i
  for i in $(seq 100); do [ "$(pg_children "${2:-}")" -le "$1" ] && return; sleep 0.05; done
}
ms_per() { # TICKS0 TICKS1 REQUESTS -> milliseconds per request, or "-"
  if [ -z "$1" ]; then echo "-"; return; fi
  awk -v a="$1" -v b="$2" -v n="$3" -v t="$TICK_MS" 'BEGIN { if (n > 0) printf "%.4f", (b - a) * t / n; else print "-" }'
}

# m44d_up BINARY DB PORT LOG [ARGS...]: a daemon on 127.0.0.1:PORT for database DB (the caller
# defines conn), its standard error appended to LOG, with the rate limits off (the load is one
# client far faster than people); returns once /readyz answers 200. Its process id is in M44_PID
# from the start, for a cleanup that runs while it is not ready yet. A daemon that ends before it
# is ready, or is still not ready after M44_BENCH_READY_SECS (60 s unless set; it starts in well
# under a second), stops the benchmark, with the end of its log.
m44d_up() {
  local bin=$1 db=$2 port=$3 log=$4 wait_s=${M44_BENCH_READY_SECS:-60} t0=$SECONDS
  shift 4
  "$bin" --database "$(conn "$db")" --listen "127.0.0.1:$port" --rate-read 0 --rate-write 0 \
    --rate-create 0 "$@" 2>>"$log" &
  M44_PID=$!
  until curl -sf -m 5 -o /dev/null "http://127.0.0.1:$port/readyz"; do
    if ! kill -0 "$M44_PID" 2>/dev/null; then
      echo "bench: $bin ended before it was ready (database $db, port $port):" >&2
      tail -n 5 "$log" >&2
      return 1
    fi
    if [ $((SECONDS - t0)) -ge "$wait_s" ]; then
      echo "bench: $bin not ready after $wait_s s (database $db, port $port; M44_BENCH_READY_SECS):" >&2
      tail -n 5 "$log" >&2
      return 1
    fi
    sleep 0.01
  done
}

gen_campaigns() { # DB COUNT BATTLES PHASE
  psqlq -d "$1" <<SQL
INSERT INTO campaigns (id, name, ruleset, what_if, dice, player_allies, player_axis,
                       tokens_allies, tokens_axis, organizer_key_hash, allies_key_hash, axis_key_hash)
SELECT md5('c' || i)::uuid, 'bench ' || i, 'standard', false, 'server', 'Ann', 'Bob', 3, 3,
       sha256(convert_to('o' || lpad(i::text, 42, '0'), 'UTF8')),
       sha256(convert_to('a' || lpad(i::text, 42, '0'), 'UTF8')),
       sha256(convert_to('x' || lpad(i::text, 42, '0'), 'UTF8'))
FROM generate_series(1, $2) i;
INSERT INTO seeds (campaign_id, epoch, seed, commitment, origin)
SELECT id, 1, s, encode(sha256(s), 'hex'), 'server'
FROM (SELECT id, decode(md5(id::text) || md5(id::text || 's'), 'hex') s FROM campaigns) x;
INSERT INTO token_ledger (campaign_id, side, delta, balance, reason)
SELECT id, side, 3, 3, 'start' FROM campaigns, (VALUES ('allies'), ('axis')) v(side);
INSERT INTO battles (campaign_id, number, scenario, first_player, cards_allies, cards_axis,
                     medals_to_win, phase, winner, medals_allies, medals_axis, undeployed_allies,
                     undeployed_axis, objective_allies, objective_axis)
SELECT c.id, b, 'Battle ' || b, 'allies', 5, 5, 6,
       CASE WHEN b = $3 THEN '$4' ELSE 'finished' END,
       CASE WHEN b < $3 THEN (CASE WHEN b % 2 = 0 THEN 'allies' ELSE 'axis' END) END,
       CASE WHEN b < $3 THEN 6 - b % 2 END, CASE WHEN b < $3 THEN 3 + b % 2 END,
       CASE WHEN b < $3 THEN 0 END, CASE WHEN b < $3 THEN 0 END,
       CASE WHEN b < $3 THEN 0 END, CASE WHEN b < $3 THEN 0 END
FROM campaigns c, generate_series(1, $3) b;
SQL
}

# The baseline of the comparisons: pgbench's one transaction, an UPDATE of a row and an INSERT,
# on two tables of its own. baseline_tables DB makes them (and analyzes); baseline_script FILE
# writes the pgbench script.
baseline_tables() {
  psqlq -d "$1" <<'SQL'
CREATE TABLE bench_accounts (id int PRIMARY KEY, balance int NOT NULL DEFAULT 0);
INSERT INTO bench_accounts (id) SELECT generate_series(1, 100000);
CREATE TABLE bench_history (aid int NOT NULL, delta int NOT NULL, at timestamptz NOT NULL DEFAULT now());
ANALYZE bench_accounts, bench_history;
SQL
}
baseline_script() {
  cat >"$1" <<'SQL'
\set aid random(1, 100000)
BEGIN;
UPDATE bench_accounts SET balance = balance + 1 WHERE id = :aid;
INSERT INTO bench_history (aid, delta) VALUES (:aid, 1);
END;
SQL
}

# Roll targets for loadgen -p: each (campaign, side) once, in campaign order, so that concurrent
# requests are for different campaigns.
roll_targets() { # FIRST LAST SIDE-KEY-LETTER [BATTLE, 1]
  psqlq -d "${BENCH_DB:-bench}" -At -c "SELECT format(E'/api/v1/campaigns/%s/battles/${4:-1}/reserve-roll\t%s%s\t{}', md5('c' || i)::uuid, '$3', lpad(i::text, 42, '0'))
                         FROM generate_series($1, $2) i ORDER BY i"
}

# A database in use: in_use DB FIRST LAST HOST:PORT rolls the Allies' reserve roll of campaigns
# FIRST..LAST once through the m44d at HOST:PORT (16 connections, at most 120 s), so that the
# tables of rolls and of the log hold rows, as any database that has been played on does, when
# the set-up takes its statistics (VACUUM ANALYZE). Taken on those tables empty, the statistics
# make a scan of the whole table the cheapest plan for the reads of a campaign's rolls and log;
# a connection that keeps that plan for its prepared statement goes on scanning the table as the
# load fills it, until autovacuum analyzes it again. bench/RESULTS.md, "Why the cold rolls fell
# with four database workers".
in_use() {
  local f r
  f=$(mktemp /tmp/m44-in-use.XXXXXX)
  BENCH_DB=$1 roll_targets "$2" "$3" a >"$f"
  r=$("$LG" -c 16 -d 120 -p "$f" "$4") || { rm -f "$f"; return 1; }
  rm -f "$f"
  if [ "$(field ok "$r")" != "$(($3 - $2 + 1))" ]; then
    echo "bench: the rolls that put the database in use did not all succeed: $r" >&2
    return 1
  fi
}

# What PostgreSQL's backends are doing, sampled while a row runs: waits_start DB APP SECONDS
# FILE starts a sampler (one session; every 20 ms it reads pg_stat_activity for the backends of
# DB whose application_name is APP: pgbench, or m44d's database workers) that writes one line
# per kind of state, "kind count", when it ends; the caller waits for WAITS_PID. Each sample is
# a transaction of its own (a long one would hold back the cleanup of the rows the load
# updates), and a backend that never left "idle" during the row (one of m44d's connections the
# load did not use) is not counted. A profile of where the transactions spend their time: on a
# CPU, waiting for the lock that serializes the commits of transactions that notify (a
# heavyweight lock on an object, database 0: PreCommit_Notify in PostgreSQL's async.c),
# flushing the WAL, waiting for another lock, or waiting for their client inside a transaction
# or between two.
waits_start() {
  psqlq -d "$1" -At -F ' ' >"$4" <<SQL &
CREATE TEMP TABLE waits (pid int, kind text);
DO \$\$
DECLARE t_end timestamptz := clock_timestamp() + interval '$3 seconds';
BEGIN
  WHILE clock_timestamp() < t_end LOOP
    PERFORM pg_stat_clear_snapshot();
    INSERT INTO waits
    SELECT pid, CASE
             WHEN state = 'active' AND wait_event IS NULL THEN 'cpu'
             WHEN wait_event_type = 'Lock' AND wait_event = 'object' THEN 'notify_lock'
             WHEN wait_event_type = 'Lock' THEN 'other_lock'
             WHEN wait_event_type IN ('IO', 'LWLock') AND wait_event LIKE 'WAL%' THEN 'wal'
             WHEN state LIKE 'idle in transaction%' THEN 'client_in_tx'
             WHEN state = 'idle' THEN 'client_between'
             ELSE 'other' END
    FROM pg_stat_activity
    WHERE backend_type = 'client backend' AND datname = current_database()
      AND application_name = '$2';
    COMMIT;
    PERFORM pg_sleep(0.02);
  END LOOP;
END \$\$;
SELECT kind, count(*) FROM waits
WHERE pid IN (SELECT pid FROM waits WHERE kind <> 'client_between') GROUP BY kind;
SQL
  WAITS_PID=$!
}
# waits_row LABEL FILE: a row of the waits table, each kind's share of the samples in percent.
waits_row() {
  awk -v label="$1" '{ n[$1] = $2; t += $2 }
    function p(k) { return t ? sprintf("%.0f", 100 * n[k] / t) : "-" }
    END { printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", label, t, p("cpu"),
          p("notify_lock"), p("wal"), p("other_lock"), p("client_in_tx"), p("client_between"),
          p("other") }' "$2"
}
# cycle_lines DB: loadgen -s lines of a whole battle cycle, step by step, on DB's 160 campaigns
# whose first battle is over (gen_campaigns DB 160 1 finished): 30 battles each (create it, both
# sides' victory-event and reserve rolls, their choices, the result), ten campaigns for each of
# 16 connections (loadgen -s: connection k sends lines k, k + 16...).
cycle_lines() {
  psqlq -d "$1" -At <<'SQL'
WITH c AS (SELECT i, md5('c' || i)::uuid id, (i - 1) % 16 k, (i - 1) / 16 r
           FROM generate_series(1, 160) i),
steps(s, path, who, body) AS (VALUES
  (0, '/battles', 'o', '{"scenario":"Battle %s","first_player":"allies","cards":{"allies":5,"axis":5},"medals_to_win":6}'),
  (1, '/battles/%s/victory-events', 'a', '{}'), (2, '/battles/%s/victory-events', 'x', '{}'),
  (3, '/battles/%s/reserve-roll', 'a', '{}'), (4, '/battles/%s/reserve-roll', 'x', '{}'),
  (5, '/battles/%s/reserve-choice', 'a', '{"options":[]}'),
  (6, '/battles/%s/reserve-choice', 'x', '{"options":[]}'),
  (7, '/battles/%s/result', 'o', '{"winner":"allies","medals":{"allies":6,"axis":3}}'))
SELECT format(E'/api/v1/campaigns/%s%s\t%s%s\t%s', c.id, format(steps.path, b), steps.who,
              lpad(c.i::text, 42, '0'), format(steps.body, b))
FROM c, generate_series(2, 31) b, steps
ORDER BY ((c.r * 30 + b - 2) * 8 + steps.s), c.k
SQL
}
