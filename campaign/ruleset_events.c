/* Ruleset documents: "What if?" events, their effects and scopes (docs/RULESETS.md). */
#include "campaign/ruleset_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- What-if events ---- */

static int load_int_list(struct ctx *c, json_t *a, int *out, int *n)
{
    if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > RS_MAX_SCOPE_ITEMS)
        return rj_fail(c, "must be an array of 1 to %d battle numbers", RS_MAX_SCOPE_ITEMS);
    *n = (int)json_array_size(a);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_integer(e) || json_integer_value(e) < 1 || json_integer_value(e) > 99) {
            rj_push_index(c, i);
            return rj_fail(c, "must be a battle number from 1 to 99");
        }
        out[i] = (int)json_integer_value(e);
    }
    return 0;
}

static int load_scope(struct ctx *c, json_t *sc, struct scope *out)
{
    static const char *const kinds[] = {"none", "campaign", "except", "only", "battles", "picked"};
    memset(out, 0, sizeof *out);
    size_t m = rj_push(c, "scope");
    if (!json_is_object(sc))
        return rj_fail(c, "must be an object {kind, ...}");
    if (rj_check_keys(c, sc, "kind scenarios battles results"))
        return -1;
    const char *kind = json_string_value(json_object_get(sc, "kind"));
    int found = -1;
    for (int i = 0; i < 6 && kind; i++)
        if (strcmp(kind, kinds[i]) == 0)
            found = i;
    if (found < 0) {
        rj_push(c, "kind");
        if (kind && strcmp(kind, "once") == 0)
            return rj_fail(c, "\"once\" is no longer a scope: say at which battles the event is "
                              "shown (\"battles\") and with which battles' results (\"results\")");
        return rj_fail(c, "must be one of none, campaign, except, only, battles, picked");
    }
    out->kind = (enum scope_kind)found;
    bool named = out->kind == SCOPE_EXCEPT || out->kind == SCOPE_ONLY;
    const char *list = named ? "scenarios" : "battles";
    json_t *a = json_object_get(sc, list);
    if ((named || out->kind == SCOPE_BATTLES) != (a != NULL) ||
        json_object_get(sc, named ? "battles" : "scenarios"))
        return rj_fail(
            c, "kind \"%s\" %s", kind,
            named ? "takes \"scenarios\" only"
                  : (out->kind == SCOPE_BATTLES ? "takes \"battles\" only" : "takes no list"));
    json_t *results = json_object_get(sc, "results");
    if (results) {
        size_t k = rj_push(c, "results");
        if (load_int_list(c, results, out->results, &out->nresults))
            return -1;
        rj_pop(c, k);
    }
    if (!a) {
        rj_pop(c, m);
        return 0;
    }
    size_t k = rj_push(c, list);
    if (!named) {
        if (load_int_list(c, a, out->battles, &out->n))
            return -1;
        rj_pop(c, k);
        rj_pop(c, m);
        return 0;
    }
    if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > RS_MAX_SCOPE_ITEMS)
        return rj_fail(c, "must be an array of 1 to %d scenario names", RS_MAX_SCOPE_ITEMS);
    out->n = (int)json_array_size(a);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *e = json_array_get(a, i);
        size_t k2 = rj_push_index(c, i);
        if (!json_is_string(e) || json_string_length(e) == 0 ||
            json_string_length(e) >= RS_NAME_MAX)
            return rj_fail(c, "must be a scenario name");
        snprintf(out->scenarios[i], RS_NAME_MAX, "%s", json_string_value(e));
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    rj_pop(c, m);
    return 0;
}

static const char *const effect_types[] = {"tokens",          "grant",        "remove_grants",
                                           "first_player",    "no_commissar", "extra_what_if",
                                           "pre_battle_roll", "pick_battle"};

/* The keys each effect type takes besides "type". */
static const char *const effect_keys[] = {
    "side op amount after_battle",      "side from to", "side grants", "side", "", "side",
    "side roll dice hits feature text", "side"};

static int load_side(struct ctx *c, json_t *e, bool roller_ok, enum effect_side *out)
{
    const char *side = json_string_value(json_object_get(e, "side"));
    enum side s;
    if (roller_ok && side && strcmp(side, "roller") == 0) {
        *out = EFFECT_ROLLER;
        return 0;
    }
    if (!side || !side_parse(side, &s)) {
        rj_push(c, "side");
        return rj_fail(c, roller_ok ? "must be \"allies\", \"axis\" or \"roller\""
                                    : "must be \"allies\" or \"axis\"");
    }
    *out = (enum effect_side)s;
    return 0;
}

