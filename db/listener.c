/* Versions seen in the database's record of changes (see db/listener.h). */
#include "db/listener.h"

#include "db/db.h"
#include "util/log.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOOK_MS 20    /* at most; a fifth of --version-max-lag-ms when that is shorter */
#define DEAD_MS 5000  /* a look unanswered this long: the connection is dropped and made again */
#define SLOTS   65536 /* versions kept; a power of two */
#define WAYS    4     /* slots a key may take, next to each other */
#define STRIPES 256
#define ID_LEN  36

struct entry {
    char id[ID_LEN + 1];
    long long version;
    unsigned long epoch;    /* `reset` when it was kept; an entry of an older epoch is empty */
    unsigned long doubt;    /* nonzero: changed by a write whose version is not known; cleared by a
                             * database read that began after it (its ticket above it) */
    unsigned long heard_at; /* when a look last set it (a `seq` value; 0: never): news from a
                             * request that began before that may be older, and is not taken */
    uint64_t used;          /* when it was last set or read, to forget the oldest first */
    enum vkind kind;        /* VK_ANY until something heard, read or written says */
};

static struct entry table[SLOTS];
/* Per group of WAYS slots: when a live entry was last pushed out (a `seq` value). What a
 * request learned before that may be older than what was forgotten: it may not make an entry. */
static unsigned long evicted[SLOTS / WAYS];
static pthread_mutex_t stripes[STRIPES];
/* One counter for tickets, doubts and resets, so that each can be ordered against reads. */
static atomic_ulong seq = 1, reset = 1;
static atomic_uint_fast64_t clock_ticks;
static atomic_llong looked_ns; /* when the last look that was answered was sent; 0: none */
static atomic_bool connected, stop;
static atomic_bool enabled; /* listener_start was called: the table is in use */
static pthread_once_t stripes_once = PTHREAD_ONCE_INIT;
static atomic_ulong heard, looks, connections;
static unsigned lag_limit_ms;
static unsigned keep_ms = 60000; /* changes older than this are deleted */
static void (*on_change)(const char *, long long);
static pthread_t thread;
static bool running;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t hash(const char *id)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

enum make {
    LOOK,     /* only an entry there */
    MAKE,     /* made if absent: what is heard, or a doubt */
    MAKE_NEW, /* made if absent only by news newer than the last reset and the last eviction */
};

/* The entry of `id` (locked: unlock with its stripe); NULL when absent and not made. `ticket`:
 * when the news began (MAKE_NEW). */
static struct entry *find(const char *id, enum make make, unsigned long ticket, pthread_mutex_t **m)
{
    uint64_t h = hash(id);
    size_t base = (size_t)(h & (SLOTS - 1)) & ~(size_t)(WAYS - 1);
    *m = &stripes[(base / WAYS) % STRIPES];
    pthread_mutex_lock(*m);
    unsigned long e = atomic_load(&reset);
    struct entry *free_slot = NULL, *oldest = NULL;
    for (size_t i = 0; i < WAYS; i++) {
        struct entry *s = &table[base + i];
        bool live = s->epoch == e;
        if (live && strcmp(s->id, id) == 0)
            return s;
        if (!live && !free_slot)
            free_slot = s;
        if (!oldest || s->used < oldest->used)
            oldest = s;
    }
    if (make == LOOK || (make == MAKE_NEW && (ticket < e || ticket <= evicted[base / WAYS])))
        return NULL;
    struct entry *s = free_slot ? free_slot : oldest;
    if (!free_slot)
        evicted[base / WAYS] = atomic_fetch_add(&seq, 1);
    memcpy(s->id, id, ID_LEN + 1);
    s->version = -1;
    s->kind = VK_ANY;
    s->epoch = e;
    s->doubt = 0;
    s->heard_at = 0;
    s->used = atomic_fetch_add(&clock_ticks, 1);
    return s;
}

enum how { HEARD, LEARNED, WROTE };

/* Sets (never lowers) the version of `id`. News from a request (LEARNED: read from the
 * database; WROTE: its own commit) makes an entry only when it began after the last reset and
 * the last eviction there (else it may be older than what was forgotten); a read changes one
 * only when it began after the last look that set it (else it may be older than what was seen:
 * a version set back by hand would be raised again), while a write's own commit always does (a
 * client reads its own writes); a read clears a doubt that came before it. A
 * change seen below the version kept (a version set back by hand) forgets it: read again. */
