/* POST /api/v1/campaigns/{id}/battles/{n}/reserve-choice: a side takes options (or none). */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

#include <stdio.h>

struct arg {
    int battle;
    struct choice_item items[RULES_MAX_OFFERED];
    int n;
};

static enum cres choose(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    struct choice_output out;
    enum side side = acting_side(w);
    enum cres rc =
        campaign_reserve_choice(db, w->c, a->battle, side, a->items, a->n, &out, &w->err);
    if (rc != C_OK)
        return rc;
    struct battle *b = campaign_battle(w->c, a->battle);
    w->status = 200;
    w->body = json_pack("{s:s, s:i, s:o, s:i, s:i, s:s}", "side", side_name(side), "battle",
                        a->battle, "chosen", out.chosen, "cost", out.cost, "reserve_tokens",
                        out.tokens, "phase", phase_name(b->phase));
    return C_OK;
}

void handle_reserve_choice(struct req *r)
{
    struct arg a = {0};
    if ((a.battle = path_battle(r, r->params[1])) < 0)
        return;
    struct jerr e;
    json_t *body = body_parse(r, &e);
    if (!body || !parse_choice(body, a.items, &a.n, &e)) {
        reply_jerr(r, &e);
    } else {
        struct write_op op = {
            .campaign = true, .need = NEED_SIDE, .action = choose, .arg = &a, .battle = a.battle};
        op.names_side = body_side(body, &op.side);
        write_run(r, &op);
    }
    json_decref(body);
}