static int load_pre_battle(struct ctx *c, json_t *e, struct effect_def *out)
{
    if (rj_get_string(c, e, "roll", true, out->roll, sizeof out->roll) ||
        rj_get_int(c, e, "dice", true, 0, 1, 20, &out->dice) ||
        rj_get_string(c, e, "feature", true, out->feature, sizeof out->feature) ||
        rj_get_string(c, e, "text", true, out->text, sizeof out->text))
        return -1;
    if (!rj_valid_id(out->roll, RS_ID_MAX)) {
        rj_push(c, "roll");
        return rj_fail(c, "a roll id is lowercase letters, digits and '-'");
    }
    bool known = false;
    for (int f = 0; f < c->rs->nfeatures; f++)
        known |= strcmp(c->rs->features[f].id, out->feature) == 0;
    if (!known) {
        rj_push(c, "feature");
        return rj_fail(c, "must be a feature of $.battle_features");
    }
    json_t *hits = json_object_get(e, "hits");
    size_t k = rj_push(c, "hits");
    if (!json_is_array(hits) || json_array_size(hits) < 1 || json_array_size(hits) > FACE_COUNT)
        return rj_fail(c, "must list the faces that are hits");
    for (size_t i = 0; i < json_array_size(hits); i++) {
        size_t k2 = rj_push_index(c, i);
        if (rj_as_face(c, json_array_get(hits, i), &out->hits[out->nhits++]))
            return -1;
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    return 0;
}

static int load_effect(struct ctx *c, json_t *e, struct effect_def *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(e))
        return rj_fail(c, "must be an effect object");
    const char *type = json_string_value(json_object_get(e, "type"));
    int t = -1;
    for (int i = 0; type && i < (int)(sizeof effect_types / sizeof effect_types[0]); i++)
        if (strcmp(type, effect_types[i]) == 0)
            t = i;
    if (t < 0) {
        rj_push(c, "type");
        return rj_fail(c, "must be tokens, grant, remove_grants, first_player, no_commissar, "
                          "extra_what_if, pre_battle_roll or pick_battle");
    }
    out->type = (enum effect_type)t;
    char keys[128];
    snprintf(keys, sizeof keys, "type %s", effect_keys[t]);
    if (rj_check_keys(c, e, keys))
        return -1;
    if (out->type != EFFECT_NO_COMMISSAR && load_side(c, e, out->type == EFFECT_TOKENS, &out->side))
        return -1;
    switch (out->type) {
    case EFFECT_TOKENS: {
        const char *op = json_string_value(json_object_get(e, "op"));
        if (!op || (strcmp(op, "add") && strcmp(op, "set"))) {
            rj_push(c, "op");
            return rj_fail(c, "must be \"add\" or \"set\"");
        }
        out->op = strcmp(op, "add") == 0 ? TOKENS_ADD : TOKENS_SET;
        if (rj_get_int(c, e, "amount", true, 0, -99, 99, &out->amount) ||
            rj_get_int(c, e, "after_battle", false, 0, 0, 99, &out->after_battle))
            return -1;
        if (out->op == TOKENS_SET && out->amount < 0) {
            rj_push(c, "amount");
            return rj_fail(c, "a count is set to 0 or more");
        }
        return 0;
    }
    case EFFECT_GRANT: {
        size_t k = rj_push(c, "from");
        if (rj_check_grant(c, json_object_get(e, "from"), out->from))
            return -1;
        rj_pop(c, k);
        k = rj_push(c, "to");
        if (rj_check_grant(c, json_object_get(e, "to"), out->to))
            return -1;
        rj_pop(c, k);
        return 0;
    }
    case EFFECT_REMOVE_GRANTS: {
        json_t *g = json_object_get(e, "grants");
        size_t k = rj_push(c, "grants");
        if (!json_is_array(g) || json_array_size(g) < 1 ||
            json_array_size(g) > RS_MAX_EFFECT_GRANTS)
            return rj_fail(c, "must list 1 to %d grant ids", RS_MAX_EFFECT_GRANTS);
        for (size_t i = 0; i < json_array_size(g); i++) {
            size_t k2 = rj_push_index(c, i);
            if (rj_check_grant(c, json_array_get(g, i), out->grants[out->ngrants++]))
                return -1;
            rj_pop(c, k2);
        }
        rj_pop(c, k);
        return 0;
    }
    case EFFECT_PRE_BATTLE_ROLL:
        return load_pre_battle(c, e, out);
    case EFFECT_FIRST_PLAYER:
    case EFFECT_NO_COMMISSAR:
    case EFFECT_EXTRA_WHAT_IF:
    case EFFECT_PICK_BATTLE:
        return 0;
    }
    return 0;
}

