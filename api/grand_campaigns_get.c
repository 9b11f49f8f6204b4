/*
 * GET /api/v1/grand-campaigns/{id}: the grand campaign's standing (API.md "Grand campaigns"),
 * with its version as ETag; its version moves with every change to any campaign of it.
 * If-None-Match and ?wait=N work as for a campaign (long polling).
 */
#include "api/common.h"
#include "api/handlers.h"
#include "api/versioned_get.h"
#include "api/views.h"
#include "campaign/grand.h"
#include "db/store.h"

#include <stdlib.h>

struct render {
    char *body;
    long long version;
};

static enum cres render_grand(struct db *db, struct req *r, struct grand *g, struct cerr *err,
                              void *arg)
{
    (void)r;
    struct render *out = arg;
    free(out->body); /* a retried transaction renders again */
    out->body = NULL;
    json_t *j = view_grand(db, g, err);
    if (!j)
        return C_DBERR;
    out->body = json_dumps(j, JSON_COMPACT);
    out->version = g->version;
    json_decref(j);
    return out->body ? C_OK : C_DBERR;
}

static bool render(struct req *r, char **body, long long *version)
{
    struct render out = {NULL, 0};
    read_grand_campaign_replica(r, render_grand, &out);
    if (r->status) { /* refused, or the database failed */
        free(out.body);
        return false;
    }
    *body = out.body;
    *version = out.version;
    return true;
}

static const struct versioned grand = {
    .missing = "There is no grand campaign with that id.",
    .version = db_grand_version,
    .render = render,
};

bool grand_campaigns_get_by_version(struct req *r, long long version)
{
    return versioned_get_by_version(r, version);
}

void handle_grand_campaigns_get(struct req *r)
{
    versioned_get(r, &grand);
}