static void keep(enum how how, unsigned long ticket, const char *id, enum vkind kind,
                 long long version)
{
    if (!atomic_load(&enabled) || strlen(id) != ID_LEN)
        return;
    pthread_mutex_t *m;
    struct entry *s = find(id, how == HEARD ? MAKE : MAKE_NEW, ticket, &m);
    if (s && how == LEARNED && s->heard_at && ticket <= s->heard_at)
        s = NULL;
    if (s) {
        if (how == LEARNED && s->doubt && ticket > s->doubt)
            s->doubt = 0;
        if (how == HEARD && version < s->version) {
            /* Forgotten, and nothing learned before now may bring it back. */
            s->epoch = 0;
            evicted[(size_t)(s - table) / WAYS] = atomic_fetch_add(&seq, 1);
            pthread_mutex_unlock(m);
            return;
        }
        if (version > s->version)
            s->version = version;
        if (kind != VK_ANY)
            s->kind = kind;
        if (how == HEARD)
            s->heard_at = atomic_fetch_add(&seq, 1);
        s->used = atomic_fetch_add(&clock_ticks, 1);
    }
    pthread_mutex_unlock(m);
}

bool listener_current(void)
{
    long long heard_at = atomic_load(&looked_ns);
    return atomic_load(&connected) && heard_at > 0 &&
           now_ns() - heard_at <= (long long)lag_limit_ms * 1000000LL;
}

bool listener_version(const char *id, enum vkind kind, long long *version)
{
    if (!listener_current() || strlen(id) != ID_LEN)
        return false;
    pthread_mutex_t *m;
    struct entry *s = find(id, LOOK, 0, &m);
    bool found = s && !s->doubt && s->version >= 0 && (kind == VK_ANY || s->kind == kind);
    if (found) {
        *version = s->version;
        s->used = atomic_fetch_add(&clock_ticks, 1);
    }
    pthread_mutex_unlock(m);
    return found;
}

unsigned long listener_epoch(void)
{
    return atomic_load(&reset);
}

unsigned long listener_ticket(void)
{
    return atomic_fetch_add(&seq, 1);
}

void listener_learned(unsigned long ticket, const char *id, enum vkind kind, long long version)
{
    keep(LEARNED, ticket, id, kind, version);
}

void listener_wrote(unsigned long ticket, const char *id, enum vkind kind, long long version)
{
    keep(WROTE, ticket, id, kind, version);
}

void listener_doubt(const char *id)
{
    if (!atomic_load(&enabled) || strlen(id) != ID_LEN)
        return;
    pthread_mutex_t *m;
    struct entry *s = find(id, MAKE, 0, &m);
    s->doubt = atomic_fetch_add(&seq, 1);
    s->used = atomic_fetch_add(&clock_ticks, 1);
    pthread_mutex_unlock(m);
}

/* Forgets every version known (on the listener's thread only: a new connection). */
static void forget_all(void)
{
    atomic_store(&reset, atomic_fetch_add(&seq, 1) + 1);
}

unsigned long listener_heard(void)
{
    return atomic_load(&heard);
}

unsigned long listener_looks(void)
{
    return atomic_load(&looks);
}

unsigned long listener_connections(void)
{
    return atomic_load(&connections);
}

/* What is known of `id` forgotten, and nothing learned before now may bring it back: read
 * again. Kept or not: a read that began before now, and ends after, must not make the entry
 * with what it read (which may be the version in between). */
static void forget(const char *id)
{
    if (strlen(id) != ID_LEN)
        return;
    pthread_mutex_t *m;
    struct entry *s = find(id, LOOK, 0, &m);
    if (s)
        s->epoch = 0;
    size_t base = (size_t)(hash(id) & (SLOTS - 1)) & ~(size_t)(WAYS - 1);
    evicted[base / WAYS] = atomic_fetch_add(&seq, 1);
    pthread_mutex_unlock(m);
}

/* The columns of a look's rows (LOOK_SQL). */
enum { COL_SNAPSHOT, COL_BELOW, COL_GENERATION, COL_NEWEST, COL_ID, COL_VERSION, COL_KIND };

/*
 * The changes a look read of one id, `n` rows from `row` on, one for each transaction that
 * changed it since the look before (with the version it left). One row: its version is the one
 * now. More than one (two writes within one look): which of them committed last is not known (a
 * transaction may take its id before another and commit after it), nor so the version now, and
 * it is forgotten: it is read when asked for. Long polls on it are woken either way: they read
 * what is there.
 */