static int load_event(struct ctx *c, const char *id, json_t *ev, struct event_def *out)
{
    memset(out, 0, sizeof *out);
    if (!rj_valid_id(id, RS_ID_MAX))
        return rj_fail(c, "event ids are lowercase letters, digits and '-'");
    snprintf(out->id, sizeof out->id, "%s", id);
    if (!json_is_object(ev))
        return rj_fail(c, "must be an event object");
    if (rj_check_keys(c, ev, "name text effects scope stacks reading") ||
        rj_get_string(c, ev, "name", true, out->name, sizeof out->name) ||
        rj_get_string(c, ev, "text", true, out->text, sizeof out->text) ||
        rj_get_bool(c, ev, "stacks", false, &out->stacks) ||
        load_scope(c, json_object_get(ev, "scope"), &out->scope))
        return -1;
    json_t *effects = json_object_get(ev, "effects");
    size_t m = rj_push(c, "effects");
    if (effects && (!json_is_array(effects) || json_array_size(effects) > RS_MAX_EFFECTS))
        return rj_fail(c, "must be an array of at most %d effects", RS_MAX_EFFECTS);
    for (size_t i = 0; i < json_array_size(effects); i++) {
        size_t k = rj_push_index(c, i);
        if (load_effect(c, json_array_get(effects, i), &out->effects[i]))
            return -1;
        out->neffects++;
        rj_pop(c, k);
    }
    rj_pop(c, m);
    if ((event_effect(out, EFFECT_PICK_BATTLE) != NULL) != (out->scope.kind == SCOPE_PICKED)) {
        rj_push(c, "scope");
        return rj_fail(c, "an event with a pick_battle effect has scope \"picked\", and only it");
    }
    return 0;
}

int rj_load_what_if(struct ctx *c, json_t *doc)
{
    struct what_if_rules *w = &c->rs->what_if;
    json_t *wi = json_object_get(doc, "what_if");
    w->enabled = wi != NULL;
    if (!wi)
        return 0;
    size_t m = rj_push(c, "what_if");
    if (!json_is_object(wi))
        return rj_fail(c, "must be an object, or absent/null for no What-if events");
    if (rj_check_keys(c, wi, "faces face_note events allies axis reading") ||
        rj_get_string(c, wi, "face_note", false, w->face_note, sizeof w->face_note))
        return -1;
    json_t *faces = json_object_get(wi, "faces");
    size_t k = rj_push(c, "faces");
    if (!json_is_array(faces) || json_array_size(faces) != 5)
        return rj_fail(c, "must list the 5 symbols in the order the events are listed");
    bool seen[FACE_COUNT] = {false};
    for (size_t i = 0; i < 5; i++) {
        size_t k2 = rj_push_index(c, i);
        if (rj_as_face(c, json_array_get(faces, i), &w->faces[i]))
            return -1;
        if (seen[w->faces[i]])
            return rj_fail(c, "\"%s\" is listed twice", face_name(w->faces[i]));
        seen[w->faces[i]] = true;
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    json_t *events = json_object_get(wi, "events");
    k = rj_push(c, "events");
    if (!json_is_object(events) || json_object_size(events) == 0)
        return rj_fail(c, "must be an object of event id -> event");
    const char *id;
    json_t *ev;
    w->nevents = 0;
    json_object_foreach(events, id, ev)
    {
        size_t k2 = rj_push(c, id);
        if (w->nevents >= RS_MAX_EVENTS)
            return rj_fail(c, "too many events (at most %d)", RS_MAX_EVENTS);
        if (load_event(c, id, ev, &w->events[w->nevents++]))
            return -1;
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    for (int s = 0; s < SIDE_COUNT; s++) {
        json_t *col = json_object_get(wi, side_name((enum side)s));
        k = rj_push(c, side_name((enum side)s));
        if (!json_is_array(col) || json_array_size(col) != 5)
            return rj_fail(c,
                           "must list 5 event ids, one per symbol in the order of $.what_if.faces");
        for (size_t i = 0; i < 5; i++) {
            const char *eid = json_string_value(json_array_get(col, i));
            int found = -1;
            for (int e = 0; e < w->nevents && eid; e++)
                if (strcmp(w->events[e].id, eid) == 0)
                    found = e;
            size_t k2 = rj_push_index(c, i);
            if (found < 0)
                return rj_fail(c, "must name an event of $.what_if.events");
            w->column[s][i] = found;
            rj_pop(c, k2);
        }
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}
