/* POST /api/v1/campaigns/{id}/battles/{n}/victory-events: a side rolls its victory events. */
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/rules_json.h"

struct arg {
    int battle;
    struct roll_input in;
};

static enum cres roll(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    struct roll out;
    enum cres rc =
        campaign_victory_roll(db, w->c, a->battle, acting_side(w), &a->in, &out, &w->err);
    if (rc != C_OK)
        return rc;
    struct battle *b = campaign_battle(w->c, a->battle);
    w->status = 201;
    w->body = json_pack("{s:s, s:i, s:i, s:I, s:o, s:s, s:s}", "side", side_name(out.side),
                        "battle", a->battle, "dice", out.count, "roll", (json_int_t)out.n, "faces",
                        faces_to_json(out.faces, out.count), "source",
                        out.table ? "table" : "server", "phase", phase_name(b->phase));
    return C_OK;
}

void handle_victory_events(struct req *r)
{
    struct arg a;
    struct write_op op = {.campaign = true, .need = NEED_SIDE, .action = roll, .arg = &a};
    if ((op.battle = a.battle = path_battle(r, r->params[1])) < 0 ||
        !parse_roll_body(r, &a.in, &op))
        return;
    write_run(r, &op);
}
