/* GET /api/v1/campaigns/{id}/battles/{n}: a battle's phase, rolls, options, instructions. Its
 * ETag is the campaign's version; If-None-Match with it gets 304. */
#include "api/common.h"
#include "api/handlers.h"
#include "api/versioned_get.h"
#include "api/views.h"

static enum cres show(struct db *db, struct req *r, struct campaign *c, struct cerr *err, void *arg)
{
    int n = *(int *)arg;
    struct battle *b = campaign_battle(c, n);
    if (!b)
        return refuse(err, PROBLEM_NOT_FOUND, NULL, "This campaign has no battle %d.", n);
    if (versioned_unchanged(r, c->version))
        return C_OK;
    json_t *j = view_battle(db, c, b);
    if (!j)
        return C_DBERR;
    reply_versioned(r, c->version, j);
    return C_OK;
}

void handle_battles_get(struct req *r)
{
    int n = path_battle(r, r->params[1]);
    if (n > 0)
        read_campaign_replica(r, show, &n);
}
