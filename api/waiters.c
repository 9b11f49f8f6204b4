#include "api/waiters.h"

#include "api/clients.h"
#include "api/http.h"
#include "api/jobs.h"
#include "db/db.h"
#include "db/listener.h"
#include "db/store.h"
#include "util/log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* Campaigns per version query. */
#define POLL_BATCH 500

typedef char id_text[40]; /* a campaign's id (see check_campaign_id) */

struct waiter {
    struct req *r;
    id_text campaign;
    long long seen; /* the version the client has */
    struct timespec deadline;
    struct waiter *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct waiter *parked;
static long nparked;
static bool releasing;
static atomic_bool stop;
static pthread_t poller;
static bool running;
static unsigned poll_ms; /* how often parked campaigns' versions are read (0: never) */
static unsigned max_parked, per_client;
static struct client_counts parked_by_client = CLIENT_COUNTS_INIT;
static atomic_ulong wakes[WAKE_CAUSES];
static atomic_ulong polls; /* rounds of the version poll */

const char *wake_cause_name(enum wake_cause c)
{
    static const char *const names[WAKE_CAUSES] = {
        "write", "recheck", "other_daemon", "timeout", "shutdown", "client_gone", "heard"};
    return (unsigned)c < WAKE_CAUSES ? names[c] : "?";
}

unsigned long waiters_polls(void)
{
    return atomic_load(&polls);
}

unsigned long waiters_wakes(enum wake_cause c)
{
    return (unsigned)c < WAKE_CAUSES ? atomic_load(&wakes[c]) : 0;
}

static void now(struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
}

static bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

enum park_result waiters_park(struct req *r, const char *campaign_id, long long seen,
                              double seconds)
{
    struct waiter *w = calloc(1, sizeof *w);
    if (!w)
        return PARK_CLOSED;
    w->r = r;
    snprintf(w->campaign, sizeof w->campaign, "%s", campaign_id); /* see check_campaign_id */
    w->seen = seen;
    now(&w->deadline);
    long ns = (long)((seconds - (long)seconds) * 1e9);
    w->deadline.tv_sec += (long)seconds + (w->deadline.tv_nsec + ns) / 1000000000L;
    w->deadline.tv_nsec = (w->deadline.tv_nsec + ns) % 1000000000L;
    pthread_mutex_lock(&lock);
    enum park_result res = PARKED;
    if (releasing)
        res = PARK_CLOSED;
    else if (nparked >= (long)max_parked ||
             !client_counts_add(&parked_by_client, &r->client_key, 1, (long)per_client))
        res = PARK_FULL;
    if (res != PARKED) {
        pthread_mutex_unlock(&lock);
        free(w);
        return res;
    }
    w->next = parked;
    parked = w;
    nparked++;
    pthread_mutex_unlock(&lock);
    return PARKED;
}

long waiters_count(void)
{
    pthread_mutex_lock(&lock);
    long n = nparked;
    pthread_mutex_unlock(&lock);
    return n;
}

enum match { ALL, CAMPAIGN, CHANGED, NEWER, EXPIRED, GONE };

/* Whether the client of a parked request has closed its connection: the end of its stream has
 * arrived (POLLRDHUP, even behind bytes it sent after its request and nobody read), or the
 * connection failed. */
static bool client_gone(const struct req *r)
{
    if (r->fd < 0)
        return false;
    struct pollfd p = {.fd = r->fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) < 0)
        return false;
    return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/*
 * Wakes the waiters that match: every one (ALL), those of campaign `id` (CAMPAIGN), those of
 * `id` that have not seen `version` (CHANGED) or have seen an older one (NEWER: what was heard
 * may be behind what a client read from the database), or those whose deadline has passed
 * (EXPIRED).
 * Woken requests go back to a database worker, where the handler runs again and replies.
 */
static void wake(enum match m, const char *id, long long version, enum wake_cause cause)
{
    struct timespec t;
    now(&t);
    struct waiter *woken = NULL;
    pthread_mutex_lock(&lock);
    for (struct waiter **p = &parked; *p;) {
        struct waiter *w = *p;
        bool match = m == ALL || (m == EXPIRED && !before(&t, &w->deadline)) ||
                     (m == CAMPAIGN && strcmp(id, w->campaign) == 0) ||
                     (m == CHANGED && strcmp(id, w->campaign) == 0 && w->seen != version) ||
                     (m == NEWER && strcmp(id, w->campaign) == 0 && w->seen < version) ||
                     (m == GONE && client_gone(w->r));
        if (match) {
            *p = w->next;
            nparked--;
            client_counts_add(&parked_by_client, &w->r->client_key, -1, -1);
            w->r->waited = true;
            w->r->park_seconds = 0;
            w->next = woken;
            woken = w;
            atomic_fetch_add(&wakes[cause], 1);
        } else {
            p = &w->next;
        }
    }
    pthread_mutex_unlock(&lock);
    while (woken) {
        struct waiter *next = woken->next;
        if (cause == WAKE_CLIENT_GONE) {
            /* Nobody to read a reply: the cheapest one ends the request and frees its slot. */
            reply_empty(woken->r, 304, NULL);
            MHD_resume_connection(woken->r->conn);
        } else {
            jobs_push(woken->r);
        }
        free(woken);
        woken = next;
    }
}

void waiters_changed(const char *campaign_id)
{
    wake(CAMPAIGN, campaign_id, 0, WAKE_WRITE);
}

void waiters_heard(const char *campaign_id, long long version)
{
    wake(NEWER, campaign_id, version, WAKE_HEARD);
}

void waiters_recheck(const char *campaign_id, long long seen)
{
    /* Heard versions are set before their waiters are woken: a change heard after this read
     * finds the request parked. */
    long long known;
    if (listener_version(campaign_id, VK_ANY, &known)) {
        if (known > seen)
            wake(CAMPAIGN, campaign_id, 0, WAKE_RECHECK);
        return;
    }
    struct db *db = db_thread();
    PGresult *r = db_ensure(db) ? db_campaign_version(db, campaign_id) : NULL;
    long long now_version = r && PQntuples(r) == 1 ? atoll(PQgetvalue(r, 0, 0)) : seen;
    PQclear(r);
    if (now_version != seen)
        wake(CAMPAIGN, campaign_id, 0, WAKE_RECHECK);
}

void waiters_release_all(void)
{
    pthread_mutex_lock(&lock);
    releasing = true;
    pthread_mutex_unlock(&lock);
    wake(ALL, NULL, 0, WAKE_SHUTDOWN);
}

static int id_order(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* One round of the version poll: the campaigns parked now, taken at once (a list walked in
 * parts would skip waiters as others wake meanwhile), each once, read POLL_BATCH at a time; the
 * waiters of those whose version moved are woken. */
static void poll_round(struct db *db)
{
    pthread_mutex_lock(&lock);
    size_t n = 0, cap = nparked > 0 ? (size_t)nparked : 0;
    id_text *ids = cap ? malloc(cap * sizeof *ids) : NULL;
    for (struct waiter *w = parked; ids && w && n < cap; w = w->next)
        memcpy(ids[n++], w->campaign, sizeof *ids);
    pthread_mutex_unlock(&lock);
    if (!ids)
        return;
    qsort(ids, n, sizeof *ids, id_order);
    /* "{id,id,...}": ids in paths are checked UUIDs (36 characters). */
    static char list[POLL_BATCH * 37 + 3];
    for (size_t i = 0; i < n && !stop;) {
        size_t len = 0, k = 0;
        list[len++] = '{';
        for (; i < n && k < POLL_BATCH; i++) {
            if (i > 0 && strcmp(ids[i], ids[i - 1]) == 0)
                continue;
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k++ ? "," : "", ids[i]);
        }
        snprintf(list + len, sizeof list - len, "}");
        PGresult *r = db_campaign_versions(db, list);
        for (int row = 0; r && row < PQntuples(r); row++)
            wake(CHANGED, PQgetvalue(r, row, 0), atoll(PQgetvalue(r, row, 1)), WAKE_OTHER_DAEMON);
        PQclear(r);
    }
    free(ids);
}

/* Wakes expired waiters every 100 ms, those whose client has gone every 500 ms and, every poll_ms,
 * those whose campaign another process changed, while the changes the database records are not
 * seen (db/listener.h), and once more as they are seen again: a change made before the
 * listener's new connection was not seen by it. (Changes made through this process wake their
 * waiters at once: waiters_changed; those seen by the listener: waiters_heard.) */
static void *poll_loop(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-waiters");
    struct db *db = db_thread();
    int ticks = 0, gone_ticks = 0;
    unsigned long polled_under = 0; /* the listener's connection the last poll was made under */
    while (!stop) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        wake(EXPIRED, NULL, 0, WAKE_TIMEOUT);
        if (++gone_ticks >= 5) {
            gone_ticks = 0;
            wake(GONE, NULL, 0, WAKE_CLIENT_GONE);
        }
        if (poll_ms == 0 || ++ticks * 100 < (int)poll_ms || waiters_count() == 0)
            continue;
        ticks = 0;
        bool current = listener_current();
        unsigned long under = listener_epoch();
        if (current && under == polled_under)
            continue;
        if (!db_ensure(db))
            continue;
        atomic_fetch_add(&polls, 1);
        poll_round(db);
        if (current)
            polled_under = under;
    }
    return NULL;
}

bool waiters_start(unsigned poll, unsigned max, unsigned one_client)
{
    poll_ms = poll;
    max_parked = max;
    per_client = one_client;
    stop = false;
    releasing = false;
    running = pthread_create(&poller, NULL, poll_loop, NULL) == 0;
    if (!running)
        log_msg(LOG_ERROR, "waiters", "cannot start the long-poll thread");
    return running;
}

void waiters_stop(void)
{
    if (!running)
        return;
    stop = true;
    pthread_join(poller, NULL);
    running = false;
    wake(ALL, NULL, 0, WAKE_SHUTDOWN);
}
