/* POST /api/v1/campaigns/{id}/battles/{n}/result: the organizer records who won. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"

struct arg {
    int battle;
    struct result_input in;
};

static enum cres record(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    enum cres rc = campaign_result(db, w->c, a->battle, &a->in, &w->err);
    if (rc != C_OK)
        return rc;
    struct standing st;
    campaign_standing(w->c, &st);
    int next = campaign_next_scenario(w->c);
    w->status = 200;
    w->body = json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "battle", a->battle, "phase",
                        "finished", "winner", side_name(a->in.winner), "battles_won",
                        pair_json(st.battles_won), "medals", pair_json(st.medals), "reserve_tokens",
                        pair_json(w->c->tokens), "next_scenario",
                        next >= 0 ? json_string(w->c->scenarios->s[next].name) : json_null(),
                        "campaign_over", json_boolean(next == SCENARIO_END));
    return C_OK;
}

void handle_result(struct req *r)
{
    struct arg a = {0};
    if ((a.battle = path_battle(r, r->params[1])) < 0)
        return;
    struct jerr e;
    json_t *body = body_parse(r, &e);
    if (!body || !parse_result(body, &a.in, &e)) {
        reply_jerr(r, &e);
        json_decref(body);
        return;
    }
    struct write_op op = {.campaign = true, .need = NEED_ORGANIZER, .action = record, .arg = &a};
    write_run(r, &op);
    json_decref(body);
}
