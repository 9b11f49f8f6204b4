/* Reads from a hot standby, within a bound of staleness (see db/replica.h). */
#include "db/replica.h"

#include "util/log.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBE_MS  100  /* between probes */
#define ANSWER_MS 2000 /* a probe unanswered this long: its connection is made again */
#define SAMPLES   64   /* primary positions kept: PROBE_MS * SAMPLES of history */

struct sample {
    long long at_ns;
    long long lsn;
};

static struct sample ring[SAMPLES];
static int ring_n, ring_head;     /* the probe thread's only */
static atomic_llong caught_up_ns; /* the standby holds every commit before this; 0: unknown */
static atomic_llong lag_ns = -1;  /* at the last probe; -1: unknown */
static atomic_bool is_standby;
static atomic_bool stop;
static unsigned max_lag_ms;
static pthread_t thread;
static bool running;
static atomic_ulong outcomes[REPLICA_OUTCOMES];

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Runs `sql` (one row, one or two columns) on `*c`, connecting first when needed, waiting at most
 * ANSWER_MS; a connection that does not answer is closed. false: no answer. */
static bool probe_query(PGconn **c, PGconn *(*connect)(const char *), const char *sql,
                        char out[][32], int ncols, bool *fresh)
{
    if (!*c || PQstatus(*c) != CONNECTION_OK) {
        *fresh = true;
        PQfinish(*c);
        *c = connect("m44d standby probe");
        if (PQstatus(*c) != CONNECTION_OK)
            return false;
    }
    if (!PQsendQuery(*c, sql))
        goto drop;
    long long deadline = now_ns() + ANSWER_MS * 1000000LL;
    PGresult *r, *got = NULL;
    for (;;) {
        while (!PQisBusy(*c)) {
            r = PQgetResult(*c);
            if (!r)
                goto done;
            if (got)
                PQclear(got);
            got = r;
        }
        struct pollfd p = {.fd = PQsocket(*c), .events = POLLIN};
        long long left = (deadline - now_ns()) / 1000000LL;
        if (p.fd < 0 || left <= 0 || atomic_load(&stop) ||
            poll(&p, 1, left > 50 ? 50 : (int)left) < 0 || !PQconsumeInput(*c)) {
            PQclear(got);
            goto drop;
        }
    }
done:
    if (!got || PQresultStatus(got) != PGRES_TUPLES_OK || PQntuples(got) != 1 ||
        PQnfields(got) < ncols) {
        PQclear(got);
        return false;
    }
    for (int k = 0; k < ncols; k++)
        snprintf(out[k], sizeof out[k], "%s", PQgetisnull(got, 0, k) ? "" : PQgetvalue(got, 0, k));
    PQclear(got);
    return true;
drop:
    PQfinish(*c);
    *c = NULL;
    return false;
}

/* One probe: the primary's position now, then how far the standby has replayed. */
static void probe(PGconn **primary, PGconn **standby)
{
    char v[2][32];
    long long at = now_ns();
    bool fresh = false, fresh_standby = false;
    if (probe_query(primary, db_connect_as, "SELECT (pg_current_wal_lsn() - '0/0')::bigint", v, 1,
                    &fresh)) {
        if (fresh) { /* perhaps another server (a failover): nothing measured before holds */
            ring_n = ring_head = 0;
            atomic_store(&caught_up_ns, 0);
        }
        ring[ring_head] = (struct sample){at, atoll(v[0])};
        ring_head = (ring_head + 1) % SAMPLES;
        ring_n = ring_n < SAMPLES ? ring_n + 1 : SAMPLES;
    }
    if (!probe_query(standby, db_connect_standby_as,
                     "SELECT pg_is_in_recovery(), (pg_last_wal_replay_lsn() - '0/0')::bigint", v, 2,
                     &fresh_standby)) {
        atomic_store(&lag_ns, -1);
        atomic_store(&caught_up_ns, 0); /* no answer: not read until one comes */
        return;
    }
    if (fresh_standby) /* a new connection may be to another server: nothing is known of it yet */
        atomic_store(&caught_up_ns, 0);
    bool recovering = strcmp(v[0], "t") == 0 && v[1][0];
    if (recovering != atomic_load(&is_standby))
        log_msg(recovering ? LOG_INFO : LOG_WARN, "replica", "%s",
                recovering ? "the read database is a standby: reads may go to it"
                           : "the read database is not a standby (promoted?): reads go to the "
                             "primary");
    atomic_store(&is_standby, recovering);
    if (!recovering) {
        atomic_store(&lag_ns, -1);
        atomic_store(&caught_up_ns, 0);
        return;
    }
    long long replayed = atoll(v[1]), newest = 0;
    for (int i = 0; i < ring_n; i++)
        if (ring[i].lsn <= replayed && ring[i].at_ns > newest)
            newest = ring[i].at_ns;
    if (newest > atomic_load(&caught_up_ns))
        atomic_store(&caught_up_ns, newest);
    long long caught = atomic_load(&caught_up_ns);
    atomic_store(&lag_ns, caught ? now_ns() - caught : -1);
}

static void *run(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-replica");
    PGconn *primary = NULL, *standby = NULL;
    while (!atomic_load(&stop)) {
        probe(&primary, &standby);
        for (int t = 0; t < PROBE_MS && !atomic_load(&stop); t += 10) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    PQfinish(primary);
    PQfinish(standby);
    return NULL;
}

bool replica_start(unsigned max_lag)
{
    if (!db_has_standby())
        return true;
    max_lag_ms = max_lag;
    atomic_store(&stop, false);
    running = pthread_create(&thread, NULL, run, NULL) == 0;
    if (!running)
        log_msg(LOG_ERROR, "replica", "cannot start the standby probe thread");
    return running;
}

void replica_stop(void)
{
    if (!running)
        return;
    atomic_store(&stop, true);
    pthread_join(thread, NULL);
    running = false;
    atomic_store(&is_standby, false);
    atomic_store(&caught_up_ns, 0);
}

struct db *replica_db(void)
{
    if (!db_has_standby())
        return NULL;
    long long caught = atomic_load(&caught_up_ns);
    if (!running || !atomic_load(&is_standby) || !caught ||
        now_ns() - caught > (long long)max_lag_ms * 1000000LL) {
        replica_count(REPLICA_LAGGING);
        return NULL;
    }
    return db_thread_standby();
}

void replica_count(enum replica_outcome outcome)
{
    atomic_fetch_add(&outcomes[outcome], 1);
}

unsigned long replica_outcomes(enum replica_outcome outcome)
{
    return atomic_load(&outcomes[outcome]);
}

const char *replica_outcome_name(enum replica_outcome outcome)
{
    static const char *const names[REPLICA_OUTCOMES] = {"standby", "lagging", "behind", "refused",
                                                        "failed"};
    return names[outcome];
}

double replica_lag_seconds(void)
{
    long long lag = atomic_load(&lag_ns);
    return lag < 0 ? -1 : (double)lag / 1e9;
}
