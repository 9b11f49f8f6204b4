/* GET /api/v1/grand-campaigns/{id}/role: which role the Authorization key has in a grand
 * campaign (the same in each of its campaigns), as GET /api/v1/campaigns/{id}/role. */
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/grand.h"

#include <stdlib.h>

struct role_ctx {
    struct req *r;
    struct grand g;
    struct cerr err;
    enum role role;
};

static enum db_tx role_tx(struct db *db, void *arg)
{
    struct role_ctx *x = arg;
    enum cres rc = grand_load(db, x->r->params[0], false, &x->g, &x->err);
    if (rc != C_OK)
        return rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
    char buf[KEY_TEXT_LEN + 8];
    const char *key = bearer_key(x->r, buf, sizeof buf);
    x->role = grand_role(&x->g, key);
    if (x->role != ROLE_NONE)
        return DB_TX_OK;
    enum role replaced = grand_replaced_role(&x->g, key);
    if (replaced != ROLE_NONE)
        refuse(&x->err, PROBLEM_UNAUTHORIZED, NULL,
               "This %s link was replaced by a new one: ask the organizer for the new link.",
               replaced == ROLE_ORGANIZER ? "organizer" : side_title(role_side(replaced)));
    else
        refuse(&x->err, PROBLEM_UNAUTHORIZED, NULL, "%s",
               key ? "This key is not a key of this grand campaign."
                   : "Send a key: Authorization: Bearer <key>.");
    return DB_TX_ABORT;
}

void handle_grand_role(struct req *r)
{
    if (!check_campaign_id(r))
        return;
    struct role_ctx *x = calloc(1, sizeof *x);
    if (!x) {
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        return;
    }
    x->r = r;
    enum db_result res = db_transaction(db_thread(), role_tx, x);
    if (res == DB_OK)
        reply_json(r, 200,
                   json_pack("{s:s, s:s}", "grand_campaign", x->g.id, "role", role_name(x->role)));
    else if (res == DB_ABORTED)
        reply_cerr(r, &x->err);
    else
        reply_db_failure(r, res);
    free(x);
}
