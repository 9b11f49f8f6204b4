#include "api/views.h"

#include "db/store.h"
#include "campaign/grand_rulesets.h"
#include "campaign/rules_json.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

json_t *pair_json(const int v[SIDE_COUNT])
{
    return json_pack("{s:i, s:i}", "allies", v[SIDE_ALLIES], "axis", v[SIDE_AXIS]);
}

json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

json_t *side_or_null(int s)
{
    return s >= 0 ? json_string(side_name((enum side)s)) : json_null();
}

json_t *result_json(const struct battle *b)
{
    if (b->phase != PHASE_FINISHED)
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:o, s:b}", "winner", side_or_null(b->winner), "medals",
                     pair_json(b->medals), "undeployed_reserves", pair_json(b->undeployed),
                     "objective_medals", pair_json(b->objective), "sudden_death", b->sudden_death);
}

/* The tokens and stars a side holds (RULES.md 9): [{"id","grant","text","battle"}]. */
static json_t *held_json(const struct campaign *c, enum side side)
{
    json_t *a = json_array();
    for (int i = 0; i < c->nheld; i++) {
        const struct held *h = &c->held[i];
        if (h->side != side || strcmp(h->state, "held") != 0)
            continue;
        const struct grant_def *g = c->rse ? ruleset_grant(c->rse->rs, h->grant) : NULL;
        json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:i}", "id", h->id, "grant", h->grant,
                                           "text", g ? g->text : h->grant, "battle", h->battle));
    }
    return a;
}

static json_t *effect_json(const struct campaign *c, const struct effect_row *e)
{
    json_t *by = json_array();
    for (int s = 0; s < SIDE_COUNT; s++)
        if (e->rolled_by[s])
            json_array_append_new(by, json_string(side_name((enum side)s)));
    json_t *j = json_pack("{s:s, s:o}", "id", e->event_id, "rolled_by", by);
    json_object_update(j, e->data);
    if (e->picked_battle)
        json_object_set_new(j, "picked_battle", json_integer(e->picked_battle));
    /* Who picks the battle of a "picked" event (Night Attacks: the Axis). */
    const struct event_def *events[RS_MAX_EVENTS];
    int n = campaign_events(c, 0, events, RS_MAX_EVENTS);
    for (int i = 0; i < n; i++) {
        const struct effect_def *pick = event_effect(events[i], EFFECT_PICK_BATTLE);
        if (pick && strcmp(events[i]->id, e->event_id) == 0)
            json_object_set_new(j, "picked_by", json_string(side_name((enum side)pick->side)));
    }
    return j;
}

/* A standing effect's scope, as rolled (stored with the effect). */
static void row_scope(const struct effect_row *e, struct scope *sc)
{
    json_t *scope = json_object_get(e->data, "scope");
    const char *kind = json_string_value(json_object_get(scope, "kind"));
    static const char *const kinds[] = {"none", "campaign", "except", "only", "battles", "picked"};
    memset(sc, 0, sizeof *sc);
    for (int k = 0; kind && k < 6; k++)
        if (strcmp(kind, kinds[k]) == 0)
            sc->kind = (enum scope_kind)k;
    if (kind && strcmp(kind, "once") == 0) {
        /* Rolled before "once" was read (RULES.md 9, Defensive Works): battle 1's result and
         * battle 2. */
        sc->kind = SCOPE_BATTLES;
        sc->battles[sc->n++] = 2;
        sc->results[sc->nresults++] = 1;
        return;
    }
    json_t *list = json_object_get(scope, sc->kind == SCOPE_BATTLES ? "battles" : "scenarios");
    for (size_t i = 0; i < json_array_size(list) && sc->n < RS_MAX_SCOPE_ITEMS; i++, sc->n++) {
        json_t *v = json_array_get(list, i);
        if (json_is_integer(v))
            sc->battles[sc->n] = (int)json_integer_value(v);
        else
            snprintf(sc->scenarios[sc->n], RS_NAME_MAX, "%s", json_string_value(v));
    }
    json_t *results = json_object_get(scope, "results");
    for (size_t i = 0; i < json_array_size(results) && sc->nresults < RS_MAX_SCOPE_ITEMS; i++)
        sc->results[sc->nresults++] = (int)json_integer_value(json_array_get(results, i));
}

