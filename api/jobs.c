#include "api/jobs.h"

#include "api/http.h"
#include "api/router.h"
#include "api/waiters.h"
#include "db/db.h"
#include "util/log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORKERS 256

struct node {
    struct req *r;
    struct node *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct node *head, *tail;
static long queued;
static bool stopping;
static pthread_t workers[MAX_WORKERS];
static unsigned nworkers;

void jobs_push(struct req *r)
{
    struct node *n = malloc(sizeof *n);
    if (!n) {
        /* Nothing sensible is left: answer from here rather than lose the request. */
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        MHD_resume_connection(r->conn);
        return;
    }
    n->r = r;
    n->next = NULL;
    pthread_mutex_lock(&lock);
    if (stopping && nworkers == 0) {
        /* The workers are gone (shutdown): answer here instead of queueing forever. */
        pthread_mutex_unlock(&lock);
        free(n);
        reply_problem(r, PROBLEM_SHUTTING_DOWN, "m44d is shutting down; retry shortly.");
        MHD_resume_connection(r->conn);
        return;
    }
    if (tail)
        tail->next = n;
    else
        head = n;
    tail = n;
    queued++;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
}

long jobs_queued(void)
{
    pthread_mutex_lock(&lock);
    long n = queued;
    pthread_mutex_unlock(&lock);
    return n;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!head && !stopping)
            pthread_cond_wait(&cond, &lock);
        if (!head) {
            pthread_mutex_unlock(&lock);
            break;
        }
        struct node *n = head;
        head = n->next;
        if (!head)
            tail = NULL;
        queued--;
        pthread_mutex_unlock(&lock);
        struct req *r = n->r;
        free(n);
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
    stopping = false;
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
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; i < nworkers; i++)
        pthread_join(workers[i], NULL);
    pthread_mutex_lock(&lock);
    nworkers = 0;
    pthread_mutex_unlock(&lock);
}
