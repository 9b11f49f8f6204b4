/*
 * GET /api/v1/campaigns/{id}: the standing, with its version as ETag.
 * If-None-Match with the current ETag gets 304; add ?wait=N (seconds, up to --max-wait) and
 * the request waits until the campaign changes (long polling), then answers.
 */
#include "api/common.h"
#include "api/handlers.h"
#include "api/versioned_get.h"
#include "api/views.h"
#include "db/store.h"

#include <stdlib.h>

struct render {
    char *body;
    long long version;
};

static enum cres render_tx(struct db *db, struct req *r, struct campaign *c, struct cerr *err,
                           void *arg)
{
    (void)r, (void)err;
    struct render *out = arg;
    free(out->body); /* run again (a retry, or the primary after the standby): render again */
    out->body = NULL;
    json_t *j = view_campaign(db, c);
    if (!j)
        return C_DBERR;
    out->body = json_dumps(j, JSON_COMPACT);
    out->version = c->version;
    json_decref(j);
    return out->body ? C_OK : C_DBERR;
}

static bool render(struct req *r, char **body, long long *version)
{
    struct render out = {NULL, 0};
    read_campaign_replica(r, render_tx, &out);
    *body = out.body;
    *version = out.version;
    return !r->status;
}

static const struct versioned campaign = {
    .missing = "There is no campaign with that id.",
    .version = db_campaign_version,
    .render = render,
};

bool campaigns_get_by_version(struct req *r, long long version)
{
    return versioned_get_by_version(r, version);
}

void handle_campaigns_get(struct req *r)
{
    versioned_get(r, &campaign);
}
