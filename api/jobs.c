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

static struct req_queue queue = REQ_QUEUE_INIT;
static pthread_t workers[MAX_WORKERS];
static unsigned nworkers;

void jobs_push(struct req *r)
{
    if (!req_queue_push(&queue, r)) {
        /* The workers are stopping (shutdown): answer here instead of queueing forever. */
        reply_problem(r, PROBLEM_SHUTTING_DOWN, "m44d is shutting down; retry shortly.");
        MHD_resume_connection(r->conn);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-db"); /* in top -H, gdb and the tests */
    struct req *r;
    while (req_queue_take(&queue, &r, 1) == 1) {
        r->route->handler(r);
        if (!r->status && r->park_seconds > 0) {
            /* A long poll: park it. After waiters_park succeeds, r belongs to the waiters. */
            char id[sizeof r->park_campaign];
            long long seen = r->park_version;
            memcpy(id, r->park_campaign, sizeof id);
            if (waiters_park(r, id, seen, r->park_seconds)) {
                waiters_recheck(id, seen);
                continue;
            }
            r->park_seconds = 0;
            r->waited = true; /* shutting down: answer now */
            r->route->handler(r);
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

bool jobs_start(unsigned n)
{
    req_queue_open(&queue);
    if (n > MAX_WORKERS)
        n = MAX_WORKERS;
    for (nworkers = 0; nworkers < n; nworkers++)
        if (pthread_create(&workers[nworkers], NULL, worker, NULL) != 0) {
            log_msg(LOG_ERROR, "jobs", "cannot start database worker %u", nworkers);
            jobs_stop();
            return false;
        }
    return true;
}

void jobs_stop(void)
{
    req_queue_close(&queue); /* the workers finish what is queued, then end */
    for (unsigned i = 0; i < nworkers; i++)
        pthread_join(workers[i], NULL);
    nworkers = 0;
}
