#include "api/bodies.h"

#include "campaign/grand.h"
#include "campaign/rulesets.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

json_t *json_body(const char *data, size_t len, struct jerr *e)
{
    if (!data || len == 0)
        return json_object();
    json_error_t je;
    json_t *j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        /* jansson names its own option for a NUL character: said in plain words instead. */
        const char *why =
            strstr(je.text, "JSON_ALLOW_NUL") ? "a text holds a \\u0000 character" : je.text;
        jerr_set(e, PROBLEM_MALFORMED_JSON, "",
                 "The body is not valid JSON: %s (line %d, column %d).", why, je.line, je.column);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        jerr_set(e, PROBLEM_MALFORMED_JSON, "", "The body must be a JSON object.");
        return NULL;
    }
    return j;
}

/* ---- POST /api/v1/campaigns ---- */

static const struct jfield pair_tokens[] = {
    {"allies", JK_INT, true, false, 0, 99, NULL},
    {"axis", JK_INT, true, false, 0, 99, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield pair_players[] = {
    {"allies", JK_NAME, false, false, 0, PLAYER_MAX_BYTES, NULL},
    {"axis", JK_NAME, false, false, 0, PLAYER_MAX_BYTES, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield create_spec[] = {
    {"name", JK_NAME, true, false, 1, NAME_MAX_BYTES, NULL},
    {"ruleset", JK_STRING, true, false, 1, RS_ID_MAX - 1, NULL},
    {"what_if", JK_BOOL, false, false, 0, 0, NULL},
    {"dice", JK_STRING, false, false, 1, 16, NULL},
    {"reserve_tokens", JK_OBJECT, false, true, 0, 0, pair_tokens},
    {"players", JK_OBJECT, false, true, 0, 0, pair_players},
    {"scenarios", JK_OBJECT, false, true, 0, 0, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_create(json_t *body, const char *path, struct create_input *in,
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
                        "There are no What-if events in %s.", rs->name);
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
                        "There is no reserve roll in %s, so no Reserve Tokens.", rs->name);
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
        for (int i = 0; i < list->n; i++)
            if (text_blank(list->s[i].name, strlen(list->s[i].name)))
                return jerr_set(e, PROBLEM_INVALID_FIELD, FIELD("scenarios"),
                                "Scenario %d of the list has no name (only spaces).", i + 1);
    }
#undef FIELD
    return true;
}

/* ---- rolls ---- */

static const struct jfield roll_spec[] = {
    {"side", JK_SIDE, false, true, 0, 0, NULL},
    {"client_seed", JK_STRING, false, true, 0, CLIENT_SEED_MAX, NULL},
    {"faces", JK_ARRAY, false, true, 1, RULES_MAX_DICE, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_roll(json_t *body, struct roll_input *in, struct jerr *e)
{
    memset(in, 0, sizeof *in);
    if (!body_check(body, roll_spec, "", e))
        return false;
    json_t *seed = jget(body, "client_seed"), *faces = jget(body, "faces");
    if (seed && faces)
        return jerr_set(e, PROBLEM_INVALID_FIELD, "faces",
                        "Send client_seed (a server roll) or faces (a table roll), not both.");
    if (seed)
        snprintf(in->client_seed, sizeof in->client_seed, "%s", json_string_value(seed));
    if (!faces)
        return true;
    in->table = true;
    for (size_t i = 0; i < json_array_size(faces); i++) {
        if (!face_parse(json_string_value(json_array_get(faces, i)), &in->faces[i])) {
            char field[32];
            snprintf(field, sizeof field, "faces[%zu]", i);
            return jerr_set(e, PROBLEM_INVALID_FACES, field,
                            "%s must be one of infantry, armor, grenade, star, flag.", field);
        }
        in->nfaces = (int)i + 1;
    }
    return true;
}

/* ---- POST .../battles ---- */

static const struct jfield cards_spec[] = {
    {"allies", JK_INT, true, false, 1, 20, NULL},
    {"axis", JK_INT, true, false, 1, 20, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield battle_spec[] = {
    {"scenario", JK_STRING, false, true, 1, SCENARIO_MAX_BYTES, NULL},
    {"first_player", JK_SIDE, false, true, 0, 0, NULL},
    {"cards", JK_OBJECT, false, true, 0, 0, cards_spec},
    {"medals_to_win", JK_INT, false, true, 1, 99, NULL},
    {"commissar", JK_SIDE, false, true, 0, 0, NULL},
    {"maps", JK_ARRAY, false, true, 2, RS_MAX_MAPS, NULL},
    {"features", JK_ARRAY, false, true, 0, RS_MAX_FEATURES, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

/* An array of short ids ("sword", "destroyers") into `out`; false with e set. */
static bool id_list(json_t *a, const char *name, const char **out, int *n, struct jerr *e)
{
    *n = 0;
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            json_string_length(v) >= RS_ID_MAX) {
            char field[32];
            snprintf(field, sizeof field, "%s[%zu]", name, i);
            return jerr_set(e, PROBLEM_INVALID_FIELD, field, "%s must be a name of 1 to %d bytes.",
                            field, RS_ID_MAX - 1);
        }
        out[(*n)++] = json_string_value(v);
    }
    return true;
}

bool parse_battle(json_t *body, struct battle_input *in, struct jerr *e)
{
    memset(in, 0, sizeof *in);
    in->first_player = -1;
    in->commissar = -1;
    in->medals_to_win = -1;
    in->cards[0] = in->cards[1] = -1;
    if (!body_check(body, battle_spec, "", e))
        return false;
    in->scenario = json_string_value(jget(body, "scenario"));
    enum side s;
    if (side_parse(json_string_value(jget(body, "first_player")), &s))
        in->first_player = s;
    if (side_parse(json_string_value(jget(body, "commissar")), &s))
        in->commissar = s;
    json_t *cards = jget(body, "cards");
    for (int k = 0; k < SIDE_COUNT && cards; k++)
        in->cards[k] = (int)json_integer_value(jget(cards, side_name((enum side)k)));
    if (jget(body, "medals_to_win"))
        in->medals_to_win = (int)json_integer_value(jget(body, "medals_to_win"));
    return id_list(jget(body, "maps"), "maps", in->maps, &in->nmaps, e) &&
           id_list(jget(body, "features"), "features", in->features, &in->nfeatures, e);
}

/* ---- POST .../reserve-choice ---- */

static const struct jfield item_spec[] = {
    {"id", JK_STRING, true, false, 1, OPTION_ID_MAX - 1, NULL},
    {"grant", JK_STRING, false, true, 1, RS_GRANT_MAX - 1, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield choice_spec[] = {
    {"side", JK_SIDE, false, true, 0, 0, NULL},
    {"options", JK_ARRAY, true, false, 0, RULES_MAX_OFFERED, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_choice(json_t *body, struct choice_item items[RULES_MAX_OFFERED], int *n, struct jerr *e)
{
    *n = 0;
    if (!body_check(body, choice_spec, "", e))
        return false;
    json_t *list = jget(body, "options");
    for (size_t i = 0; i < json_array_size(list); i++) {
        char path[32];
        snprintf(path, sizeof path, "options[%zu]", i);
        json_t *item = json_array_get(list, i);
        if (!json_is_object(item))
            return jerr_set(e, PROBLEM_INVALID_FIELD, path,
                            "%s must be an object {\"id\", \"grant\"}.", path);
        if (!body_check(item, item_spec, path, e))
            return false;
        items[*n].id = json_string_value(jget(item, "id"));
        items[*n].grant = json_string_value(jget(item, "grant"));
        (*n)++;
    }
    return true;
}

/* ---- POST .../result ---- */

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
    {"sudden_death", JK_BOOL, false, true, 0, 0, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

static void read_pair(json_t *obj, int out[SIDE_COUNT])
{
    for (int s = 0; s < SIDE_COUNT; s++)
        out[s] = obj ? (int)json_integer_value(jget(obj, side_name((enum side)s))) : 0;
}

bool parse_result(json_t *body, struct result_input *in, struct jerr *e)
{
    memset(in, 0, sizeof *in);
    if (!body_check(body, result_spec, "", e))
        return false;
    side_parse(json_string_value(jget(body, "winner")), &in->winner);
    read_pair(jget(body, "medals"), in->medals);
    read_pair(jget(body, "undeployed_reserves"), in->undeployed);
    read_pair(jget(body, "objective_medals"), in->objective);
    in->has_undeployed = jget(body, "undeployed_reserves") != NULL;
    in->has_objective = jget(body, "objective_medals") != NULL;
    in->sudden_death = json_is_true(jget(body, "sudden_death"));
    return true;
}

/* ---- POST .../battles/{n}/pick ---- */

static const struct jfield pick_spec[] = {
    {"side", JK_SIDE, false, true, 0, 0, NULL},
    {"event", JK_STRING, true, false, 1, RS_ID_MAX - 1, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_pick(json_t *body, const char **event, struct jerr *e)
{
    if (!body_check(body, pick_spec, "", e))
        return false;
    *event = json_string_value(jget(body, "event"));
    return true;
}

/* ---- POST /api/v1/grand-campaigns ---- */

static const struct jfield grand_spec[] = {
    {"name", JK_NAME, true, false, 1, NAME_MAX_BYTES, NULL},
    {"grand_ruleset", JK_STRING, true, false, 1, RS_ID_MAX - 1, NULL},
    {"what_if", JK_BOOL, false, false, 0, 0, NULL},
    {"dice", JK_STRING, false, false, 1, 16, NULL},
    {"players", JK_OBJECT, false, true, 0, 0, pair_players},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_grand_create(json_t *body, bool recorded, struct grand_input *in, struct jerr *e)
{
    if (!(recorded ? body_check_recorded : body_check)(body, grand_spec, "", e))
        return false;
    memset(in, 0, sizeof *in);
    in->name = json_string_value(jget(body, "name"));
    const char *id = json_string_value(jget(body, "grand_ruleset"));
    in->gr = grand_ruleset_find(id);
    if (!in->gr)
        return jerr_set(e, PROBLEM_INVALID_FIELD, "grand_ruleset",
                        "grand_ruleset \"%s\" is not a grand campaign this server has.", id);
    in->what_if = json_is_true(jget(body, "what_if"));
    bool any_what_if = false;
    for (int i = 0; i < in->gr->ncampaigns; i++) {
        const struct ruleset_entry *rse = ruleset_entry(in->gr->campaigns[i].ruleset);
        any_what_if |= rse && rse->rs->what_if.enabled;
    }
    if (in->what_if && !any_what_if)
        return jerr_set(e, PROBLEM_INVALID_FIELD, "what_if",
                        "The campaigns of %s have no What-if events.", in->gr->name);
    in->dice = DICE_SERVER;
    json_t *dice = jget(body, "dice");
    if (dice && !dice_mode_parse(json_string_value(dice), &in->dice))
        return jerr_set(e, PROBLEM_INVALID_FIELD, "dice",
                        "dice must be \"server\", \"table\" or \"either\".");
    json_t *players = jget(body, "players");
    for (int s = 0; s < SIDE_COUNT; s++) {
        json_t *p = players ? jget(players, side_name((enum side)s)) : NULL;
        in->players[s] = p ? json_string_value(p) : "";
    }
    return true;
}

/* ---- bodies without fields ---- */

/* ---- POST /api/v1/grand-campaigns/{id}/next ---- */

static const struct jfield next_spec[] = {
    {"reserve_tokens", JK_OBJECT, false, true, 0, 0, pair_tokens},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_grand_next(json_t *body, struct grand_next_input *in, struct jerr *e)
{
    memset(in, 0, sizeof *in);
    if (!body_check(body, next_spec, "", e))
        return false;
    json_t *tokens = jget(body, "reserve_tokens");
    in->tokens_given = tokens != NULL;
    for (int s = 0; tokens && s < SIDE_COUNT; s++)
        in->tokens[s] = (int)json_integer_value(jget(tokens, side_name((enum side)s)));
    return true;
}

/* ---- POST .../undo ---- */

static const struct jfield undo_choice_spec[] = {
    {"battle", JK_INT, true, false, 1, MAX_BATTLES, NULL},
    {"side", JK_SIDE, true, false, 0, 0, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};
static const struct jfield undo_spec[] = {
    {"roll", JK_INT, false, true, 1, INT_MAX, NULL},
    {"reserve_choice", JK_OBJECT, false, true, 0, 0, undo_choice_spec},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_undo(json_t *body, struct undo_target *t, struct jerr *e)
{
    if (!body_check(body, undo_spec, "", e))
        return false;
    json_t *roll = jget(body, "roll"), *choice = jget(body, "reserve_choice");
    if (roll && choice)
        return jerr_set(e, PROBLEM_INVALID_FIELD, "reserve_choice",
                        "Name one action to undo: a roll or a reserve choice, not both.");
    *t = (struct undo_target){UNDO_LAST, 0, SIDE_ALLIES};
    if (roll)
        *t = (struct undo_target){UNDO_ROLL, (int)json_integer_value(roll), SIDE_ALLIES};
    if (choice) {
        t->kind = UNDO_CHOICE;
        t->n = (int)json_integer_value(jget(choice, "battle"));
        side_parse(json_string_value(jget(choice, "side")), &t->side);
    }
    return true;
}

static const struct jfield empty_spec[] = {{NULL, 0, false, false, 0, 0, NULL}};

bool parse_empty(json_t *body, struct jerr *e)
{
    return body_check(body, empty_spec, "", e);
}

bool body_side(json_t *body, enum side *side)
{
    return side_parse(json_string_value(jget(body, "side")), side);
}
