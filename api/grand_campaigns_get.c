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
    struct req *r;
    struct grand g;
    struct cerr err;
    char *body;
};

static enum db_tx render_tx(struct db *db, void *arg)
{
    struct render *x = arg;
    free(x->body);
    x->body = NULL;
    enum cres rc = grand_load(db, x->r->params[0], false, &x->g, &x->err);
    if (rc != C_OK)
        return rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
    json_t *j = view_grand(db, &x->g, &x->err);
    if (!j)
        return DB_TX_ERROR;
    x->body = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return x->body ? DB_TX_OK : DB_TX_ERROR;
}

static bool render(struct req *r, char **body, long long *version)
{
    struct render *x = calloc(1, sizeof *x);
    if (!x) {
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        return false;
    }
    x->r = r;
    enum db_result res = db_transaction(db_thread(), render_tx, x);
    bool ok = res == DB_OK;
    if (res == DB_ABORTED)
        reply_cerr(r, &x->err);
    else if (!ok)
        reply_db_failure(r, res);
    *body = ok ? x->body : NULL;
    *version = x->g.version;
    if (!ok)
        free(x->body);
    free(x);
    return ok;
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
