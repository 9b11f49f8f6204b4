/* POST /api/v1/campaigns/{id}/battles: the organizer sets up the next battle. */
#include "api/common.h"
#include "api/handlers.h"

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
    {NULL, 0, false, false, 0, 0, NULL},
};

static enum cres create(struct db *db, struct write_ctx *w)
{
    struct battle *b;
    enum cres rc = campaign_new_battle(db, w->c, w->op->arg, &b, &w->err);
    if (rc != C_OK)
        return rc;
    snprintf(w->location, sizeof w->location, "/api/v1/campaigns/%s/battles/%d", w->c->id,
             b->number);
    w->status = 201;
    w->body = json_pack("{s:i, s:s, s:s, s:s, s:{s:i, s:i}, s:i}", "number", b->number, "phase",
                        phase_name(b->phase), "scenario", b->scenario, "first_player",
                        side_name(b->first_player), "cards", "allies", b->cards[0], "axis",
                        b->cards[1], "medals_to_win", b->medals_to_win);
    return C_OK;
}

void handle_battles_create(struct req *r)
{
    struct jerr e;
    json_t *body = body_parse(r, &e);
    if (!body || !body_check(body, battle_spec, "", &e)) {
        reply_jerr(r, &e);
        json_decref(body);
        return;
    }
    struct battle_input in = {.first_player = -1, .commissar = -1};
    in.scenario = json_string_value(jget(body, "scenario"));
    enum side s;
    if (jget(body, "first_player") && side_parse(json_string_value(jget(body, "first_player")), &s))
        in.first_player = s;
    if (jget(body, "commissar") && side_parse(json_string_value(jget(body, "commissar")), &s))
        in.commissar = s;
    json_t *cards = jget(body, "cards");
    for (int k = 0; k < SIDE_COUNT; k++)
        in.cards[k] = cards ? (int)json_integer_value(jget(cards, side_name((enum side)k))) : -1;
    in.medals_to_win =
        jget(body, "medals_to_win") ? (int)json_integer_value(jget(body, "medals_to_win")) : -1;
    struct write_op op = {.campaign = true, .need = NEED_ORGANIZER, .action = create, .arg = &in};
    write_run(r, &op);
    json_decref(body);
}
