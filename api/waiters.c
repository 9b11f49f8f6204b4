#include "api/waiters.h"

#include "api/http.h"
#include "api/jobs.h"
#include "db/db.h"
#include "db/store.h"
#include "util/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

struct waiter {
    struct req *r;
    char campaign[40];
    struct timespec deadline;
    struct waiter *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct waiter *parked;
static long nparked;
static bool releasing;
static atomic_bool stop;
static pthread_t listener;
static bool running;

static void now(struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
}

static bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

bool waiters_park(struct req *r, const char *campaign_id, double seconds)
{
    struct waiter *w = calloc(1, sizeof *w);
    if (!w)
        return false;
    w->r = r;
    snprintf(w->campaign, sizeof w->campaign, "%s", campaign_id);
    now(&w->deadline);
    long ns = (long)((seconds - (long)seconds) * 1e9);
    w->deadline.tv_sec += (long)seconds + (w->deadline.tv_nsec + ns) / 1000000000L;
    w->deadline.tv_nsec = (w->deadline.tv_nsec + ns) % 1000000000L;
    pthread_mutex_lock(&lock);
    if (releasing) {
        pthread_mutex_unlock(&lock);
        free(w);
        return false;
    }
    w->next = parked;
    parked = w;
    nparked++;
    pthread_mutex_unlock(&lock);
    return true;
}

long waiters_count(void)
{
    pthread_mutex_lock(&lock);
    long n = nparked;
    pthread_mutex_unlock(&lock);
    return n;
}

/*
 * Wakes the waiters that match: campaign `id` (NULL: any), or whose deadline has passed when
 * `expired` is set. Woken requests go back to a database worker.
 */
static void wake(const char *id, bool expired)
{
    struct timespec t;
    now(&t);
    struct waiter *woken = NULL;
    pthread_mutex_lock(&lock);
    for (struct waiter **p = &parked; *p;) {
        struct waiter *w = *p;
        bool match = expired ? !before(&t, &w->deadline) : (!id || strcmp(id, w->campaign) == 0);
        if (match) {
            *p = w->next;
            nparked--;
            w->r->waited = true;
            w->r->park_seconds = 0;
            w->next = woken;
            woken = w;
        } else {
            p = &w->next;
        }
    }
    pthread_mutex_unlock(&lock);
    while (woken) {
        struct waiter *next = woken->next;
        jobs_push(woken->r);
        free(woken);
        woken = next;
    }
}

void waiters_recheck(const char *campaign_id, long long seen)
{
    struct db *db = db_thread();
    PGresult *r = db_ensure(db) ? db_campaign_version(db, campaign_id) : NULL;
    long long now_version = r && PQntuples(r) == 1 ? atoll(PQgetvalue(r, 0, 0)) : seen;
    PQclear(r);
    if (now_version != seen)
        wake(campaign_id, false);
}

void waiters_release_all(void)
{
    pthread_mutex_lock(&lock);
    releasing = true;
    pthread_mutex_unlock(&lock);
    wake(NULL, false);
}

static void *listen_loop(void *arg)
{
    (void)arg;
    struct db *db = db_thread();
    bool listening = false;
    while (!stop) {
        if (!listening || !db_ensure(db)) {
            listening = false;
            if (db_ensure(db)) {
                PGresult *res = db_exec_sql(db, "LISTEN m44_campaign");
                listening = res != NULL;
                PQclear(res);
                /* Changes made while not listening were missed: let every waiter look. */
                if (listening)
                    wake(NULL, false);
            }
        }
        if (!listening) {
            wake(NULL, true);
            struct timespec ts = {0, 250 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        PGconn *conn = db_conn(db);
        int fd = PQsocket(conn);
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        struct timeval tv = {0, 200 * 1000};
        if (select(fd + 1, &fds, NULL, NULL, &tv) > 0 && !PQconsumeInput(conn)) {
            log_msg(LOG_WARN, "waiters", "notification connection lost: %s", PQerrorMessage(conn));
            listening = false;
            continue;
        }
        PGnotify *n;
        while ((n = PQnotifies(conn))) {
            wake(n->extra, false);
            PQfreemem(n);
        }
        wake(NULL, true);
    }
    return NULL;
}

bool waiters_start(void)
{
    stop = false;
    releasing = false;
    running = pthread_create(&listener, NULL, listen_loop, NULL) == 0;
    if (!running)
        log_msg(LOG_ERROR, "waiters", "cannot start the notification listener");
    return running;
}

void waiters_stop(void)
{
    if (!running)
        return;
    stop = true;
    pthread_join(listener, NULL);
    running = false;
    wake(NULL, false);
}
