/*
 * Restoring a campaign from its export: the campaign is created again under its id (with new
 * keys) and its actions are replayed, in order, through the same functions that handled them
 * the first time, with every roll taken as recorded. Any inconsistency refuses the whole
 * import; it runs in one transaction.
 */
#include "campaign/campaign.h"

#include "campaign/rulesets.h"
#include "db/store.h"
#include "rules/to_json.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pair_value(json_t *obj, enum side s, int def)
{
    json_t *v = json_object_get(obj, side_name(s));
    return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

static bool get_side(json_t *obj, const char *key, enum side *out)
{
    return side_parse(json_string_value(json_object_get(obj, key)), out);
}

/* Seeds as exported: commitments always, seeds where revealed (checked against them). */
static enum cres import_seeds(struct db *db, const char *id, json_t *seeds, struct cerr *e)
{
    if (!json_is_array(seeds) || json_array_size(seeds) < 1 || json_array_size(seeds) > MAX_EPOCHS)
        return refuse(e, PROBLEM_INVALID_FIELD, "seeds", "seeds must list 1 to %d seeds.",
                      MAX_EPOCHS);
    for (size_t i = 0; i < json_array_size(seeds); i++) {
        json_t *s = json_array_get(seeds, i);
        json_t *ep = json_object_get(s, "epoch");
        const char *commitment = json_string_value(json_object_get(s, "commitment"));
        const char *hex = json_string_value(json_object_get(s, "server_seed"));
        char field[32];
        snprintf(field, sizeof field, "seeds[%zu]", i);
        if (!json_is_integer(ep) || json_integer_value(ep) != (json_int_t)i + 1 || !commitment ||
            strlen(commitment) != 64)
            return refuse(e, PROBLEM_INVALID_FIELD, field,
                          "%s must be {\"epoch\": %zu, \"commitment\": 64 hex characters, "
                          "\"server_seed\"}.",
                          field, i + 1);
        if (hex) {
            uint8_t b[SEED_BYTES];
            size_t len = 0;
            char want[65];
            if (sodium_hex2bin(b, sizeof b, hex, strlen(hex), NULL, &len, NULL) != 0 ||
                len != SEED_BYTES)
                return refuse(e, PROBLEM_INVALID_FIELD, field,
                              "%s.server_seed must be 64 hex characters.", field);
            dice_commitment(b, want);
            if (strcmp(want, commitment) != 0)
                return refuse(e, PROBLEM_INVALID_FIELD, field,
                              "%s.server_seed does not match its commitment.", field);
        }
        char num[24];
        snprintf(num, sizeof num, "%zu", i + 1);
        if (db_seed_insert(db, id, num, hex, commitment, hex != NULL) != 1)
            return C_DBERR;
    }
    return C_OK;
}

static enum cres replay_roll(struct db *db, struct campaign *c, json_t *d, struct cerr *e)
{
    enum side side;
    struct roll_input in = {.recorded = true};
    const char *purpose = json_string_value(json_object_get(d, "purpose"));
    const char *source = json_string_value(json_object_get(d, "source"));
    json_t *battle = json_object_get(d, "battle"), *n = json_object_get(d, "n");
    int nf = faces_from_json(json_object_get(d, "faces"), in.faces, RULES_MAX_DICE);
    if (!get_side(d, "side", &side) || !purpose || !source || !json_is_integer(battle) ||
        !json_is_integer(n) || nf < 0)
        return refuse(e, PROBLEM_INVALID_FIELD, "detail",
                      "a roll needs n, side, purpose, battle, source and faces.");
    in.nfaces = nf;
    in.recorded_n = (long)json_integer_value(n);
    if (strcmp(source, "server") == 0) {
        json_t *ep = json_object_get(d, "seed_epoch");
        const char *cs = json_string_value(json_object_get(d, "client_seed"));
        if (!json_is_integer(ep) || json_integer_value(ep) < 1 ||
            json_integer_value(ep) > c->nseeds || !cs || strlen(cs) > CLIENT_SEED_MAX)
            return refuse(e, PROBLEM_INVALID_FIELD, "detail",
                          "a server roll needs its seed_epoch and client_seed.");
        in.recorded_epoch = (int)json_integer_value(ep);
        snprintf(in.client_seed, sizeof in.client_seed, "%s", cs);
    }
    int b = (int)json_integer_value(battle);
    struct roll out;
    if (strcmp(purpose, "what_if") == 0) {
        struct what_if_output w;
        return campaign_what_if(db, c, side, &in, &w, e);
    }
    if (strcmp(purpose, "victory_events") == 0)
        return campaign_victory_roll(db, c, b, side, &in, &out, e);
    if (strcmp(purpose, "reserve") == 0) {
        struct option_list *offered = malloc(sizeof *offered);
        if (!offered)
            return C_DBERR;
        enum cres rc = campaign_reserve_roll(db, c, b, side, &in, &out, offered, e);
        free(offered);
        return rc;
    }
    return refuse(e, PROBLEM_INVALID_FIELD, "detail.purpose", "unknown roll purpose \"%s\".",
                  purpose);
}

static enum cres replay_one(struct db *db, struct campaign *c, const char *action, json_t *d,
                            struct cerr *e)
{
    enum side side;
    if (strcmp(action, "roll") == 0)
        return replay_roll(db, c, d, e);
    if (strcmp(action, "battle_created") == 0) {
        struct battle_input in = {.first_player = -1, .commissar = -1};
        in.scenario = json_string_value(json_object_get(d, "scenario"));
        if (get_side(d, "first_player", &side))
            in.first_player = side;
        if (get_side(d, "commissar", &side))
            in.commissar = side;
        for (int s = 0; s < SIDE_COUNT; s++)
            in.cards[s] = pair_value(json_object_get(d, "cards"), (enum side)s, -1);
        json_t *m = json_object_get(d, "medals_to_win");
        in.medals_to_win = json_is_integer(m) ? (int)json_integer_value(m) : -1;
        if (!in.scenario || strlen(in.scenario) > SCENARIO_MAX_BYTES || in.cards[0] > 20 ||
            in.cards[1] > 20 || in.medals_to_win > 99)
            return refuse(e, PROBLEM_INVALID_FIELD, "detail",
                          "a battle needs its scenario, "
                          "cards and medals in range.");
        struct battle *b;
        return campaign_new_battle(db, c, &in, &b, e);
    }
    if (strcmp(action, "reserve_choice") == 0) {
        json_t *opts = json_object_get(d, "options"), *battle = json_object_get(d, "battle");
        if (!get_side(d, "side", &side) || !json_is_array(opts) || !json_is_integer(battle) ||
            json_array_size(opts) > RULES_MAX_OFFERED)
            return refuse(e, PROBLEM_INVALID_FIELD, "detail",
                          "a reserve choice needs battle, side and options.");
        struct choice_item items[RULES_MAX_OFFERED];
        int n = 0;
        for (size_t i = 0; i < json_array_size(opts); i++, n++) {
            items[n].id = json_string_value(json_object_get(json_array_get(opts, i), "id"));
            items[n].grant = json_string_value(json_object_get(json_array_get(opts, i), "grant"));
        }
        struct choice_output out;
        enum cres rc = campaign_reserve_choice(db, c, (int)json_integer_value(battle), side, items,
                                               n, &out, e);
        json_decref(out.chosen);
        return rc;
    }
    if (strcmp(action, "result") == 0) {
        struct result_input in = {0};
        json_t *battle = json_object_get(d, "battle");
        if (!get_side(d, "winner", &in.winner) || !json_is_integer(battle))
            return refuse(e, PROBLEM_INVALID_FIELD, "detail", "a result needs battle, winner.");
        for (int s = 0; s < SIDE_COUNT; s++) {
            in.medals[s] = pair_value(json_object_get(d, "medals"), (enum side)s, 0);
            in.undeployed[s] =
                pair_value(json_object_get(d, "undeployed_reserves"), (enum side)s, 0);
            in.objective[s] = pair_value(json_object_get(d, "objective_medals"), (enum side)s, 0);
            if (in.medals[s] < 0 || in.medals[s] > 200 || in.undeployed[s] < 0 ||
                in.undeployed[s] > 50 || in.objective[s] < 0)
                return refuse(e, PROBLEM_INVALID_FIELD, "detail", "result numbers out of range.");
        }
        in.has_undeployed = in.undeployed[0] || in.undeployed[1];
        return campaign_result(db, c, (int)json_integer_value(battle), &in, e);
    }
    if (strcmp(action, "finished") == 0)
        return campaign_finish(db, c, e);
    if (strcmp(action, "seed_rotated") == 0) {
        json_t *ep = json_object_get(d, "epoch");
        if (!json_is_integer(ep) || json_integer_value(ep) != c->seed_epoch + 1 ||
            json_integer_value(ep) > c->nseeds)
            return refuse(e, PROBLEM_INVALID_FIELD, "detail.epoch",
                          "seed rotations must follow the seeds listed.");
        c->seed_epoch = (int)json_integer_value(ep);
        return campaign_log(db, c, "organizer", "seed_rotated", json_incref(d));
    }
    if (strcmp(action, "imported") == 0)
        return C_OK; /* a note from an earlier import */
    return refuse(e, PROBLEM_INVALID_FIELD, "action", "unknown action \"%s\".", action);
}

enum cres campaign_import(struct db *db, json_t *doc, struct create_output *out, struct campaign *c,
                          struct cerr *e)
{
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    json_t *ver = json_object_get(doc, "format_version");
    if (!fmt || strcmp(fmt, "m44d-campaign-export") != 0 || !json_is_integer(ver) ||
        json_integer_value(ver) != 1)
        return refuse(e, PROBLEM_INVALID_FIELD, "format",
                      "This is not an m44d campaign export (format \"m44d-campaign-export\", "
                      "format_version 1).");
    const char *id = json_string_value(json_object_get(json_object_get(doc, "campaign"), "id"));
    json_t *actions = json_object_get(doc, "actions");
    if (!id || strlen(id) != CAMPAIGN_ID_LEN)
        return refuse(e, PROBLEM_INVALID_FIELD, "campaign.id", "campaign.id must be a UUID.");
    if (!json_is_array(actions) || json_array_size(actions) < 1)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions", "actions must list what happened.");
    json_t *first = json_array_get(actions, 0);
    json_t *d = json_object_get(first, "detail");
    const char *first_action = json_string_value(json_object_get(first, "action"));
    if (!first_action || strcmp(first_action, "campaign_created") != 0)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "The first action must be campaign_created.");
    struct create_input in = {.id = id, .no_seed = true};
    in.name = json_string_value(json_object_get(d, "name"));
    in.rse = ruleset_entry(json_string_value(json_object_get(d, "ruleset")));
    in.what_if = json_is_true(json_object_get(d, "what_if"));
    const char *dice = json_string_value(json_object_get(d, "dice"));
    const char *pa = json_string_value(json_object_get(json_object_get(d, "players"), "allies"));
    const char *px = json_string_value(json_object_get(json_object_get(d, "players"), "axis"));
    in.players[0] = pa ? pa : "";
    in.players[1] = px ? px : "";
    in.scenarios = json_object_get(d, "scenarios");
    if (json_is_null(in.scenarios))
        in.scenarios = NULL;
    for (int s = 0; s < SIDE_COUNT; s++)
        in.tokens[s] = pair_value(json_object_get(d, "reserve_tokens"), (enum side)s, -1);
    if (!in.name || !*in.name || strlen(in.name) > NAME_MAX_BYTES || !in.rse ||
        !dice_mode_parse(dice, &in.dice) || in.tokens[0] < 0 || in.tokens[0] > 99 ||
        in.tokens[1] < 0 || in.tokens[1] > 99 || strlen(in.players[0]) > PLAYER_MAX_BYTES ||
        strlen(in.players[1]) > PLAYER_MAX_BYTES || (in.what_if && !in.rse->rs->what_if.enabled))
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0].detail",
                      "campaign_created needs name, a loaded ruleset, dice, reserve_tokens and "
                      "players within limits.");
    if (in.scenarios) {
        struct scenario_list *l = malloc(sizeof *l);
        char err[300];
        int bad = !l || scenario_list_from_json(in.scenarios, "$.scenarios", l, err, sizeof err);
        free(l);
        if (bad)
            return refuse(e, PROBLEM_INVALID_FIELD, "actions[0].detail.scenarios", "%s", err);
    }
    enum cres rc = campaign_create(db, &in, out, e);
    if (rc != C_OK)
        return rc;
    if ((rc = import_seeds(db, out->id, json_object_get(doc, "seeds"), e)) != C_OK)
        return rc;
    if ((rc = campaign_load(db, out->id, true, c, e)) != C_OK)
        return rc;
    for (size_t i = 1; i < json_array_size(actions); i++) {
        json_t *a = json_array_get(actions, i);
        const char *action = json_string_value(json_object_get(a, "action"));
        json_t *detail = json_object_get(a, "detail");
        if (!action || !json_is_object(detail))
            return refuse(e, PROBLEM_INVALID_FIELD, "actions",
                          "actions[%zu] needs action and "
                          "detail.",
                          i);
        rc = replay_one(db, c, action, detail, e);
        if (rc == C_REFUSED) {
            char detail_text[sizeof e->detail];
            snprintf(detail_text, sizeof detail_text, "%s", e->detail);
            snprintf(e->field, sizeof e->field, "actions[%zu]", i);
            snprintf(e->detail, sizeof e->detail, "actions[%zu] (%.40s) does not replay: %.300s", i,
                     action, detail_text);
            e->code = PROBLEM_INVALID_FIELD;
            e->phase = NULL;
        }
        if (rc != C_OK)
            return rc;
    }
    /* Rolling goes on only with a seed this server knows: a new one if the last was secret. */
    const struct seed *last = NULL;
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].epoch == c->seed_epoch)
            last = &c->seeds[i];
    if (!c->finished && (!last || !last->known)) {
        if ((rc = campaign_rotate_seed(db, c, e)) != C_OK)
            return rc;
    }
    const struct seed *cur = NULL;
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].epoch == c->seed_epoch)
            cur = &c->seeds[i];
    snprintf(out->commitment, sizeof out->commitment, "%s", cur ? cur->commitment : "");
    return campaign_log(db, c, "organizer", "imported",
                        json_pack("{s:i}", "actions", (int)json_array_size(actions)));
}
