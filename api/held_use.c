/* POST /api/v1/campaigns/{id}/held/{n}/use: the organizer marks a held token or star used
 * (RULES.md 9: Air Power / Air Sortie tokens and Veteran Stars won in reserve rolls). */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

#include <stdlib.h>

struct arg {
    int id;
};

static enum cres use(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    enum cres rc = campaign_use_held(db, w->c, a->id, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 200;
    w->body = json_pack("{s:i, s:s}", "id", a->id, "state", "used");
    return C_OK;
}

void handle_held_use(struct req *r)
{
    struct arg a;
    char *end;
    long id = strtol(r->params[1], &end, 10);
    if (*end || end == r->params[1] || id < 1 || id > 100000 || r->params[1][0] == '0' ||
        r->params[1][0] == '+') {
        reply_problem(r, PROBLEM_NOT_FOUND, "The campaign holds nothing with that number.");
        return;
    }
    a.id = (int)id;
    if (!empty_body(r))
        return;
    struct write_op op = {.campaign = true, .need = NEED_ORGANIZER, .action = use, .arg = &a};
    write_run(r, &op);
}
