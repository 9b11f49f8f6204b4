/* POST /api/v1/campaigns/{id}/undo: the campaign's last action undone (API.md, "Correcting
 * mistakes at the table"): by the organizer, or by the side whose action it was; never a server
 * roll. The reply is the standing as it is now, with what was undone. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

static enum cres undo(struct db *db, struct write_ctx *w)
{
    json_t *undone = NULL;
    enum cres rc = campaign_undo(db, w->c, w->role, &undone, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 200;
    w->body = json_pack("{s:o}", "undone", undone);
    return C_OK;
}

void handle_undo(struct req *r)
{
    if (!empty_body(r))
        return;
    struct write_op op = {.campaign = true,
                          .need = NEED_KEY,
                          .action = undo,
                          .reply_standing = true,
                          .reloads =
                              true}; /* the action before the one undone is known only to the log */
    write_run(r, &op);
}