/* Whether a standing effect is shown at battle b, and with its result. */
static bool effect_applies(const struct effect_row *e, const struct battle *b)
{
    struct scope sc;
    row_scope(e, &sc);
    return b->number >= e->from_battle &&
           scope_applies(&sc, b->number, b->scenario, e->picked_battle);
}

static bool effect_at_result(const struct effect_row *e, const struct battle *b)
{
    struct scope sc;
    row_scope(e, &sc);
    return b->number >= e->from_battle && scope_applies_result(&sc, b->number);
}

static json_t *scenario_json(const struct scenario_def *s)
{
    return json_pack("{s:s, s:s, s:o, s:i, s:o}", "scenario", s->name, "first_player",
                     side_name(s->first_player), "cards", pair_json(s->cards), "medals_to_win",
                     s->medals_to_win, "reserve_tokens_added", pair_json(s->tokens_added));
}

static json_t *seeds_json(const struct campaign *c)
{
    json_t *a = json_array();
    for (int i = 0; i < c->nseeds; i++) {
        const struct seed *s = &c->seeds[i];
        json_t *j =
            json_pack("{s:i, s:s, s:o, s:s}", "epoch", s->epoch, "commitment", s->commitment,
                      "revealed_at", str_or_null(s->revealed ? s->revealed_at : NULL), "origin",
                      s->from_document ? "import" : "server");
        if (s->revealed && s->known) {
            char hex[2 * SEED_BYTES + 1];
            sodium_bin2hex(hex, sizeof hex, s->bytes, SEED_BYTES);
            json_object_set_new(j, "server_seed", json_string(hex));
        } else {
            json_object_set_new(j, "server_seed", json_null());
        }
        json_array_append_new(a, j);
    }
    return a;
}

static const struct seed *seed_of_epoch(const struct campaign *c, int epoch)
{
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].epoch == epoch)
            return &c->seeds[i];
    return NULL;
}

static json_t *ledger_json(struct db *db, const struct campaign *c)
{
    PGresult *r = db_ledger(db, c->id);
    if (!r)
        return NULL;
    json_t *a = json_array();
    for (int i = 0; i < PQntuples(r); i++)
        json_array_append_new(
            a, json_pack("{s:I, s:s, s:i, s:i, s:s, s:o, s:s}", "seq",
                         (json_int_t)atoll(PQgetvalue(r, i, 0)), "side", PQgetvalue(r, i, 1),
                         "delta", atoi(PQgetvalue(r, i, 2)), "balance", atoi(PQgetvalue(r, i, 3)),
                         "reason", PQgetvalue(r, i, 4), "battle",
                         db_val(r, i, 5) ? json_integer(atoi(PQgetvalue(r, i, 5))) : json_null(),
                         "at", PQgetvalue(r, i, 6)));
    PQclear(r);
    return a;
}

static uint8_t tag_secret[crypto_generichash_KEYBYTES];

void key_tags_secret(const uint8_t secret[32])
{
    memcpy(tag_secret, secret, sizeof tag_secret);
}

json_t *key_tags_json(const uint8_t hash[3][32])
{
    json_t *t = json_object();
    for (int k = 0; k < 3; k++) {
        uint8_t tag[crypto_generichash_BYTES_MIN];
        crypto_generichash(tag, sizeof tag, hash[k], 32, tag_secret, sizeof tag_secret);
        char hex[9];
        sodium_bin2hex(hex, sizeof hex, tag, 4);
        json_object_set_new(t, role_name((enum role)k), json_string(hex));
    }
    return t;
}