static void heard_changes(const PGresult *r, int row, int n)
{
    const char *id = PQgetvalue(r, row, COL_ID);
    long long newest = atoll(PQgetvalue(r, row, COL_VERSION));
    for (int i = row + 1; i < row + n; i++)
        newest = atoll(PQgetvalue(r, i, COL_VERSION)) > newest
                     ? atoll(PQgetvalue(r, i, COL_VERSION))
                     : newest;
    char kind = PQgetvalue(r, row, COL_KIND)[0];
    if (n == 1)
        keep(HEARD, 0, id, kind == 'c' ? VK_CAMPAIGN : kind == 'g' ? VK_GRAND : VK_ANY, newest);
    else
        forget(id);
    atomic_fetch_add(&heard, (unsigned long)n); /* after: a test that sees it may ask */
    if (on_change)
        on_change(id, newest);
}

/*
 * One look at the changes (migrations 0015, 0017), in one statement and so in one snapshot:
 * that snapshot; the transaction id below which rows may have been deleted, and the record's
 * generation (both NULL: the record was emptied); the highest transaction id in it (beyond the
 * snapshot's: the record is not this database's); and the rows of the transactions the snapshot
 * sees committed that `$1`, the snapshot of the look before, did not (none on the first look:
 * $1 NULL): those at or above its xmax, or running then (its xip), which an index finds however
 * many rows an old transaction still running keeps. The rows of one id together.
 */
static const char *const LOOK_SQL =
    "SELECT pg_current_snapshot()::text, (SELECT below FROM m44_changes_pruned)::text, "
    "(SELECT generation FROM m44_changes_pruned)::text, (SELECT max(xid) FROM m44_changes)::text, "
    "c.id::text, c.version, c.kind "
    "FROM (SELECT $1::pg_snapshot AS s) p LEFT JOIN m44_changes c ON p.s IS NOT NULL AND "
    "(c.xid >= pg_snapshot_xmax(p.s) OR c.xid = ANY (ARRAY(SELECT pg_snapshot_xip(p.s)))) "
    "ORDER BY c.id";
/* The record started over: emptied, its row put back with a new generation. */
static const char *const RESTART_SQL =
    "WITH d AS (DELETE FROM m44_changes) "
    "INSERT INTO m44_changes_pruned (below) VALUES ('0') ON CONFLICT (one) DO UPDATE SET "
    "below = '0', generation = gen_random_uuid()";
/* The rows below a transaction id deleted, and said so, in one transaction. */
static const char *const PRUNE_SQL =
    "WITH d AS (DELETE FROM m44_changes WHERE xid < $1::xid8) "
    "INSERT INTO m44_changes_pruned (below) VALUES ($1::xid8) ON CONFLICT (one) DO UPDATE SET "
    "below = greatest(m44_changes_pruned.below, excluded.below)";

#define PRUNE_MS 5000 /* how often the old rows are deleted */

/* A snapshot this daemon took, and when (for the rows it deletes). */
struct taken {
    long long at_ns;
    unsigned long long xmin;
};

static bool sent_ok(PGconn *c, const char *sql, const char *param)
{
    const char *p[] = {param};
    return PQsendQueryParams(c, sql, 1, NULL, p, NULL, NULL, 0) == 1;
}

/* Reads the answer to what was sent, waiting at most until `deadline_ns`; NULL when the
 * connection broke, the wait was too long, or the daemon stops. */
static PGresult *answer(PGconn *c, long long deadline_ns)
{
    PGresult *last = NULL;
    for (;;) {
        while (!PQisBusy(c)) {
            PGresult *r = PQgetResult(c);
            if (!r)
                return last;
            PQclear(last);
            last = r;
        }
        long long left_ms = (deadline_ns - now_ns()) / 1000000LL;
        if (left_ms <= 0 || atomic_load(&stop)) {
            PQclear(last);
            return NULL;
        }
        struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
        if (p.fd < 0 || poll(&p, 1, left_ms < 50 ? (int)left_ms : 50) < 0 || !PQconsumeInput(c)) {
            PQclear(last);
            return NULL;
        }
    }
}

/*
 * Deletes the rows of transactions below the xmin of the newest snapshot this daemon took
 * `keep_ms` ago or more: any daemon whose last look came after that has no use for them (a
 * later snapshot's xmin is never lower, and the rows a daemon has yet to read are of
 * transactions at or above its last snapshot's xmin). A daemon that looked last before that
 * finds the rows it needed may be gone (m44_changes_pruned), and starts over.
 * `kept`: one snapshot a second, oldest first. False when the connection broke.
 */
