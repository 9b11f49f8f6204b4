/* Versions heard from the database (see db/listener.h). */
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

#define CHANNEL "m44d_versions"
#define PING_MS 200   /* at most; a fifth of --version-max-lag-ms when that is shorter */
#define DEAD_MS 5000  /* a ping unanswered this long: the connection is dropped and made again */
#define SLOTS   65536 /* versions kept; a power of two */
#define WAYS    4     /* slots a key may take, next to each other */
#define STRIPES 256
#define ID_LEN  36

struct entry {
    char id[ID_LEN + 1];
    long long version;
    unsigned long epoch; /* `reset` when it was kept; an entry of an older epoch is empty */
    unsigned long doubt; /* nonzero: changed by a write whose version is not known; cleared by a
                          * database read that began after it (its ticket above it) */
    uint64_t used;       /* when it was last set or read, to forget the oldest first */
    enum vkind kind;     /* VK_ANY until something heard, read or written says */
};

static struct entry table[SLOTS];
/* Per group of WAYS slots: when a live entry was last pushed out (a `seq` value). What a
 * request learned before that may be older than what was forgotten: it may not make an entry. */
static unsigned long evicted[SLOTS / WAYS];
static pthread_mutex_t stripes[STRIPES];
/* One counter for tickets, doubts and resets, so that each can be ordered against reads. */
static atomic_ulong seq = 1, reset = 1;
static atomic_uint_fast64_t clock_ticks;
static atomic_llong ping_heard_ns; /* when the last ping heard back was sent; 0: none */
static atomic_bool connected, stop;
static atomic_bool enabled; /* listener_start was called: the table is in use */
static pthread_once_t stripes_once = PTHREAD_ONCE_INIT;
static atomic_ulong heard, connections;
static unsigned lag_limit_ms;
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
    s->used = atomic_fetch_add(&clock_ticks, 1);
    return s;
}

enum how { HEARD, LEARNED, WROTE };

/* Sets (never lowers) the version of `id`. News from a request (LEARNED: read from the
 * database; WROTE: its own commit) makes an entry only when it began after the last reset and
 * the last eviction there (else it may be older than what was forgotten); a read clears a doubt
 * that came before it. An announcement below the version kept (a version set back by hand)
 * forgets it: read again. */
static void keep(enum how how, unsigned long ticket, const char *id, enum vkind kind,
                 long long version)
{
    if (!atomic_load(&enabled) || strlen(id) != ID_LEN)
        return;
    pthread_mutex_t *m;
    struct entry *s = find(id, how == HEARD ? MAKE : MAKE_NEW, ticket, &m);
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
        s->used = atomic_fetch_add(&clock_ticks, 1);
    }
    pthread_mutex_unlock(m);
}

bool listener_current(void)
{
    long long heard_at = atomic_load(&ping_heard_ns);
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

unsigned long listener_connections(void)
{
    return atomic_load(&connections);
}

/* "<id> <version> <kind>": c a campaign, g a grand campaign (migration 0011). */
static void heard_change(const char *payload)
{
    char id[ID_LEN + 1], k = '\0';
    long long version;
    int n = sscanf(payload, "%36s %lld %c", id, &version, &k);
    if (n < 2)
        return;
    keep(HEARD, 0, id, k == 'c' ? VK_CAMPAIGN : k == 'g' ? VK_GRAND : VK_ANY, version);
    atomic_fetch_add(&heard, 1); /* after: a test that sees the count may ask for the version */
    if (on_change)
        on_change(id, version);
}

static bool exec_ok(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        log_msg(LOG_WARN, "listener", "%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    return ok;
}

/* Listens on `c` until it breaks or the daemon stops. */
static void listen_on(PGconn *c, const char *ping_channel)
{
    long long ping_ms = lag_limit_ms / 5 < PING_MS ? lag_limit_ms / 5 : PING_MS;
    ping_ms = ping_ms < 10 ? 10 : ping_ms;
    bool inflight = false;
    long long sent_at = 0;
    while (!atomic_load(&stop)) {
        long long now = now_ns();
        if (!inflight && now - sent_at >= ping_ms * 1000000LL) {
            char sql[128];
            snprintf(sql, sizeof sql, "NOTIFY %s, '%lld'", ping_channel, now);
            if (!PQsendQuery(c, sql))
                return;
            inflight = true;
            sent_at = now;
        }
        long long heard_at = atomic_load(&ping_heard_ns);
        if (inflight && now - sent_at > DEAD_MS * 1000000LL &&
            now - heard_at > DEAD_MS * 1000000LL) {
            log_msg(LOG_WARN, "listener", "no answer for %d s: connecting again", DEAD_MS / 1000);
            return;
        }
        struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
        if (p.fd < 0 || poll(&p, 1, 50) < 0)
            return;
        if (!PQconsumeInput(c))
            return;
        while (inflight && !PQisBusy(c)) {
            PGresult *r = PQgetResult(c);
            if (!r) {
                inflight = false;
                break;
            }
            if (PQresultStatus(r) != PGRES_COMMAND_OK)
                log_msg(LOG_WARN, "listener", "ping: %s", PQerrorMessage(c));
            PQclear(r);
        }
        PGnotify *n;
        while ((n = PQnotifies(c)) != NULL) {
            if (strcmp(n->relname, ping_channel) == 0)
                atomic_store(&ping_heard_ns, atoll(n->extra));
            else
                heard_change(n->extra);
            PQfreemem(n);
        }
        if (PQstatus(c) != CONNECTION_OK)
            return;
    }
}

static void *run(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-listener");
    char ping_channel[64];
    snprintf(ping_channel, sizeof ping_channel, "m44d_ping_%ld_%lld", (long)getpid(),
             now_ns() % 1000000000LL);
    int backoff_ms = 50;
    bool said_down = false;
    while (!atomic_load(&stop)) {
        PGconn *c = db_connect_as("m44d-listener");
        char sql[128];
        snprintf(sql, sizeof sql, "LISTEN %s; LISTEN %s", CHANNEL, ping_channel);
        if (PQstatus(c) == CONNECTION_OK && exec_ok(c, sql)) {
            /* Everything known so far may have changed unheard: forget it. */
            atomic_store(&ping_heard_ns, 0);
            forget_all();
            atomic_fetch_add(&connections, 1);
            atomic_store(&connected, true);
            log_msg(LOG_INFO, "listener", "listening for version changes");
            said_down = false;
            backoff_ms = 50;
            listen_on(c, ping_channel);
            atomic_store(&connected, false);
        }
        if (!atomic_load(&stop) && !said_down) {
            char msg[300];
            snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
            msg[strcspn(msg, "\n")] = '\0';
            log_msg(LOG_WARN, "listener",
                    "not listening (%s): versions are read from the database until it is back",
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

bool listener_start(unsigned max_lag_ms, void (*changed)(const char *id, long long version))
{
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
