/* POST /api/v1/campaigns: a new campaign; its three keys are shown once, here. */
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/rulesets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct jfield pair_tokens[] = {
    {"allies", JK_INT, true, false, 0, 99, NULL},
    {"axis", JK_INT, true, false, 0, 99, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield pair_players[] = {
    {"allies", JK_STRING, false, false, 0, PLAYER_MAX_BYTES, NULL},
    {"axis", JK_STRING, false, false, 0, PLAYER_MAX_BYTES, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield create_spec[] = {
    {"name", JK_STRING, true, false, 1, NAME_MAX_BYTES, NULL},
    {"ruleset", JK_STRING, true, false, 1, RS_ID_MAX - 1, NULL},
    {"what_if", JK_BOOL, false, false, 0, 0, NULL},
    {"dice", JK_STRING, false, false, 1, 16, NULL},
    {"reserve_tokens", JK_OBJECT, false, true, 0, 0, pair_tokens},
    {"players", JK_OBJECT, false, true, 0, 0, pair_players},
    {"scenarios", JK_OBJECT, false, true, 0, 0, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

/* Reads and checks the body; fills `in`. Shared with import. */
bool parse_create_body(json_t *body, const char *path, struct create_input *in,
                       struct scenario_list *list, struct jerr *e)
{
    if (!body_check(body, create_spec, path, e))
        return false;
    char f[64];
#define FIELD(name) (snprintf(f, sizeof f, "%s%s" name, path, *path ? "." : ""), f)
    memset(in, 0, sizeof *in);
    in->name = json_string_value(jget(body, "name"));
    in->rse = ruleset_entry(json_string_value(jget(body, "ruleset")));
    if (!in->rse)
        return jerr_set(e, PROBLEM_INVALID_FIELD, FIELD("ruleset"),
                        "ruleset \"%s\" is not one of GET /api/v1/rulesets.",
                        json_string_value(jget(body, "ruleset")));
    const struct ruleset *rs = in->rse->rs;
    in->what_if = json_is_true(jget(body, "what_if"));
    if (in->what_if && !rs->what_if.enabled)
        return jerr_set(e, PROBLEM_INVALID_FIELD, FIELD("what_if"),
                        "The ruleset %s has no What-if events.", rs->id);
    json_t *dice = jget(body, "dice");
    in->dice = DICE_SERVER;
    if (dice && !dice_mode_parse(json_string_value(dice), &in->dice))
        return jerr_set(e, PROBLEM_INVALID_FIELD, FIELD("dice"),
                        "dice must be \"server\", \"table\" or \"either\".");
    json_t *tokens = jget(body, "reserve_tokens");
    for (int s = 0; s < SIDE_COUNT; s++) {
        in->tokens[s] = tokens ? (int)json_integer_value(jget(tokens, side_name((enum side)s)))
                               : rs->tokens_default[s];
        json_t *players = jget(body, "players");
        json_t *p = players ? jget(players, side_name((enum side)s)) : NULL;
        in->players[s] = p ? json_string_value(p) : "";
    }
    if (!rs->reserve.enabled && (in->tokens[0] || in->tokens[1]))
        return jerr_set(e, PROBLEM_INVALID_FIELD, FIELD("reserve_tokens"),
                        "The ruleset %s has no reserve roll, so no Reserve Tokens.", rs->id);
    in->scenarios = jget(body, "scenarios");
    if (in->scenarios) {
        char err[400];
        if (scenario_list_from_json(in->scenarios, FIELD("scenarios"), list, err, sizeof err)) {
            /* "request: $.scenarios.list[0].cards: ..." -> field and reason */
            const char *field = strstr(err, ": ") ? strstr(err, ": ") + 2 : err;
            const char *reason = strstr(field, ": ");
            char fld[128];
            snprintf(fld, sizeof fld, "%.*s", reason ? (int)(reason - field) : 0, field);
            return jerr_set(e, PROBLEM_INVALID_FIELD, fld, "%s", field);
        }
    }
#undef FIELD
    return true;
}

struct create_arg {
    struct create_input in;
};

static enum cres create(struct db *db, struct write_ctx *w)
{
    struct create_arg *a = w->op->arg;
    struct create_output out;
    enum cres rc = campaign_create(db, &a->in, &out, &w->err);
    if (rc != C_OK)
        return rc;
    snprintf(w->location, sizeof w->location, "/api/v1/campaigns/%s", out.id);
    char links[3][128];
    for (int k = 0; k < 3; k++)
        snprintf(links[k], sizeof links[k], "/c/%s#key=%s", out.id, out.keys[k]);
    w->status = 201;
    w->body =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:{s:s, s:s, s:s}, s:s}", "id", out.id,
                  "organizer_key", out.keys[ROLE_ORGANIZER], "allies_key", out.keys[ROLE_ALLIES],
                  "axis_key", out.keys[ROLE_AXIS], "seed_commitment", out.commitment, "version", 1,
                  "links", "organizer", links[ROLE_ORGANIZER], "allies", links[ROLE_ALLIES], "axis",
                  links[ROLE_AXIS], "campaign", w->location);
    return C_OK;
}

void handle_campaigns_create(struct req *r)
{
    struct jerr e;
    json_t *body = body_parse(r, &e);
    struct create_arg a;
    struct scenario_list *list = malloc(sizeof *list);
    if (!list || !body || !parse_create_body(body, "", &a.in, list, &e)) {
        if (!list)
            jerr_set(&e, PROBLEM_INTERNAL, NULL, "Out of memory.");
        reply_jerr(r, &e);
    } else {
        struct write_op op = {.campaign = false, .need = NEED_NONE, .action = create, .arg = &a};
        write_run(r, &op);
    }
    free(list);
    json_decref(body);
}
