#include "api/version_batch.h"

#include "api/http.h"
#include "api/jobs.h"
#include "api/req_queue.h"
#include "api/router.h"
#include "api/versioned_get.h"
#include "api/write.h"
#include "campaign/campaign.h"
#include "db/db.h"
#include "db/listener.h"
#include "db/store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_MAX 64

static struct req_queue queue = REQ_QUEUE_INIT;
static pthread_t thread;
static bool running;

void version_batch_push(struct req *r)
{
    if (!req_queue_push(&queue, r))
        jobs_push(r); /* the thread is not running: the handler does it all */
}

static enum vkind kind_in(PGresult *res, int i)
{
    return PQgetvalue(res, i, 2)[0] == 'g' ? VK_GRAND : VK_CAMPAIGN;
}

/* The version of `id` in `res` (rows: id, version, kind) when it is of `kind`, or -1. */
static long long version_in(PGresult *res, const char *id, enum vkind kind)
{
    for (int i = 0; res && i < PQntuples(res); i++)
        if (strcmp(PQgetvalue(res, i, 0), id) == 0 && kind_in(res, i) == kind)
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
    unsigned long ticket = listener_ticket();
    PGresult *res = used > 2 && db_ensure(db) ? db_campaign_versions(db, ids) : NULL;
    for (int i = 0; res && i < PQntuples(res); i++)
        listener_learned(ticket, PQgetvalue(res, i, 0), kind_in(res, i),
                         atoll(PQgetvalue(res, i, 1)));
    for (size_t i = 0; i < n; i++) {
        struct req *r = batch[i];
        if (!r)
            continue;
        long long v = version_in(res, r->params[0], req_kind(r));
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
    pthread_setname_np(pthread_self(), "m44d-versions");
    struct req *batch[BATCH_MAX];
    size_t n;
    while ((n = req_queue_take(&queue, batch, BATCH_MAX)) > 0)
        answer(batch, n);
    return NULL;
}

bool version_batch_start(void)
{
    req_queue_open(&queue);
    running = pthread_create(&thread, NULL, run, NULL) == 0;
    if (!running)
        req_queue_close(&queue);
    return running;
}

void version_batch_stop(void)
{
    req_queue_close(&queue); /* the thread answers what is queued, then ends */
    if (running)
        pthread_join(thread, NULL);
    running = false;
}
