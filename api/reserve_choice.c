/* POST /api/v1/campaigns/{id}/battles/{n}/reserve-choice: a side takes options (or none). */
#include "api/common.h"
#include "api/handlers.h"

#include <stdio.h>

static const struct jfield item_spec[] = {
    {"id", JK_STRING, true, false, 1, OPTION_ID_MAX - 1, NULL},
    {"grant", JK_STRING, false, true, 1, RS_GRANT_MAX - 1, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield choice_spec[] = {
    {"options", JK_ARRAY, true, false, 0, RULES_MAX_OFFERED, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

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
    bool ok = body && body_check(body, choice_spec, "", &e);
    json_t *list = ok ? jget(body, "options") : NULL;
    for (size_t i = 0; ok && i < json_array_size(list); i++) {
        char path[32];
        snprintf(path, sizeof path, "options[%zu]", i);
        json_t *item = json_array_get(list, i);
        if (!json_is_object(item))
            ok = jerr_set(&e, PROBLEM_INVALID_FIELD, path,
                          "%s must be an object {\"id\", \"grant\"}.", path);
        else if ((ok = body_check(item, item_spec, path, &e))) {
            a.items[a.n].id = json_string_value(jget(item, "id"));
            a.items[a.n].grant = json_string_value(jget(item, "grant"));
            a.n++;
        }
    }
    if (!ok) {
        reply_jerr(r, &e);
    } else {
        struct write_op op = {.campaign = true, .need = NEED_SIDE, .action = choose, .arg = &a};
        write_run(r, &op);
    }
    json_decref(body);
}
