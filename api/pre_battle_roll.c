/* POST /api/v1/campaigns/{id}/battles/{n}/pre-battle-roll: a side makes the roll an effect calls
 * for before the battle (RULES.md 9: Naval Struggle's three dice against the Destroyers). */
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
    int hits = 0;
    enum cres rc =
        campaign_pre_battle_roll(db, w->c, a->battle, acting_side(w), &a->in, &out, &hits, &w->err);
    if (rc != C_OK)
        return rc;
    struct battle *b = campaign_battle(w->c, a->battle);
    w->status = 201;
    w->body = json_pack(
        "{s:s, s:i, s:I, s:o, s:s, s:i, s:s}", "side", side_name(out.side), "battle", a->battle,
        "roll", (json_int_t)out.n, "faces", faces_to_json(out.faces, out.count), "source",
        out.table ? "table" : "server", "hits", hits, "phase", phase_name(b->phase));
    return C_OK;
}

void handle_pre_battle_roll(struct req *r)
{
    struct arg a;
    struct write_op op = {.campaign = true, .need = NEED_SIDE, .action = roll, .arg = &a};
    if ((op.battle = a.battle = path_battle(r, r->params[1])) < 0 ||
        !parse_roll_body(r, &a.in, &op))
        return;
    write_run(r, &op);
}
