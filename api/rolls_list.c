/* GET /api/v1/campaigns/{id}/rolls (the roll log) and .../log (the event log): each one's ETag
 * is the campaign's version, and If-None-Match with it gets 304. Every line of a campaign's log
 * moves its version, those written by its grand campaign too (a new key, the chat set). */
#include "api/common.h"
#include "api/handlers.h"
#include "api/versioned_get.h"
#include "api/views.h"

static enum cres rolls(struct db *db, struct req *r, struct campaign *c, struct cerr *err,
                       void *arg)
{
    (void)arg, (void)err;
    if (versioned_unchanged(r, c->version))
        return C_OK;
    json_t *j = view_rolls(db, c);
    if (!j)
        return C_DBERR;
    reply_versioned(r, c->version, j);
    return C_OK;
}

void handle_rolls_list(struct req *r)
{
    read_campaign_replica(r, rolls, NULL);
}

static enum cres log_view(struct db *db, struct req *r, struct campaign *c, struct cerr *err,
                          void *arg)
{
    (void)arg, (void)err;
    if (versioned_unchanged(r, c->version))
        return C_OK;
    json_t *j = view_log(db, c);
    if (!j)
        return C_DBERR;
    reply_versioned(r, c->version, j);
    return C_OK;
}

void handle_campaign_log(struct req *r)
{
    read_campaign_replica(r, log_view, NULL);
}
