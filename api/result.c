/* POST /api/v1/campaigns/{id}/battles/{n}/result: the organizer records who won. */
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"

static const struct jfield medals_spec[] = {
    {"allies", JK_INT, true, false, 0, 200, NULL},
    {"axis", JK_INT, true, false, 0, 200, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield units_spec[] = {
    {"allies", JK_INT, true, false, 0, 50, NULL},
    {"axis", JK_INT, true, false, 0, 50, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield result_spec[] = {
    {"winner", JK_SIDE, true, false, 0, 0, NULL},
    {"medals", JK_OBJECT, true, false, 0, 0, medals_spec},
    {"undeployed_reserves", JK_OBJECT, false, true, 0, 0, units_spec},
    {"objective_medals", JK_OBJECT, false, true, 0, 0, medals_spec},
    {NULL, 0, false, false, 0, 0, NULL},
};

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

static void read_pair(json_t *obj, int out[SIDE_COUNT])
{
    for (int s = 0; s < SIDE_COUNT; s++)
        out[s] = obj ? (int)json_integer_value(jget(obj, side_name((enum side)s))) : 0;
}

void handle_result(struct req *r)
{
    struct arg a = {0};
    if ((a.battle = path_battle(r, r->params[1])) < 0)
        return;
    struct jerr e;
    json_t *body = body_parse(r, &e);
    if (!body || !body_check(body, result_spec, "", &e)) {
        reply_jerr(r, &e);
        json_decref(body);
        return;
    }
    side_parse(json_string_value(jget(body, "winner")), &a.in.winner);
    read_pair(jget(body, "medals"), a.in.medals);
    read_pair(jget(body, "undeployed_reserves"), a.in.undeployed);
    read_pair(jget(body, "objective_medals"), a.in.objective);
    a.in.has_undeployed = jget(body, "undeployed_reserves") != NULL;
    a.in.has_objective = jget(body, "objective_medals") != NULL;
    struct write_op op = {.campaign = true, .need = NEED_ORGANIZER, .action = record, .arg = &a};
    write_run(r, &op);
    json_decref(body);
}