json_t *view_campaign(struct db *db, struct campaign *c)
{
    struct standing st;
    struct outcome o;
    campaign_standing(c, &st);
    campaign_graded_outcome(c, &st, &o);
    json_t *sides = json_object();
    for (int s = 0; s < SIDE_COUNT; s++)
        json_object_set_new(sides, side_name((enum side)s),
                            json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:o}", "player",
                                      c->players[s], "battles_won", st.battles_won[s], "medals",
                                      st.medals[s], "objective_medals", st.objective_medals[s],
                                      "victory_points", o.victory_points[s], "reserve_tokens",
                                      c->tokens[s], "held", held_json(c, (enum side)s)));
    json_t *battles = json_array();
    for (int i = 0; i < c->nbattles; i++) {
        const struct battle *b = &c->battles[i];
        json_array_append_new(
            battles, json_pack("{s:i, s:s, s:s, s:s, s:o}", "number", b->number, "scenario",
                               b->scenario, "phase", phase_name(b->phase), "first_player",
                               side_name(b->first_player), "result", result_json(b)));
    }
    json_t *effects = json_array();
    for (int i = 0; i < c->neffects; i++)
        json_array_append_new(effects, effect_json(c, &c->effects[i]));
    struct battle *cur = campaign_current(c);
    json_t *waiting = NULL;
    if (cur && cur->phase != PHASE_FINISHED) {
        struct battle_detail d;
        if (battle_detail_load(db, c, cur->number, &d) != C_OK)
            goto fail;
        waiting = battle_waiting_for(c, cur, &d);
        battle_detail_free(&d);
    } else {
        waiting = json_array();
        for (int s = 0; s < SIDE_COUNT && !cur && c->what_if; s++)
            if (!c->what_if_event[s][0]) {
                char item[32];
                snprintf(item, sizeof item, "%s:what-if", side_name((enum side)s));
                json_array_append_new(waiting, json_string(item));
            }
        if (!c->finished)
            json_array_append_new(waiting, json_string(campaign_next_scenario(c) == SCENARIO_END
                                                           ? "organizer:finish"
                                                           : "organizer:new-battle"));
    }
    json_t *ledger = ledger_json(db, c);
    if (!ledger) {
        json_decref(waiting);
        goto fail;
    }
    const struct seed *cur_seed = seed_of_epoch(c, c->seed_epoch);
    json_t *j = json_pack(
        "{s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, "
        "s:i, s:o, s:o}",
        "id", c->id, "name", c->name, "ruleset", c->ruleset_id, "ruleset_name",
        c->rse ? c->rse->rs->name : c->ruleset_id, "what_if", c->what_if, "dice",
        dice_mode_name(c->dice), "status", c->finished ? "finished" : "active", "version",
        (json_int_t)c->version, "created_at", c->created_at, "finished_at",
        str_or_null(c->finished_at), "sides", sides, "battles", battles, "current_battle",
        cur && cur->phase != PHASE_FINISHED ? json_integer(cur->number) : json_null(),
        "waiting_for", waiting, "effects", effects, "token_history", ledger, "seed_commitment",
        cur_seed ? cur_seed->commitment : "", "seed_epoch", c->seed_epoch, "seeds", seeds_json(c),
        "outcome",
        json_pack("{s:b, s:o, s:o, s:s, s:i}", "final", c->finished, "winner",
                  side_or_null(c->finished ? c->winner : o.winner), "victory_points",
                  pair_json(o.victory_points), "grade", o.grade, "points", o.points));
    /* What an undo would undo now (API.md), so that a page can offer it to whom it may. */
    char what[UNDO_TEXT_MAX], why_not[UNDO_TEXT_MAX];
    json_t *undo = json_null();
    if (campaign_undo_info(c, what, sizeof what, why_not, sizeof why_not)) {
        json_t *who = json_array();
        if (!why_not[0]) {
            json_array_append_new(who, json_string("organizer"));
            if (strcmp(c->last.actor, "allies") == 0 || strcmp(c->last.actor, "axis") == 0)
                json_array_append_new(who, json_string(c->last.actor));
        }
        undo = json_pack("{s:s, s:s, s:s, s:o, s:o}", "action", c->last.action, "by", c->last.actor,
                         "what", what, "who", who, "why_not",
                         why_not[0] ? json_string(why_not) : json_null());
    }
    json_object_set_new(j, "undo", undo);
    json_object_set_new(j, "key_tags", key_tags_json(c->key_hash));
    if (c->finished) {
        /* The seed of the last epoch; every epoch's is under "seeds". */
        const struct seed *s = cur_seed && cur_seed->known ? cur_seed : NULL;
        char hex[2 * SEED_BYTES + 1] = "";
        if (s)
            sodium_bin2hex(hex, sizeof hex, s->bytes, SEED_BYTES);
        json_object_set_new(j, "server_seed", s ? json_string(hex) : json_null());
    }
    if (c->what_if) {
        json_t *w = json_object(), *again = json_object();
        for (int s = 0; s < SIDE_COUNT; s++) {
            json_t *roll = json_null();
            if (c->what_if_event[s][0]) {
                roll = json_pack("{s:s, s:s}", "face", face_name(c->what_if_face[s]), "event",
                                 c->what_if_event[s]);
                if (c->what_if_again[s])
                    json_object_set_new(roll, "again",
                                        json_pack("{s:s, s:s, s:i}", "face",
                                                  face_name(c->what_if_again_face[s]), "event",
                                                  c->what_if_again_event[s], "after_battle",
                                                  c->what_if_again[s]));
            }
            json_object_set_new(w, side_name((enum side)s), roll);
            json_object_set_new(again, side_name((enum side)s),
                                json_boolean(campaign_what_if_again(c, (enum side)s)));
        }
        json_object_set_new(j, "what_if_rolls", w);
        /* May a side roll once more now (Forward Command)? */
        json_object_set_new(j, "what_if_again", again);
        /* The face -> event mapping is a reading (RULES.md 9): said wherever a roll shows. */
        if (c->rse && c->rse->rs->what_if.face_note[0])
            json_object_set_new(j, "what_if_note", json_string(c->rse->rs->what_if.face_note));
    }
    if (c->grand_id[0]) {
        /* A campaign of a grand campaign names it, and its place in the list. */
        const struct grand_ruleset *gr = grand_ruleset_find(c->grand_ruleset);
        json_object_set_new(j, "grand_campaign",
                            json_pack("{s:s, s:s, s:i, s:o}", "id", c->grand_id, "name",
                                      c->grand_name, "place", c->grand_index, "of",
                                      gr ? json_integer(gr->ncampaigns) : json_null()));
    } else {
        json_object_set_new(j, "grand_campaign", json_null());
    }
    int next = campaign_next_scenario(c);
    json_object_set_new(j, "scenario_list", json_boolean(c->scenarios != NULL));
    json_object_set_new(j, "campaign_over", json_boolean(next == SCENARIO_END));
    json_object_set_new(j, "next", next >= 0 ? scenario_json(&c->scenarios->s[next]) : json_null());
    if (next == -3) {
        /* A battle is being played: what follows depends on its winner. */
        int idx = scenario_find(c->scenarios, cur->scenario);
        json_t *by = json_object();
        for (int s = 0; s < SIDE_COUNT && idx >= 0; s++) {
            int n = c->scenarios->s[idx].next[s];
            json_object_set_new(by, side_name((enum side)s),
                                json_string(n >= 0 ? c->scenarios->s[n].name : "END"));
        }
        json_object_set_new(j, "next_by_winner", by);
    }
    return j;
