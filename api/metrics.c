#include "api/metrics.h"
#include "campaign/state_cache.h"

#include "api/acceptor.h"
#include "api/chat_delivery.h"
#include "api/conns.h"
#include "api/jobs.h"
#include "api/ratelimit.h"
#include "api/router.h"
#include "api/sweeper.h"
#include "api/waiters.h"
#include "api/server.h"
#include "db/db.h"
#include "db/listener.h"
#include "db/replica.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROUTES 64

static const int statuses[] = {200, 201, 204, 304, 400, 401, 403, 404, 405,
                               409, 412, 413, 415, 422, 429, 500, 503, 0 /* other */};
#define NSTATUS (sizeof statuses / sizeof statuses[0])

static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                 0.1,   0.25,   0.5,   1,    2.5,   5};
#define NBUCKETS (sizeof buckets / sizeof buckets[0])

static atomic_uint_fast64_t counts[MAX_ROUTES + 1][NSTATUS];
static atomic_uint_fast64_t hist[NBUCKETS + 1];
static atomic_uint_fast64_t hist_sum_us, hist_count;
static atomic_long inflight;

static size_t status_index(int status)
{
    for (size_t i = 0; i + 1 < NSTATUS; i++)
        if (statuses[i] == status)
            return i;
    return NSTATUS - 1;
}

void metrics_request_done(int route, int status, double seconds)
{
    size_t ri = (route < 0 || route >= MAX_ROUTES) ? MAX_ROUTES : (size_t)route;
    atomic_fetch_add(&counts[ri][status_index(status)], 1);
    size_t b = 0;
    while (b < NBUCKETS && seconds > buckets[b])
        b++;
    atomic_fetch_add(&hist[b], 1);
    atomic_fetch_add(&hist_sum_us, (uint_fast64_t)(seconds * 1e6));
    atomic_fetch_add(&hist_count, 1);
}

void metrics_inflight_add(int delta)
{
    atomic_fetch_add(&inflight, delta);
}

long metrics_inflight(void)
{
    return atomic_load(&inflight);
}

struct out {
    char *buf;
    size_t len, cap;
};

static void outf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(struct out *o, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = (o->cap + (size_t)n + 1) * 2;
        char *nb = realloc(o->buf, cap);
        if (!nb)
            return;
        o->buf = nb, o->cap = cap;
    }
}

