/* POST /api/v1/campaigns/{id}/undo: an action undone (API.md, "Correcting mistakes at the
 * table"): the campaign's last action, or with {"roll": n} or {"reserve_choice": {"battle",
 * "side"}} an earlier table roll or reserve choice while nothing after it depends on it; by the
 * organizer, or by the side whose action it was; never a server roll. The reply is the standing
 * as it is now, with what was undone. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

static enum cres undo(struct db *db, struct write_ctx *w)
{
    const struct undo_target *t = w->op->arg;
    json_t *undone = NULL;
    enum cres rc = campaign_undo(db, w->c, w->role, t, &undone, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 200;
    w->body = json_pack("{s:o}", "undone", undone);
    return C_OK;
}

void handle_undo(struct req *r)
{
    struct jerr e;
    struct undo_target t;
    json_t *body = body_parse(r, &e);
    if (!body || !parse_undo(body, &t, &e)) {
        reply_jerr(r, &e);
    } else {
        struct write_op op = {.campaign = true,
                              .need = NEED_KEY,
                              .action = undo,
                              .arg = &t,
                              .reply_standing = true,
                              /* the action before the one undone is known only to the log */
                              .reloads = true};
        write_run(r, &op);
    }
    json_decref(body);
}
