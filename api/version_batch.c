#include "api/version_batch.h"

#include "api/http.h"
#include "api/jobs.h"
#include "api/router.h"
#include "api/write.h"
#include "campaign/campaign.h"
#include "db/db.h"
#include "db/store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_MAX 64

struct node {
    struct req *r;
    struct node *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct node *head, *tail;
static bool stopping, running;
static pthread_t thread;

void version_batch_push(struct req *r)
{
    struct node *n = malloc(sizeof *n);
    pthread_mutex_lock(&lock);
    if (!n || !running) {
        pthread_mutex_unlock(&lock);
        free(n);
        jobs_push(r); /* the handler does it all */
        return;
    }
    n->r = r;
    n->next = NULL;
    if (tail)
        tail->next = n;
    else
        head = n;
    tail = n;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
}

/* Takes up to BATCH_MAX queued requests; 0 once stopping with none left. */
static size_t take(struct req **batch)
{
    size_t n = 0;
    pthread_mutex_lock(&lock);
    while (!head && !stopping)
        pthread_cond_wait(&cond, &lock);
    while (head && n < BATCH_MAX) {
        struct node *x = head;
        head = x->next;
        batch[n++] = x->r;
        free(x);
    }
    if (!head)
        tail = NULL;
    pthread_mutex_unlock(&lock);
    return n;
}

/* The version of campaign `id` in `res` (rows: id, version), or -1. */
static long long version_in(PGresult *res, const char *id)
{
    for (int i = 0; res && i < PQntuples(res); i++)
        if (strcmp(PQgetvalue(res, i, 0), id) == 0)
            return atoll(PQgetvalue(res, i, 1));
    return -1;
}

static void answer(struct req **batch, size_t n)
{
    struct db *db = db_thread();
    /* "{id,id,...}": ids are checked (36 characters) before they are added. */
    char ids[BATCH_MAX * (CAMPAIGN_ID_LEN + 1) + 2];
    size_t used = 0;
    ids[used++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (!check_campaign_id(batch[i])) { /* replied: 404 */
            MHD_resume_connection(batch[i]->conn);
            batch[i] = NULL;
            continue;
        }
        if (used > 1)
            ids[used++] = ',';
        memcpy(ids + used, batch[i]->params[0], CAMPAIGN_ID_LEN);
        used += CAMPAIGN_ID_LEN;
    }
    ids[used++] = '}';
    ids[used] = '\0';
    /* Without an answer from the database, the handler takes over (it retries and replies). */
    PGresult *res = used > 2 && db_ensure(db) ? db_campaign_versions(db, ids) : NULL;
    for (size_t i = 0; i < n; i++) {
        struct req *r = batch[i];
        if (!r)
            continue;
        long long v = version_in(res, r->params[0]);
        if (v >= 0 && r->route->by_version(r, v))
            MHD_resume_connection(r->conn);
        else
            jobs_push(r);
    }
    PQclear(res);
}

static void *run(void *arg)
{
    (void)arg;
    struct req *batch[BATCH_MAX];
    size_t n;
    while ((n = take(batch)) > 0)
        answer(batch, n);
    return NULL;
}

bool version_batch_start(void)
{
    pthread_mutex_lock(&lock);
    stopping = false;
    running = pthread_create(&thread, NULL, run, NULL) == 0;
    pthread_mutex_unlock(&lock);
    return running;
}

void version_batch_stop(void)
{
    pthread_mutex_lock(&lock);
    bool was = running;
    stopping = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (was)
        pthread_join(thread, NULL);
    pthread_mutex_lock(&lock);
    running = false;
    struct node *left = head; /* queued after the thread's last look */
    head = tail = NULL;
    pthread_mutex_unlock(&lock);
    while (left) {
        struct node *next = left->next;
        jobs_push(left->r);
        free(left);
        left = next;
    }
}