static bool prune(PGconn *c, const struct taken *kept, int nkept, long long now)
{
    int k = -1;
    for (int i = 0; i < nkept && now - kept[i].at_ns >= (long long)keep_ms * 1000000LL; i++)
        k = i;
    if (k < 0)
        return true;
    char below[24];
    snprintf(below, sizeof below, "%llu", kept[k].xmin);
    if (!sent_ok(c, PRUNE_SQL, below))
        return false;
    PGresult *r = answer(c, now_ns() + DEAD_MS * 1000000LL);
    if (!r)
        return false;
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        log_msg(LOG_WARN, "listener", "deleting old changes: %s", PQresultErrorMessage(r));
    PQclear(r);
    return true;
}

/* The xmax of a snapshot's text ("xmin:xmax:xip,..."). */
static unsigned long long snapshot_xmax(const char *snapshot)
{
    const char *colon = strchr(snapshot, ':');
    return colon ? strtoull(colon + 1, NULL, 10) : 0;
}

/* Sends a statement without parameters and waits for its answer; false when the connection
 * broke. */
static bool run_sql(PGconn *c, const char *sql, const char *what)
{
    if (PQsendQueryParams(c, sql, 0, NULL, NULL, NULL, NULL, 0) != 1)
        return false;
    PGresult *r = answer(c, now_ns() + DEAD_MS * 1000000LL);
    if (!r)
        return false;
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        log_msg(LOG_WARN, "listener", "%s: %s", what, PQresultErrorMessage(r));
    PQclear(r);
    return true;
}

/* Looks at the changes on `c` until it breaks or the daemon stops. */
static void look_on(PGconn *c)
{
    long long every_ms = lag_limit_ms / 5 < LOOK_MS ? lag_limit_ms / 5 : LOOK_MS;
    every_ms = every_ms < 5 ? 5 : every_ms;
    static char snapshot[65536]; /* this thread's alone; "" before the first look */
    snapshot[0] = '\0';
    char generation[40] = "";    /* of the record, at the last look */
    unsigned long long xmin = 0; /* of `snapshot` */
    long long pruned_at = now_ns();
    enum { KEPT = 3602 };
    static struct taken kept[KEPT]; /* this thread's alone */
    int nkept = 0;
    while (!atomic_load(&stop)) {
        long long sent_at = now_ns();
        if (!sent_ok(c, LOOK_SQL, snapshot[0] ? snapshot : NULL))
            return;
        PGresult *r = answer(c, sent_at + DEAD_MS * 1000000LL);
        if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) < 1 ||
            PQgetlength(r, 0, COL_SNAPSHOT) >= (int)sizeof snapshot ||
            PQgetlength(r, 0, COL_GENERATION) >= (int)sizeof generation) {
            if (r)
                log_msg(LOG_WARN, "listener", "looking at the changes: %s",
                        PQresultStatus(r) == PGRES_TUPLES_OK ? "an answer too long"
                                                             : PQresultErrorMessage(r));
            else if (!atomic_load(&stop))
                log_msg(LOG_WARN, "listener", "no answer for %d s: connecting again",
                        DEAD_MS / 1000);
            PQclear(r);
            return;
        }
        const char *now_snapshot = PQgetvalue(r, 0, COL_SNAPSHOT);
        const char *gen = PQgetvalue(r, 0, COL_GENERATION); /* "" when NULL */
        unsigned long long below = strtoull(PQgetvalue(r, 0, COL_BELOW), NULL, 10);
        unsigned long long newest = strtoull(PQgetvalue(r, 0, COL_NEWEST), NULL, 10);
        unsigned long long xmax_now = snapshot_xmax(now_snapshot);
        if (!gen[0] || below > xmax_now || newest >= xmax_now) {
            /* Emptied since the last look (a crash empties it; this connection may have
             * outlived the server's, through a pooler), or not this database's (restored from a
             * dump with its rows: transaction ids it has not reached): changes may have gone
             * unseen. All known is forgotten, the record starts over, and so does the look. */
            log_msg(LOG_WARN, "listener", "%s: starting over",
                    !gen[0] ? "the record of changes was emptied (the database restarted, or was "
                              "restored)"
                            : "the record of changes is not this database's (restored from a "
                              "dump with its rows): emptying it");
            PQclear(r);
            forget_all();
            atomic_store(&looked_ns, 0);
            snapshot[0] = '\0';
            generation[0] = '\0';
            if (!run_sql(c, RESTART_SQL, "starting the record of changes over"))
                return;
            continue;
        }
        bool first = !snapshot[0];
        if (!first && (below > xmin || strcmp(gen, generation) != 0)) {
            /* Rows this look needed may have been deleted (its last look was too long ago), or
             * the record started over since (another daemon found it emptied): what it knew may
             * be out of date. It starts over from this look's snapshot. */
            log_msg(LOG_WARN, "listener", "%s: starting over",
                    below > xmin ? "changes older than the last look were deleted"
                                 : "the record of changes started over");
            forget_all();
        } else {
            /* The rows of each id, together. */
            for (int i = 0, n; i < PQntuples(r); i += n) {
                for (n = 1; i + n < PQntuples(r) &&
                            strcmp(PQgetvalue(r, i + n, COL_ID), PQgetvalue(r, i, COL_ID)) == 0;
                     n++)
                    ;
                if (!PQgetisnull(r, i, COL_ID))
                    heard_changes(r, i, n);
            }
        }
        /* The first look after connecting: whatever was learned before its snapshot may have
         * changed since unseen (a change committed between a read and this snapshot is in
         * neither this look's rows nor any later look's): forgotten now, not at connecting. */
        if (first)
            forget_all();
        memcpy(snapshot, now_snapshot, (size_t)PQgetlength(r, 0, COL_SNAPSHOT) + 1);
        memcpy(generation, gen, (size_t)PQgetlength(r, 0, COL_GENERATION) + 1);
        xmin = strtoull(snapshot, NULL, 10);
        PQclear(r);
        /* Everything committed before the look was sent is in its snapshot, and now known. */
        atomic_store(&looked_ns, sent_at);
        atomic_fetch_add(&looks, 1);
        if (nkept == 0 || sent_at - kept[nkept - 1].at_ns >= 1000000000LL) {
            if (nkept == KEPT) {
                memmove(kept, kept + 1, sizeof kept[0] * (KEPT - 1));
                nkept--;
            }
            kept[nkept++] = (struct taken){sent_at, xmin};
        }
        if (sent_at - pruned_at >= PRUNE_MS * 1000000LL) {
            if (!prune(c, kept, nkept, sent_at))
                return;
            pruned_at = sent_at;
        }
        long long next = sent_at + every_ms * 1000000LL;
        while (!atomic_load(&stop) && now_ns() < next) {
            long long left_ms = (next - now_ns()) / 1000000LL;
            struct timespec ts = {0, (left_ms > 50 ? 50 : left_ms < 1 ? 1 : left_ms) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (PQstatus(c) != CONNECTION_OK)
            return;
    }
}

