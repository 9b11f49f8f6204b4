/* POST /api/v1/campaigns/{id}/battles/{n}/pick: a side picks this battle for an event that is
 * for one battle of its choice (RULES.md 9: Night Attacks). Body {"event": id}. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

struct arg {
    int battle;
    const char *event;
};

static enum cres pick(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    enum side side = acting_side(w);
    enum cres rc = campaign_pick_battle(db, w->c, a->battle, side, a->event, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 200;
    w->body = json_pack("{s:s, s:s, s:i}", "side", side_name(side), "event", a->event, "battle",
                        a->battle);
    return C_OK;
}

void handle_battle_pick(struct req *r)
{
    struct arg a = {0};
    if ((a.battle = path_battle(r, r->params[1])) < 0)
        return;
    struct jerr e;
    json_t *body = body_parse(r, &e);
    if (!body || !parse_pick(body, &a.event, &e)) {
        reply_jerr(r, &e);
    } else {
        struct write_op op = {.campaign = true, .need = NEED_SIDE, .action = pick, .arg = &a};
        op.names_side = body_side(body, &op.side);
        write_run(r, &op);
    }
    json_decref(body);
}
