/* POST /api/v1/campaigns/{id}/battles/{n}/reserve-roll: a side rolls 2 dice for reserves. */
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/rules_json.h"

#include <stdlib.h>

struct arg {
    int battle;
    struct roll_input in;
    struct option_list *offered;
};

static enum cres roll(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    struct roll out;
    enum cres rc = campaign_reserve_roll(db, w->c, a->battle, acting_side(w), &a->in, &out,
                                         a->offered, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 201;
    w->body =
        json_pack("{s:s, s:i, s:I, s:o, s:s, s:o, s:i}", "side", side_name(out.side), "battle",
                  a->battle, "roll", (json_int_t)out.n, "faces",
                  faces_to_json(out.faces, out.count), "source", out.table ? "table" : "server",
                  "options", options_to_json(a->offered), "reserve_tokens", w->c->tokens[out.side]);
    return C_OK;
}

void handle_reserve_roll(struct req *r)
{
    struct arg a;
    struct write_op op = {.campaign = true, .need = NEED_SIDE, .action = roll, .arg = &a};
    if ((op.battle = a.battle = path_battle(r, r->params[1])) < 0 ||
        !parse_roll_body(r, &a.in, &op))
        return;
    if (!(a.offered = malloc(sizeof *a.offered))) {
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        return;
    }
    write_run(r, &op);
    free(a.offered);
}