char *metrics_render(size_t *len)
{
    struct out o = {malloc(4096), 0, 4096};
    if (!o.buf)
        return NULL;
    o.buf[0] = '\0';
    size_t nroutes;
    const struct route *routes = router_routes(&nroutes);
    outf(&o, "# HELP m44d_http_requests_total HTTP requests answered, by route and status.\n"
             "# TYPE m44d_http_requests_total counter\n");
    for (size_t r = 0; r <= MAX_ROUTES; r++) {
        if (r < MAX_ROUTES && r >= nroutes)
            continue;
        for (size_t s = 0; s < NSTATUS; s++) {
            uint_fast64_t n = atomic_load(&counts[r][s]);
            if (!n)
                continue;
            char status[8];
            if (statuses[s])
                snprintf(status, sizeof status, "%d", statuses[s]);
            else
                snprintf(status, sizeof status, "other");
            if (r == MAX_ROUTES)
                outf(&o,
                     "m44d_http_requests_total{method=\"\",route=\"unmatched\",status=\"%s\"} "
                     "%llu\n",
                     status, (unsigned long long)n);
            else
                outf(&o,
                     "m44d_http_requests_total{method=\"%s\",route=\"%s\",status=\"%s\"} %llu\n",
                     routes[r].method, routes[r].pattern, status, (unsigned long long)n);
        }
    }
    outf(&o, "# HELP m44d_http_request_duration_seconds Time from request start to reply.\n"
             "# TYPE m44d_http_request_duration_seconds histogram\n");
    uint_fast64_t cum = 0;
    for (size_t b = 0; b < NBUCKETS; b++) {
        cum += atomic_load(&hist[b]);
        outf(&o, "m44d_http_request_duration_seconds_bucket{le=\"%g\"} %llu\n", buckets[b],
             (unsigned long long)cum);
    }
    cum += atomic_load(&hist[NBUCKETS]);
    outf(&o, "m44d_http_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
         (unsigned long long)cum);
    outf(&o, "m44d_http_request_duration_seconds_sum %.6f\n",
         (double)atomic_load(&hist_sum_us) / 1e6);
    outf(&o, "m44d_http_request_duration_seconds_count %llu\n",
         (unsigned long long)atomic_load(&hist_count));
    outf(&o,
         "# HELP m44d_http_requests_in_flight Requests being handled now.\n"
         "# TYPE m44d_http_requests_in_flight gauge\n"
         "m44d_http_requests_in_flight %ld\n",
         metrics_inflight());
    outf(&o,
         "# HELP m44d_requests_queued Requests waiting for a database worker: of --threads "
         "(play) or of --heavy-workers (exports and imports).\n"
         "# TYPE m44d_requests_queued gauge\n"
         "m44d_requests_queued{workers=\"play\"} %zu\n"
         "m44d_requests_queued{workers=\"heavy\"} %zu\n",
         jobs_waiting_play(), jobs_waiting_heavy());
    outf(&o,
         "# HELP m44d_long_polls_waiting Requests parked until their campaign changes (?wait=).\n"
         "# TYPE m44d_long_polls_waiting gauge\n"
         "m44d_long_polls_waiting %ld\n",
         waiters_count());
    outf(&o,
         "# HELP m44d_idempotency_expired_total Stored Idempotency-Key responses deleted on "
         "expiry.\n"
         "# TYPE m44d_idempotency_expired_total counter\n"
         "m44d_idempotency_expired_total %lu\n",
         sweeper_deleted());
    outf(&o,
         "# HELP m44d_version_listener_current 1 while every change of a version up to "
         "--version-max-lag-ms ago has been seen in the database, else 0.\n"
         "# TYPE m44d_version_listener_current gauge\n"
         "m44d_version_listener_current %d\n"
         "# HELP m44d_version_listener_connections_total Connections the version listener made "
         "(each forgets the versions known before it).\n"
         "# TYPE m44d_version_listener_connections_total counter\n"
         "m44d_version_listener_connections_total %lu\n"
         "# HELP m44d_version_looks_total Looks at the changes of versions the database "
         "answered (every 20 ms, or a fifth of --version-max-lag-ms when that is less; each one "
         "sees every change committed before it was sent).\n"
         "# TYPE m44d_version_looks_total counter\n"
         "m44d_version_looks_total %lu\n"
         "# HELP m44d_version_changes_heard_total Changes of versions seen in the database.\n"
         "# TYPE m44d_version_changes_heard_total counter\n"
         "m44d_version_changes_heard_total %lu\n"
         "# HELP m44d_version_polls_total Rounds in which long polls' versions were read from "
         "the database (while the changes are not seen, and once as they are seen again).\n"
         "# TYPE m44d_version_polls_total counter\n"
         "m44d_version_polls_total %lu\n"
         "# HELP m44d_memory_answers_total Versioned GETs answered from the versions heard "
         "(304 or a cached rendering), with no database worker.\n"
         "# TYPE m44d_memory_answers_total counter\n"
         "m44d_memory_answers_total %lu\n",
         listener_current() ? 1 : 0, listener_connections(), listener_looks(), listener_heard(),
         waiters_polls(), http_memory_answers());
    struct state_cache_stats sc;
    state_cache_stats(&sc);
    outf(&o,
         "# HELP m44d_state_writes_total Writes to a campaign that may start from it as held "
         "in memory, by how they found it: held and current (hit; a request sent again whose "
         "Idempotency-Key is found answered among them), not held (miss), held but moved on by "
         "another writer, or a reserve roll that clashed with one stored, then "
         "loaded again (stale).\n"
         "# TYPE m44d_state_writes_total counter\n"
         "m44d_state_writes_total{found=\"hit\"} %lu\n"
         "m44d_state_writes_total{found=\"miss\"} %lu\n"
         "m44d_state_writes_total{found=\"stale\"} %lu\n"
         "# HELP m44d_state_reads_total Reads of a campaign (its standing, battles, rolls, log, "
         "export, a key's role, the chat link's status), by how they found it: held in memory at "
         "the versions stored (hit), or loaded (loaded); a read run again (on the primary after "
         "the standby) counts again.\n"
         "# TYPE m44d_state_reads_total counter\n"
         "m44d_state_reads_total{found=\"hit\"} %lu\n"
         "m44d_state_reads_total{found=\"loaded\"} %lu\n"
         "# HELP m44d_state_entries Campaigns held in memory, by writes and reads (of "
         "--state-entries).\n"
         "# TYPE m44d_state_entries gauge\n"
         "m44d_state_entries %lu\n",
         sc.uses[STATE_HIT], sc.uses[STATE_MISS], sc.uses[STATE_STALE], sc.uses[STATE_READ_HIT],
         sc.uses[STATE_READ_LOADED], sc.entries);
    outf(&o, "# HELP m44d_standby_reads_total Reads that the standby (--read-database) could "
             "answer, by how they went: answered there (standby); sent to the primary because the "
             "standby was behind more than --read-max-lag-ms or was not a standby (lagging), had "
             "an older version than the read must show (behind), refused it (refused: the "
             "primary decides) or failed (failed).\n"
             "# TYPE m44d_standby_reads_total counter\n");
    for (int k = 0; k < REPLICA_OUTCOMES; k++)
        outf(&o, "m44d_standby_reads_total{outcome=\"%s\"} %lu\n",
             replica_outcome_name((enum replica_outcome)k),
             replica_outcomes((enum replica_outcome)k));
    outf(&o,
         "# HELP m44d_standby_lag_seconds How far behind the primary the standby was at the last "
         "probe (-1: unknown, or no standby).\n"
         "# TYPE m44d_standby_lag_seconds gauge\n"
         "m44d_standby_lag_seconds %.3f\n",
         replica_lag_seconds());
    outf(&o, "# HELP m44d_long_poll_wakes_total Parked long polls woken, by cause.\n"
             "# TYPE m44d_long_poll_wakes_total counter\n");
    for (int c = 0; c < WAKE_CAUSES; c++)
        outf(&o, "m44d_long_poll_wakes_total{cause=\"%s\"} %lu\n",
             wake_cause_name((enum wake_cause)c), waiters_wakes((enum wake_cause)c));
    outf(&o,
         "# HELP m44d_db_errors_total Failed database statements and connection attempts.\n"
         "# TYPE m44d_db_errors_total counter\n"
         "m44d_db_errors_total %llu\n",
         (unsigned long long)db_stat_errors());
    outf(&o,
         "# HELP m44d_db_transactions_run_again_total Transactions run again from the start, "
         "by why: what they started from had moved on (moved_on: another daemon's write, or a "
         "campaign added to a grand campaign meanwhile), a serialization failure, a deadlock "
         "broken by the database, a connection lost before the commit, or an answer stored for the "
         "Idempotency-Key of a write that took it as new (key_answered: a request sent again).\n"
         "# TYPE m44d_db_transactions_run_again_total counter\n");
    for (int c = 0; c < DB_RERUNS; c++)
        outf(&o, "m44d_db_transactions_run_again_total{cause=\"%s\"} %llu\n",
             db_rerun_name((enum db_rerun)c), (unsigned long long)db_stat_reruns((enum db_rerun)c));
    outf(&o,
         "# HELP m44d_db_reconnects_total Database connections re-established after loss.\n"
         "# TYPE m44d_db_reconnects_total counter\n"
         "m44d_db_reconnects_total %llu\n",
         (unsigned long long)db_stat_reconnects());
    outf(&o,
         "# HELP m44d_chat_messages_delivered_total Messages posted to groups' chats.\n"
         "# TYPE m44d_chat_messages_delivered_total counter\n"
         "m44d_chat_messages_delivered_total %llu\n"
         "# HELP m44d_chat_attempts_failed_total Attempts to post a chat message that failed.\n"
         "# TYPE m44d_chat_attempts_failed_total counter\n"
         "m44d_chat_attempts_failed_total %llu\n"
         "# HELP m44d_chat_messages_given_up_total Chat messages given up on (refused for good, "
         "or too many attempts).\n"
         "# TYPE m44d_chat_messages_given_up_total counter\n"
         "m44d_chat_messages_given_up_total %llu\n",
         (unsigned long long)chat_delivered_total(),
         (unsigned long long)chat_failed_attempts_total(),
         (unsigned long long)chat_given_up_total());
    outf(&o, "# HELP m44d_rate_limited_total Requests refused with 429 for a client's rate, by "
             "limit.\n"
             "# TYPE m44d_rate_limited_total counter\n");
    static const struct {
        enum limit_class cls;
        const char *name;
    } limits[] = {{LIMIT_READ, "read"}, {LIMIT_WRITE, "write"}, {LIMIT_CREATE, "create"}};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        outf(&o, "m44d_rate_limited_total{limit=\"%s\"} %lu\n", limits[i].name,
             ratelimit_refused(limits[i].cls));
    outf(&o,
         "# HELP m44d_connections_open Connections open now.\n"
         "# TYPE m44d_connections_open gauge\n"
         "m44d_connections_open %ld\n"
         "# HELP m44d_connections_refused_total Connections refused for --per-ip-limit.\n"
         "# TYPE m44d_connections_refused_total counter\n"
         "m44d_connections_refused_total %lu\n"
         "# HELP m44d_head_timeouts_total Connections closed for a request head not whole "
         "within --head-timeout.\n"
         "# TYPE m44d_head_timeouts_total counter\n"
         "m44d_head_timeouts_total %lu\n"
         "# HELP m44d_idle_connections_shed_total Idle connections closed to keep room for new "
         "ones when nearly at --max-connections.\n"
         "# TYPE m44d_idle_connections_shed_total counter\n"
         "m44d_idle_connections_shed_total %lu\n"
         "# HELP m44d_accept_pauses_total Times accepting connections paused for a moment, the "
         "process being out of open files (or memory).\n"
         "# TYPE m44d_accept_pauses_total counter\n"
         "m44d_accept_pauses_total %lu\n",
         conns_open(), conns_refused(), conns_head_timeouts(), conns_idle_shed(),
         acceptor_fd_waits());
    *len = o.len;
    return o.buf;
}
