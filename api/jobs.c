#include "api/jobs.h"

#include "api/http.h"
#include "api/req_queue.h"
#include "api/router.h"
#include "api/waiters.h"
#include "db/db.h"
#include "util/log.h"

#include <pthread.h>
#include <string.h>

#define MAX_WORKERS 256

/* Two pools: play (everything) and heavy (exports and imports), so that a crowd of exports
 * or imports waits for its own few workers and never for those that serve play. */
struct pool {
    struct req_queue queue;
    pthread_t workers[MAX_WORKERS];
    unsigned n;
    long max_waiting; /* -1: no bound */
    const char *name;
};

static struct pool play = {.queue = REQ_QUEUE_INIT, .max_waiting = -1, .name = "m44d-db"};
static struct pool heavy = {.queue = REQ_QUEUE_INIT, .max_waiting = -1, .name = "m44d-heavy"};

void jobs_push(struct req *r)
{
    bool is_heavy = r->route && r->route->limit == LIMIT_HEAVY;
    struct pool *p = is_heavy && heavy.n ? &heavy : &play;
    /* A readiness check (the one database route outside every limit) goes before the queue:
     * it must be answered even when the workers are behind. */
    bool urgent = r->route && r->route->limit == LIMIT_NONE;
    enum queue_push res = req_queue_push_ex(&p->queue, r, urgent, p->max_waiting);
    if (res == QUEUED)
        return;
    if (res == QUEUE_FULL)
        reply_problem_retry(r, PROBLEM_BUSY, 5,
                            "Too many exports and imports are under way; retry in a few "
                            "seconds.");
    else /* the workers are stopping (shutdown): answer here instead of queueing forever */
        reply_problem_retry(r, PROBLEM_SHUTTING_DOWN, 2,
                            "The server is shutting down; retry shortly.");
    MHD_resume_connection(r->conn);
}

size_t jobs_waiting_play(void)
{
    return req_queue_waiting(&play.queue);
}

size_t jobs_waiting_heavy(void)
{
    return req_queue_waiting(&heavy.queue);
}

static void *worker(void *arg)
{
    struct pool *p = arg;
    pthread_setname_np(pthread_self(), p->name); /* in top -H, gdb and the tests */
    struct req *r;
    while (req_queue_take(&p->queue, &r, 1) == 1) {
        r->route->handler(r);
        if (!r->status && r->park_seconds > 0) {
            /* A long poll: park it. Once parked, r belongs to the waiters. */
            char id[sizeof r->park_campaign];
            long long seen = r->park_version;
            memcpy(id, r->park_campaign, sizeof id);
            enum park_result parked = waiters_park(r, id, seen, r->park_seconds);
            if (parked == PARKED) {
                waiters_recheck(id, seen);
                continue;
            }
            r->park_seconds = 0;
            if (parked == PARK_FULL) {
                reply_problem_retry(r, PROBLEM_TOO_MANY_REQUESTS, 5,
                                    "Too many pages are waiting for changes (from your address, "
                                    "or in all); this one will look again in a few seconds.");
            } else {
                r->waited = true; /* shutting down: answer now */
                r->route->handler(r);
            }
        }
        if (!r->status) {
            log_msg(LOG_ERROR, "http", "handler for %s %s returned without a reply", r->method,
                    r->path);
            reply_problem(r, PROBLEM_INTERNAL, "The server did not produce a reply.");
        }
        MHD_resume_connection(r->conn);
    }
    return NULL;
}

static bool pool_start(struct pool *p, unsigned n, long max_waiting)
{
    req_queue_open(&p->queue);
    p->max_waiting = max_waiting;
    if (n > MAX_WORKERS)
        n = MAX_WORKERS;
    for (p->n = 0; p->n < n; p->n++)
        if (pthread_create(&p->workers[p->n], NULL, worker, p) != 0) {
            log_msg(LOG_ERROR, "jobs", "cannot start database worker %u", p->n);
            return false;
        }
    return true;
}

static void pool_stop(struct pool *p)
{
    req_queue_close(&p->queue); /* the workers finish what is queued, then end */
    for (unsigned i = 0; i < p->n; i++)
        pthread_join(p->workers[i], NULL);
    p->n = 0;
}

bool jobs_start(unsigned n, unsigned heavy_n, unsigned heavy_waiting)
{
    if (!pool_start(&play, n, -1) || !pool_start(&heavy, heavy_n, (long)heavy_waiting)) {
        jobs_stop();
        return false;
    }
    return true;
}

void jobs_stop(void)
{
    pool_stop(&heavy);
    pool_stop(&play);
}