fail:
    json_decref(sides);
    json_decref(battles);
    json_decref(effects);
    return NULL;
}

static json_t *faces_or_null(bool rolled, const struct roll *r)
{
    return rolled ? faces_to_json(r->faces, r->count) : json_null();
}

/* The pre-battle rolls the battle calls for: [{"roll","event","side","dice","text","n","faces",
 * "hits"}], the last three null until rolled. */
static json_t *pre_battle_json(const struct campaign *c, const struct battle *b,
                               const struct battle_detail *d)
{
    struct pre_battle_need needs[RS_MAX_EVENTS];
    int n = campaign_pre_battle_needs(c, b, needs, RS_MAX_EVENTS);
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        const struct effect_def *e = needs[i].roll;
        const struct side_detail *sd = &d->side[e->side];
        json_array_append_new(
            a,
            json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:o, s:o, s:o}", "roll", e->roll, "event",
                      needs[i].event->id, "event_name", needs[i].event->name, "side",
                      side_name((enum side)e->side), "dice", e->dice, "text", e->text, "n",
                      sd->pb_rolled ? json_integer(sd->pb.n) : json_null(), "faces",
                      faces_or_null(sd->pb_rolled, &sd->pb), "hits",
                      sd->pb_rolled ? json_integer(pre_battle_hits(e, sd->pb.faces, sd->pb.count))
                                    : json_null()));
    }
    return a;
}

