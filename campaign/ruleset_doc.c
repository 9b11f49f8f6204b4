/* Ruleset documents into struct ruleset: grants, reserve options, victory events, What-if
 * events, scenario lists, outcome. See docs/RULESETS.md for the format. */
#include "campaign/campaign.h"
#include "campaign/ruleset_load.h"
#include "campaign/ruleset_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- grants and reserve options ---- */

static int load_grants(struct ctx *c, json_t *doc)
{
    json_t *g = json_object_get(doc, "grants");
    c->rs->ngrants = 0;
    if (!g)
        return 0;
    size_t m = rj_push(c, "grants");
    if (!json_is_object(g)) {
        int rc = rj_fail(c, "must be an object of grant id -> text");
        rj_pop(c, m);
        return rc;
    }
    const char *key;
    json_t *v;
    json_object_foreach(g, key, v)
    {
        size_t k = rj_push(c, key);
        if (!rj_valid_id(key, RS_GRANT_MAX))
            return rj_fail(c, "grant ids are lowercase letters, digits and '-' (under %d bytes)",
                           RS_GRANT_MAX);
        if (c->rs->ngrants >= RS_MAX_GRANTS)
            return rj_fail(c, "too many grants (at most %d)", RS_MAX_GRANTS);
        struct grant_def *gd = &c->rs->grants[c->rs->ngrants++];
        snprintf(gd->id, sizeof gd->id, "%s", key);
        if (json_is_object(v)) {
            /* {"text", "kept": true}: a token or star the side holds until it is used;
             * {"text", "unit": false}: no new unit comes onto the map (a sandbag, an upgrade) */
            if (rj_check_keys(c, v, "text kept unit") ||
                rj_get_string(c, v, "text", true, gd->text, sizeof gd->text) ||
                rj_get_bool(c, v, "kept", false, &gd->kept) ||
                rj_get_bool(c, v, "unit", !gd->kept, &gd->unit))
                return -1;
            if (gd->kept && gd->unit) {
                size_t u = rj_push(c, "unit");
                int rc = rj_fail(c, "a kept token or star is not a unit");
                rj_pop(c, u);
                return rc;
            }
        } else if (!json_is_string(v) || json_string_length(v) == 0 ||
                   json_string_length(v) >= RS_TEXT_MAX) {
            return rj_fail(c,
                           "must be a non-empty string under %d bytes, or {\"text\", \"kept\", "
                           "\"unit\"}",
                           RS_TEXT_MAX);
        } else {
            snprintf(gd->text, sizeof gd->text, "%s", json_string_value(v));
            gd->unit = true;
        }
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}

int rj_check_grant(struct ctx *c, json_t *v, char *out)
{
    if (!json_is_string(v))
        return rj_fail(c, "must be a grant id");
    if (!ruleset_grant(c->rs, json_string_value(v)))
        return rj_fail(c, "\"%s\" is not defined in $.grants", json_string_value(v));
    snprintf(out, RS_GRANT_MAX, "%s", json_string_value(v));
    return 0;
}

static int load_option(struct ctx *c, const char *key, json_t *o, struct option_def *d)
{
    memset(d, 0, sizeof *d);
    if (!rj_valid_id(key, RS_ID_MAX))
        return rj_fail(c, "option keys are lowercase letters, digits and '-'");
    snprintf(d->key, sizeof d->key, "%s", key);
    if (!json_is_object(o))
        return rj_fail(c, "must be an option object {dice, cost, grants, text} or null");
    if (rj_check_keys(c, o, "dice cost grant_costs grants text reading"))
        return -1;
    json_t *dice = json_object_get(o, "dice");
    size_t m = rj_push(c, "dice");
    if (!json_is_array(dice) || json_array_size(dice) < 1 || json_array_size(dice) > 2)
        return rj_fail(c, "must be an array of 1 or 2 faces");
    d->ndice = (int)json_array_size(dice);
    for (size_t i = 0; i < json_array_size(dice); i++) {
        size_t k = rj_push_index(c, i);
        if (rj_as_face(c, json_array_get(dice, i), &d->dice[i]))
            return -1;
        rj_pop(c, k);
    }
    rj_pop(c, m);
    int cost;
    if (rj_get_int(c, o, "cost", true, 0, 0, 9, &cost) ||
        rj_get_string(c, o, "text", true, d->text, sizeof d->text))
        return -1;
    json_t *grants = json_object_get(o, "grants");
    m = rj_push(c, "grants");
    if (!json_is_array(grants) || json_array_size(grants) < 1 ||
        json_array_size(grants) > RS_MAX_OPTION_GRANTS)
        return rj_fail(c, "must be an array of 1 to %d grant ids", RS_MAX_OPTION_GRANTS);
    d->ngrants = (int)json_array_size(grants);
    for (size_t i = 0; i < json_array_size(grants); i++) {
        size_t k = rj_push_index(c, i);
        if (rj_check_grant(c, json_array_get(grants, i), d->grants[i]))
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(d->grants[i], d->grants[j]) == 0)
                return rj_fail(c, "\"%s\" is listed twice", d->grants[i]);
        d->grant_cost[i] = cost;
        rj_pop(c, k);
    }
    rj_pop(c, m);
    /* "grant_costs": {"grant": n}: an alternative that costs other than "cost" (RULES.md 9). */
    json_t *costs = json_object_get(o, "grant_costs");
    if (!costs)
        return 0;
    m = rj_push(c, "grant_costs");
    if (!json_is_object(costs))
        return rj_fail(c, "must be an object of grant id -> Reserve Tokens");
    const char *gkey;
    json_t *gv;
    json_object_foreach(costs, gkey, gv)
    {
        size_t k = rj_push(c, gkey);
        int g = -1;
        for (int i = 0; i < d->ngrants; i++)
            if (strcmp(d->grants[i], gkey) == 0)
                g = i;
        if (g < 0)
            return rj_fail(c, "is not one of this option's grants");
        if (!json_is_integer(gv) || json_integer_value(gv) < 0 || json_integer_value(gv) > 9)
            return rj_fail(c, "must be an integer from 0 to 9");
        d->grant_cost[g] = (int)json_integer_value(gv);
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}

static int load_reserve(struct ctx *c, json_t *doc)
{
    struct reserve_rules *r = &c->rs->reserve;
    json_t *res = json_object_get(doc, "reserve");
    r->enabled = res != NULL;
    if (!res)
        return 0;
    size_t m = rj_push(c, "reserve");
    if (!json_is_object(res))
        return rj_fail(c, "must be an object, or absent/null for no reserve roll");
    if (rj_check_keys(c, res, "dice options allies axis reading") ||
        rj_get_int(c, res, "dice", true, 2, 1, 8, &r->dice))
        return -1;
    json_t *base = json_object_get(res, "options");
    if (!json_is_object(base)) {
        rj_push(c, "options");
        return rj_fail(c, "must be an object of option key -> option");
    }
    for (int s = 0; s < SIDE_COUNT; s++) {
        /* The side's options: the common ones, with the side's entries added or replacing
         * them (null removes one). */
        json_t *side = json_object_get(res, side_name((enum side)s));
        if (side && !json_is_object(side)) {
            rj_push(c, side_name((enum side)s));
            return rj_fail(c, "must be an object of option key -> option or null");
        }
        json_t *merged = json_deep_copy(base);
        const char *key;
        json_t *v;
        json_object_foreach(side, key, v)
        {
            if (json_is_null(v))
                json_object_del(merged, key);
            else
                json_object_set(merged, key, v);
        }
        r->noptions[s] = 0;
        json_object_foreach(merged, key, v)
        {
            bool own = side && json_object_get(side, key);
            size_t k = rj_push(c, own ? side_name((enum side)s) : "options");
            size_t k2 = rj_push(c, key);
            if (r->noptions[s] >= RS_MAX_OPTIONS) {
                json_decref(merged);
                return rj_fail(c, "too many options (at most %d per side)", RS_MAX_OPTIONS);
            }
            if (load_option(c, key, v, &r->options[s][r->noptions[s]++])) {
                json_decref(merged);
                return -1;
            }
            rj_pop(c, k2);
            rj_pop(c, k);
        }
        json_decref(merged);
    }
    rj_pop(c, m);
    return 0;
}

/* ---- victory events ---- */

static int load_faces(struct ctx *c, json_t *obj, const char *key, enum face *out, int *n,
                      bool seen[FACE_COUNT])
{
    json_t *a = json_object_get(obj, key);
    size_t m = rj_push(c, key);
    if (!json_is_array(a) || json_array_size(a) > FACE_COUNT)
        return rj_fail(c, "must be an array of faces");
    *n = (int)json_array_size(a);
    for (size_t i = 0; i < json_array_size(a); i++) {
        size_t k = rj_push_index(c, i);
        if (rj_as_face(c, json_array_get(a, i), &out[i]))
            return -1;
        if (seen[out[i]])
            return rj_fail(c, "\"%s\" appears twice in order and last", face_name(out[i]));
        seen[out[i]] = true;
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}

static int load_victory(struct ctx *c, json_t *doc)
{
    struct victory_rules *v = &c->rs->victory;
    json_t *ve = json_object_get(doc, "victory_events");
    v->enabled = ve != NULL;
    if (!ve)
        return 0;
    size_t m = rj_push(c, "victory_events");
    if (!json_is_object(ve))
        return rj_fail(c, "must be an object, or absent/null for no victory event roll");
    if (rj_check_keys(c, ve,
                      "from_battle dice order last min_hand instructions commissar_note notes "
                      "reading") ||
        rj_get_int(c, ve, "from_battle", true, 2, 1, 99, &v->from_battle) ||
        rj_get_int(c, ve, "min_hand", true, 1, 1, 20, &v->min_hand) ||
        rj_get_string(c, ve, "commissar_note", false, v->commissar_note, sizeof v->commissar_note))
        return -1;
    json_t *dice = json_object_get(ve, "dice");
    size_t k = rj_push(c, "dice");
    if (!json_is_object(dice))
        return rj_fail(c, "must be an object {base, per_battle_won, previous_medals}");
    if (rj_check_keys(c, dice, "base per_battle_won previous_medals") ||
        rj_get_int(c, dice, "base", true, 2, 0, 20, &v->base_dice) ||
        rj_get_int(c, dice, "per_battle_won", true, 1, 0, 10, &v->per_battle_won) ||
        rj_get_bool(c, dice, "previous_medals", false, &v->previous_medals))
        return -1;
    /* Before the last battle a campaign may have, a side may have won all the others: its roll
     * must still fit (a result's medals are checked when it is recorded). */
    if (v->base_dice + v->per_battle_won * (MAX_BATTLES - 1) > RULES_MAX_DICE)
        return rj_fail(c,
                       "base + per_battle_won x %d battles won is %d dice, more than the %d a roll "
                       "holds",
                       MAX_BATTLES - 1, v->base_dice + v->per_battle_won * (MAX_BATTLES - 1),
                       RULES_MAX_DICE);
    rj_pop(c, k);
    bool seen[FACE_COUNT] = {false};
    if (load_faces(c, ve, "order", v->order, &v->norder, seen) ||
        load_faces(c, ve, "last", v->last, &v->nlast, seen))
        return -1;
    for (int f = 0; f < FACE_COUNT; f++)
        if (!seen[f])
            return rj_fail(c, "\"%s\" must appear in order or last", face_name((enum face)f));
    json_t *ins = json_object_get(ve, "instructions");
    k = rj_push(c, "instructions");
    if (!json_is_object(ins))
        return rj_fail(c, "must be an object of face -> text");
    if (rj_check_keys(c, ins, "infantry armor grenade star flag"))
        return -1;
    for (int f = 0; f < FACE_COUNT; f++)
        if (rj_get_string(c, ins, face_name((enum face)f), true, v->instructions[f],
                          sizeof v->instructions[f]))
            return -1;
    rj_pop(c, k);
    json_t *notes = json_object_get(ve, "notes");
    v->nnotes = 0;
    if (notes) {
        k = rj_push(c, "notes");
        if (!json_is_array(notes) || json_array_size(notes) > RS_MAX_NOTES)
            return rj_fail(c, "must be an array of at most %d strings", RS_MAX_NOTES);
        for (size_t i = 0; i < json_array_size(notes); i++) {
            json_t *s = json_array_get(notes, i);
            size_t k2 = rj_push_index(c, i);
            if (!json_is_string(s) || json_string_length(s) >= RS_TEXT_MAX)
                return rj_fail(c, "must be a string under %d bytes", RS_TEXT_MAX);
            snprintf(v->notes[v->nnotes++], RS_TEXT_MAX, "%s", json_string_value(s));
            rj_pop(c, k2);
        }
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}

/* ---- scenario lists ---- */

static int load_scenario(struct ctx *c, json_t *j, struct scenario_def *s)
{
    memset(s, 0, sizeof *s);
    if (!json_is_object(j))
        return rj_fail(c, "must be a scenario object");
    if (rj_check_keys(c, j, "name first_player cards medals_to_win reserve_tokens_added note") ||
        rj_get_string(c, j, "name", true, s->name, sizeof s->name) ||
        rj_get_pair(c, j, "cards", true, 1, 20, s->cards) ||
        rj_get_int(c, j, "medals_to_win", true, 0, 1, 99, &s->medals_to_win) ||
        rj_get_pair(c, j, "reserve_tokens_added", false, 0, 99, s->tokens_added))
        return -1;
    size_t k = rj_push(c, "first_player");
    if (rj_as_side(c, json_object_get(j, "first_player"), &s->first_player))
        return -1;
    rj_pop(c, k);
    /* Shown with the scenario, not kept in the struct; but it is stored with the list, so it
     * is bounded like every other text. */
    json_t *note = json_object_get(j, "note");
    if (note && (!json_is_string(note) || json_string_length(note) >= RS_TEXT_MAX)) {
        rj_push(c, "note");
        return rj_fail(c, "must be a text of at most %d bytes", RS_TEXT_MAX - 1);
    }
    return 0;
}

static int next_index(struct ctx *c, const struct scenario_list *l, json_t *v, int *out)
{
    if (json_is_string(v) && strcmp(json_string_value(v), "END") == 0) {
        *out = SCENARIO_END;
        return 0;
    }
    int i = json_is_string(v) ? scenario_find(l, json_string_value(v)) : -1;
    if (i < 0)
        return rj_fail(c, "must be a scenario of the list or \"END\"");
    *out = i;
    return 0;
}

static int load_scenarios_at(struct ctx *c, json_t *sc, struct scenario_list *l)
{
    memset(l, 0, sizeof *l);
    if (!json_is_object(sc))
        return rj_fail(c, "must be an object {start, list, branches}");
    if (rj_check_keys(c, sc, "start list branches note") ||
        rj_get_string(c, sc, "note", false, l->note, sizeof l->note))
        return -1;
    json_t *list = json_object_get(sc, "list");
    size_t k = rj_push(c, "list");
    if (!json_is_array(list) || json_array_size(list) < 1 ||
        json_array_size(list) > RS_MAX_SCENARIOS)
        return rj_fail(c, "must be an array of 1 to %d scenarios", RS_MAX_SCENARIOS);
    for (size_t i = 0; i < json_array_size(list); i++) {
        size_t k2 = rj_push_index(c, i);
        if (load_scenario(c, json_array_get(list, i), &l->s[i]))
            return -1;
        for (size_t j = 0; j < i; j++)
            if (strcmp(l->s[i].name, l->s[j].name) == 0)
                return rj_fail(c, "scenario \"%s\" is listed twice", l->s[i].name);
        l->n++;
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    k = rj_push(c, "start");
    json_t *start = json_object_get(sc, "start");
    l->start = json_is_string(start) ? scenario_find(l, json_string_value(start)) : -1;
    if (l->start < 0)
        return rj_fail(c, "must name a scenario of the list");
    rj_pop(c, k);
    json_t *branches = json_object_get(sc, "branches");
    k = rj_push(c, "branches");
    if (!json_is_object(branches))
        return rj_fail(c, "must be an object: scenario -> {\"allies\": next, \"axis\": next}");
    const char *name;
    json_t *b;
    json_object_foreach(branches, name, b)
    {
        size_t k2 = rj_push(c, name);
        if (scenario_find(l, name) < 0)
            return rj_fail(c, "is not a scenario of the list");
        rj_pop(c, k2);
    }
    for (int i = 0; i < l->n; i++) {
        b = json_object_get(branches, l->s[i].name);
        size_t k2 = rj_push(c, l->s[i].name);
        if (!json_is_object(b))
            return rj_fail(
                c, "every scenario needs {\"allies\": next, \"axis\": next} (\"END\" ends)");
        if (rj_check_keys(c, b, "allies axis"))
            return -1;
        for (int s = 0; s < SIDE_COUNT; s++) {
            size_t k3 = rj_push(c, side_name((enum side)s));
            if (next_index(c, l, json_object_get(b, side_name((enum side)s)), &l->s[i].next[s]))
                return -1;
            rj_pop(c, k3);
        }
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    return 0;
}

int scenario_list_from_json(json_t *j, const char *where, struct scenario_list *out, char *err,
                            size_t errlen)
{
    struct ctx c = {.file = "request", .err = err, .errlen = errlen};
    snprintf(c.path, sizeof c.path, "%s", where);
    return load_scenarios_at(&c, j, out);
}

/* ---- outcome ---- */

static int load_outcome(struct ctx *c, json_t *doc)
{
    struct outcome_rules *o = &c->rs->outcome;
    memset(o, 0, sizeof *o);
    o->nrank = 2;
    o->rank_by[0] = RANK_BATTLES_WON;
    o->rank_by[1] = RANK_MEDALS;
    json_t *oc = json_object_get(doc, "outcome");
    if (!oc)
        return 0;
    size_t m = rj_push(c, "outcome");
    if (!json_is_object(oc))
        return rj_fail(c, "must be an object");
    if (rj_check_keys(c, oc, "rank_by grades objective_track reading"))
        return -1;
    json_t *rank = json_object_get(oc, "rank_by");
    if (rank) {
        static const char *const keys[] = {"battles_won", "medals", "victory_points"};
        size_t k = rj_push(c, "rank_by");
        if (!json_is_array(rank) || json_array_size(rank) < 1 || json_array_size(rank) > 3)
            return rj_fail(c, "must be an array of 1 to 3 of battles_won, medals, victory_points");
        o->nrank = (int)json_array_size(rank);
        for (size_t i = 0; i < json_array_size(rank); i++) {
            const char *s = json_string_value(json_array_get(rank, i));
            int found = -1;
            for (int kk = 0; kk < 3 && s; kk++)
                if (strcmp(s, keys[kk]) == 0)
                    found = kk;
            size_t k2 = rj_push_index(c, i);
            if (found < 0)
                return rj_fail(c, "must be battles_won, medals or victory_points");
            o->rank_by[i] = (enum rank_key)found;
            for (size_t j = 0; j < i; j++)
                if (o->rank_by[j] == o->rank_by[i])
                    return rj_fail(c, "is listed twice");
            rj_pop(c, k2);
        }
        rj_pop(c, k);
    }
    json_t *grades = json_object_get(oc, "grades");
    if (grades) {
        size_t k = rj_push(c, "grades");
        if (!json_is_array(grades) || json_array_size(grades) > RS_MAX_GRADES)
            return rj_fail(c, "must be an array of at most %d grades", RS_MAX_GRADES);
        for (size_t i = 0; i < json_array_size(grades); i++) {
            json_t *g = json_array_get(grades, i);
            struct grade_def *gd = &o->grades[i];
            size_t k2 = rj_push_index(c, i);
            if (!json_is_object(g))
                return rj_fail(c, "must be {name, min_margin, points}");
            if (rj_check_keys(c, g, "name min_margin points") ||
                rj_get_string(c, g, "name", true, gd->name, sizeof gd->name) ||
                rj_get_int(c, g, "min_margin", true, 0, 1, 99, &gd->min_margin) ||
                rj_get_int(c, g, "points", true, 0, 0, 99, &gd->points))
                return -1;
            if (i > 0 && gd->min_margin >= o->grades[i - 1].min_margin)
                return rj_fail(c, "grades must be listed from the largest margin down");
            o->ngrades++;
            rj_pop(c, k2);
        }
        rj_pop(c, k);
    }
    json_t *track = json_object_get(oc, "objective_track");
    if (track) {
        size_t k = rj_push(c, "objective_track");
        if (!json_is_object(track))
            return rj_fail(c, "must be {\"allies\": [bonus by count], \"axis\": [...]}");
        if (rj_check_keys(c, track, "allies axis"))
            return -1;
        for (int s = 0; s < SIDE_COUNT; s++) {
            json_t *a = json_object_get(track, side_name((enum side)s));
            if (!a)
                continue;
            size_t k2 = rj_push(c, side_name((enum side)s));
            if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > RS_MAX_TRACK)
                return rj_fail(c,
                               "must be an array of 1 to %d bonuses (index = objective medals; "
                               "the last applies beyond)",
                               RS_MAX_TRACK);
            for (size_t i = 0; i < json_array_size(a); i++) {
                json_t *v = json_array_get(a, i);
                if (!json_is_integer(v) || json_integer_value(v) < -99 ||
                    json_integer_value(v) > 99) {
                    rj_push_index(c, i);
                    return rj_fail(c, "must be an integer from -99 to 99");
                }
                o->track[s][i] = (int)json_integer_value(v);
            }
            o->track_len[s] = (int)json_array_size(a);
            rj_pop(c, k2);
        }
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}

/* ---- battle features and D-Day Landings maps ---- */

static int load_features(struct ctx *c, json_t *doc)
{
    json_t *f = json_object_get(doc, "battle_features");
    c->rs->nfeatures = 0;
    if (!f)
        return 0;
    size_t m = rj_push(c, "battle_features");
    if (!json_is_object(f))
        return rj_fail(c, "must be an object of feature id -> what the set-up says");
    const char *key;
    json_t *v;
    json_object_foreach(f, key, v)
    {
        size_t k = rj_push(c, key);
        if (!rj_valid_id(key, RS_ID_MAX))
            return rj_fail(c, "feature ids are lowercase letters, digits and '-'");
        if (c->rs->nfeatures >= RS_MAX_FEATURES)
            return rj_fail(c, "too many features (at most %d)", RS_MAX_FEATURES);
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            json_string_length(v) >= RS_TEXT_MAX)
            return rj_fail(c, "must be a non-empty string under %d bytes", RS_TEXT_MAX);
        struct feature_def *fd = &c->rs->features[c->rs->nfeatures++];
        snprintf(fd->id, sizeof fd->id, "%s", key);
        snprintf(fd->text, sizeof fd->text, "%s", json_string_value(v));
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}

static int load_combo(struct ctx *c, json_t *j, struct map_rules *mr, struct map_combo *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(j))
        return rj_fail(c, "must be {maps, medals_to_win, cards?, mode?}");
    if (rj_check_keys(c, j, "maps medals_to_win cards mode") ||
        rj_get_int(c, j, "medals_to_win", true, 0, 1, 200, &out->medals_to_win) ||
        rj_get_string(c, j, "mode", false, out->mode, sizeof out->mode))
        return -1;
    out->has_cards = json_object_get(j, "cards") != NULL;
    if (out->has_cards && rj_get_pair(c, j, "cards", true, 1, 30, out->cards))
        return -1;
    json_t *maps = json_object_get(j, "maps");
    size_t k = rj_push(c, "maps");
    if (!json_is_array(maps) || json_array_size(maps) < 2 || json_array_size(maps) > RS_MAX_MAPS)
        return rj_fail(c, "must list 2 to %d maps", RS_MAX_MAPS);
    for (size_t i = 0; i < json_array_size(maps); i++) {
        size_t k2 = rj_push_index(c, i);
        int idx = map_find(mr, json_string_value(json_array_get(maps, i)));
        if (idx < 0)
            return rj_fail(c, "must be a map of $.maps.maps");
        for (int p = 0; p < out->nmaps; p++)
            if (out->maps[p] == idx)
                return rj_fail(c, "is listed twice");
        out->maps[out->nmaps++] = idx;
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    return 0;
}

static int load_maps(struct ctx *c, json_t *doc)
{
    struct map_rules *mr = &c->rs->maps;
    memset(mr, 0, sizeof *mr);
    json_t *mj = json_object_get(doc, "maps");
    if (!mj)
        return 0;
    size_t m = rj_push(c, "maps");
    if (!json_is_object(mj) || rj_check_keys(c, mj, "maps combinations reading"))
        return json_is_object(mj) ? -1 : rj_fail(c, "must be {maps, combinations}");
    json_t *maps = json_object_get(mj, "maps");
    size_t k = rj_push(c, "maps");
    if (!json_is_object(maps) || json_object_size(maps) > RS_MAX_MAPS)
        return rj_fail(c, "must be an object of at most %d map id -> name", RS_MAX_MAPS);
    const char *key;
    json_t *v;
    json_object_foreach(maps, key, v)
    {
        size_t k2 = rj_push(c, key);
        if (!rj_valid_id(key, RS_ID_MAX))
            return rj_fail(c, "map ids are lowercase letters, digits and '-'");
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            json_string_length(v) >= RS_NAME_MAX)
            return rj_fail(c, "must be the map's name");
        struct map_def *md = &mr->maps[mr->nmaps++];
        snprintf(md->id, sizeof md->id, "%s", key);
        snprintf(md->name, sizeof md->name, "%s", json_string_value(v));
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    json_t *combos = json_object_get(mj, "combinations");
    k = rj_push(c, "combinations");
    if (!json_is_array(combos) || json_array_size(combos) > RS_MAX_COMBOS)
        return rj_fail(c, "must be an array of at most %d combinations", RS_MAX_COMBOS);
    for (size_t i = 0; i < json_array_size(combos); i++) {
        size_t k2 = rj_push_index(c, i);
        struct map_combo *mc = &mr->combos[mr->ncombos];
        if (load_combo(c, json_array_get(combos, i), mr, mc))
            return -1;
        if (map_combination(mr, mc->maps, mc->nmaps))
            return rj_fail(c, "the same maps are combined twice");
        mr->ncombos++;
        rj_pop(c, k2);
    }
    rj_pop(c, k);
    rj_pop(c, m);
    return 0;
}

/* ---- a whole ruleset ---- */

int rj_load_doc(struct ctx *c, json_t *doc)
{
    struct ruleset *rs = c->rs;
    if (!json_is_object(doc))
        return rj_fail(c, "a ruleset is a JSON object");
    if (rj_check_keys(c, doc,
                      "id name description source reserve_tokens reserve_placement grants "
                      "battle_features maps reserve victory_events what_if scenarios outcome "
                      "readings"))
        return -1;
    if (rj_get_string(c, doc, "id", true, rs->id, sizeof rs->id))
        return -1;
    if (!rj_valid_id(rs->id, RS_ID_MAX)) {
        rj_push(c, "id");
        return rj_fail(c, "ids are lowercase letters, digits and '-'");
    }
    json_t *readings = json_object_get(doc, "readings");
    if (readings && !json_is_object(readings)) {
        rj_push(c, "readings");
        return rj_fail(c, "must be an object of name -> text");
    }
    if (rj_get_string(c, doc, "name", true, rs->name, sizeof rs->name) ||
        rj_get_string(c, doc, "description", true, rs->description, sizeof rs->description) ||
        rj_get_string(c, doc, "source", false, rs->source, sizeof rs->source) ||
        rj_get_string(c, doc, "reserve_placement", false, rs->reserve_placement,
                      sizeof rs->reserve_placement) ||
        rj_get_pair(c, doc, "reserve_tokens", false, 0, 99, rs->tokens_default) ||
        load_grants(c, doc) || load_features(c, doc) || load_maps(c, doc) || load_reserve(c, doc) ||
        load_victory(c, doc) || rj_load_what_if(c, doc) || load_outcome(c, doc))
        return -1;
    json_t *sc = json_object_get(doc, "scenarios");
    if (sc) {
        size_t k = rj_push(c, "scenarios");
        if (load_scenarios_at(c, sc, &rs->scenarios))
            return -1;
        rj_pop(c, k);
    }
    if (!rs->reserve.enabled && (rs->tokens_default[0] || rs->tokens_default[1])) {
        rj_push(c, "reserve_tokens");
        return rj_fail(c, "a ruleset without a reserve roll has no Reserve Tokens");
    }
    return 0;
}

struct ruleset *ruleset_from_json(json_t *doc, const char *file, char *err, size_t errlen)
{
    struct ruleset *rs = calloc(1, sizeof *rs);
    if (!rs) {
        snprintf(err, errlen, "%s: out of memory", file);
        return NULL;
    }
    struct ctx c = {.file = file, .err = err, .errlen = errlen, .rs = rs};
    if (rj_load_doc(&c, doc)) {
        free(rs);
        return NULL;
    }
    return rs;
}
