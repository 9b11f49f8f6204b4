/* GET /api/v1/campaigns/{id}/rolls (the roll log) and .../log (the event log). */
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"

static enum cres rolls(struct db *db, struct req *r, struct campaign *c, struct cerr *err,
                       void *arg)
{
    (void)arg, (void)err;
    json_t *j = view_rolls(db, c);
    if (!j)
        return C_DBERR;
    reply_json(r, 200, j);
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
    json_t *j = view_log(db, c);
    if (!j)
        return C_DBERR;
    reply_json(r, 200, j);
    return C_OK;
}

void handle_campaign_log(struct req *r)
{
    read_campaign_replica(r, log_view, NULL);
}