static void *run(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-listener");
    int backoff_ms = 50;
    bool said_down = false;
    while (!atomic_load(&stop)) {
        PGconn *c = db_connect_as("m44d-listener");
        if (PQstatus(c) == CONNECTION_OK) {
            /* Everything known so far may have changed unseen: forgotten at the first look
             * (look_on); not current until then. */
            atomic_store(&looked_ns, 0);
            atomic_fetch_add(&connections, 1);
            atomic_store(&connected, true);
            log_msg(LOG_INFO, "listener", "looking at version changes");
            said_down = false;
            backoff_ms = 50;
            look_on(c);
            atomic_store(&connected, false);
        }
        if (!atomic_load(&stop) && !said_down) {
            char msg[300];
            snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
            msg[strcspn(msg, "\n")] = '\0';
            log_msg(LOG_WARN, "listener",
                    "not looking at changes (%s): versions are read from the database until it "
                    "is back",
                    *msg ? msg : "connection closed");
            said_down = true;
        }
        PQfinish(c);
        for (int t = 0; t < backoff_ms && !atomic_load(&stop); t += 10) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        backoff_ms = backoff_ms * 2 > 1000 ? 1000 : backoff_ms * 2;
    }
    return NULL;
}

static void init_stripes(void)
{
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_init(&stripes[i], NULL);
}

bool listener_start(unsigned max_lag_ms, unsigned keep_s,
                    void (*changed)(const char *id, long long version))
{
    keep_ms = keep_s * 1000u;
    pthread_once(&stripes_once, init_stripes);
    atomic_store(&enabled, true);
    lag_limit_ms = max_lag_ms;
    on_change = changed;
    atomic_store(&stop, false);
    running = pthread_create(&thread, NULL, run, NULL) == 0;
    if (!running)
        log_msg(LOG_ERROR, "listener", "cannot start the listener thread");
    return running;
}

void listener_stop(void)
{
    if (!running)
        return;
    atomic_store(&stop, true);
    pthread_join(thread, NULL);
    running = false;
    atomic_store(&connected, false);
}