/* A multi-map battle's maps, with their names: [{"id","name"}]. */
static json_t *maps_json(const struct ruleset *rs, const struct battle *b)
{
    json_t *a = json_array();
    for (int i = 0; i < b->nmaps; i++) {
        int idx = rs ? map_find(&rs->maps, b->maps[i]) : -1;
        json_array_append_new(a, json_pack("{s:s, s:s}", "id", b->maps[i], "name",
                                           idx >= 0 ? rs->maps.maps[idx].name : b->maps[i]));
    }
    return a;
}

json_t *view_battle(struct db *db, struct campaign *c, struct battle *b)
{
    struct battle_detail d;
    if (battle_detail_load(db, c, b->number, &d) != C_OK)
        return NULL;
    const struct ruleset *rs = c->rse ? c->rse->rs : NULL;
    json_t *j =
        json_pack("{s:i, s:s, s:s, s:s, s:o, s:i, s:o, s:s, s:o, s:o, s:o}", "number", b->number,
                  "scenario", b->scenario, "phase", phase_name(b->phase), "first_player",
                  side_name(b->first_player), "cards", pair_json(b->cards), "medals_to_win",
                  b->medals_to_win, "commissar", side_or_null(b->commissar), "created_at",
                  b->created_at, "finished_at", str_or_null(b->finished_at), "result",
                  result_json(b), "waiting_for", battle_waiting_for(c, b, &d));
    /* Victory events: dice per side, faces once rolled, instructions once both have rolled. */
    int dice[SIDE_COUNT];
    json_t *faces = json_object(), *rolls = json_object();
    for (int s = 0; s < SIDE_COUNT; s++) {
        dice[s] = campaign_victory_dice(c, b, (enum side)s);
        json_object_set_new(faces, side_name((enum side)s),
                            faces_or_null(d.side[s].ve_rolled, &d.side[s].ve));
        json_object_set_new(rolls, side_name((enum side)s),
                            d.side[s].ve_rolled ? json_integer(d.side[s].ve.n) : json_null());
    }
    struct victory_outcome *vo = malloc(sizeof *vo);
    bool resolved = vo && battle_victory_outcome(c, b, &d, vo);
    json_t *ve =
        json_pack("{s:o, s:o, s:o}", "dice", pair_json(dice), "faces", faces, "rolls", rolls);
    json_t *hand = json_null();
    if (resolved) {
        json_t *vj = victory_to_json(rs, vo);
        json_object_set(ve, "instructions", json_object_get(vj, "instructions"));
        json_object_set(ve, "notes", json_object_get(vj, "notes"));
        hand = json_incref(json_object_get(vj, "starting_hand"));
        json_decref(vj);
    } else {
        json_object_set_new(ve, "instructions", json_null());
        json_object_set_new(ve, "notes", json_array());
    }
    free(vo);
    json_object_set_new(j, "victory_events", ve);
    json_object_set_new(j, "starting_hand", hand);
    if (rs && rs->reserve.enabled) {
        json_t *res = json_object();
        for (int s = 0; s < SIDE_COUNT; s++) {
            const struct side_detail *sd = &d.side[s];
            json_object_set_new(
                res, side_name((enum side)s),
                json_pack("{s:o, s:o, s:O?, s:O?, s:o, s:o}", "roll",
                          sd->rr_rolled ? json_integer(sd->rr.n) : json_null(), "faces",
                          faces_or_null(sd->rr_rolled, &sd->rr), "options", sd->offered, "chosen",
                          sd->chosen_json, "cost",
                          sd->chosen ? json_integer(sd->cost) : json_null(), "tokens_after",
                          sd->chosen ? json_integer(sd->tokens_after) : json_null()));
        }
        json_object_set_new(j, "reserves", res);
    } else {
        json_object_set_new(j, "reserves", json_null());
    }
    json_t *effects = json_array(), *at_result = json_array();
    for (int i = 0; i < c->neffects; i++) {
        if (effect_applies(&c->effects[i], b))
            json_array_append_new(effects, effect_json(c, &c->effects[i]));
        if (effect_at_result(&c->effects[i], b))
            json_array_append_new(at_result, effect_json(c, &c->effects[i]));
    }
    json_object_set_new(j, "effects", effects);
    /* Effects to apply when this battle's result is recorded (Defensive Works). */
    json_object_set_new(j, "effects_at_result", at_result);
    json_object_set_new(j, "pre_battle_rolls", pre_battle_json(c, b, &d));
    json_object_set_new(j, "maps", maps_json(rs, b));
    json_t *features = json_array();
    for (int i = 0; i < b->nfeatures; i++)
        json_array_append_new(features, json_string(b->features[i]));
    json_object_set_new(j, "features", features);
    battle_detail_free(&d);
    return j;
}

json_t *view_rolls(struct db *db, const struct campaign *c)
{
    PGresult *r = db_rolls(db, c->id);
    if (!r)
        return NULL;
    json_t *a = json_array();
    for (int i = 0; i < PQntuples(r); i++) {
        enum face f[RULES_MAX_DICE];
        int n = campaign_faces_from_sql(PQgetvalue(r, i, 7), f, RULES_MAX_DICE);
        bool server = strcmp(PQgetvalue(r, i, 4), "server") == 0;
        json_array_append_new(
            a, json_pack("{s:i, s:s, s:s, s:i, s:s, s:o, s:o, s:o, s:s, s:b}", "n",
                         atoi(PQgetvalue(r, i, 0)), "side", PQgetvalue(r, i, 1), "purpose",
                         PQgetvalue(r, i, 2), "battle", atoi(PQgetvalue(r, i, 3)), "source",
                         PQgetvalue(r, i, 4), "client_seed",
                         server ? json_string(PQgetvalue(r, i, 5)) : json_null(), "seed_epoch",
                         server ? json_integer(atoi(PQgetvalue(r, i, 6))) : json_null(), "faces",
                         faces_to_json(f, n), "at", PQgetvalue(r, i, 9), "voided",
                         PQgetvalue(r, i, 10)[0] == 't'));
    }
    PQclear(r);
    return a;
}

json_t *view_log(struct db *db, const struct campaign *c)
{
    PGresult *res = db_log(db, c->id);
    if (!res)
        return NULL;
    json_t *a = json_array();
    for (int i = 0; i < PQntuples(res); i++)
        json_array_append_new(a, json_pack("{s:I, s:s, s:s, s:s, s:o}", "seq",
                                           (json_int_t)atoll(PQgetvalue(res, i, 0)), "at",
                                           PQgetvalue(res, i, 1), "actor", PQgetvalue(res, i, 2),
                                           "action", PQgetvalue(res, i, 3), "detail",
                                           json_loads(PQgetvalue(res, i, 4), 0, NULL)));
    PQclear(res);
    return a;
}

/* Now, as the export says it was made: 2026-11-22T10:00:00Z. */
void view_now(char out[40])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 40, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

json_t *view_export(struct db *db, struct campaign *c)
{
    json_t *standing = view_campaign(db, c);
    json_t *rolls = standing ? view_rolls(db, c) : NULL;
    json_t *log = rolls ? view_log(db, c) : NULL;
    if (!log) {
        json_decref(standing);
        json_decref(rolls);
        return NULL;
    }
    char now[40];
    view_now(now);
    return json_pack(
        "{s:s, s:i, s:s, s:{s:s, s:s, s:s, s:b, s:s, s:s, s:I, s:O?}, s:O, s:o, s:o, s:o}",
        "format", "m44d-campaign-export", "format_version", 1, "exported_at", now, "campaign", "id",
        c->id, "name", c->name, "ruleset", c->ruleset_id, "what_if", c->what_if, "dice",
        dice_mode_name(c->dice), "status", c->finished ? "finished" : "active", "version",
        (json_int_t)c->version, "scenarios", c->scenarios_json, "seeds",
        json_object_get(standing, "seeds"), "rolls", rolls, "actions", log, "standing", standing);
}
