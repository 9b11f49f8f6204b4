#include "campaign/rules_json.h"

#include <stdio.h>
#include <string.h>

json_t *faces_to_json(const enum face *faces, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(face_name(faces[i])));
    return a;
}

int faces_from_json(json_t *j, enum face *out, int max)
{
    if (!json_is_array(j) || json_array_size(j) < 1 || json_array_size(j) > (size_t)max)
        return -1;
    for (size_t i = 0; i < json_array_size(j); i++)
        if (!face_parse(json_string_value(json_array_get(j, i)), &out[i]))
            return -1;
    return (int)json_array_size(j);
}

json_t *option_to_json(const struct option *o)
{
    json_t *dice = json_array(), *grants = json_array(), *costs = json_array();
    for (int d = 0; d < o->ndice; d++)
        json_array_append_new(dice, json_integer(o->dice[d]));
    for (int g = 0; g < o->ngrants; g++) {
        json_array_append_new(grants, json_string(o->grants[g]));
        json_array_append_new(costs, json_integer(o->grant_cost[g]));
    }
    return json_pack("{s:s, s:o, s:i, s:o, s:o, s:s}", "id", o->id, "dice", dice, "cost", o->cost,
                     "grants", grants, "costs", costs, "text", o->text);
}

json_t *options_to_json(const struct option_list *list)
{
    json_t *a = json_array();
    for (int i = 0; i < list->n; i++)
        json_array_append_new(a, option_to_json(&list->o[i]));
    return a;
}

int options_from_json(json_t *a, struct option_list *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_array(a) || json_array_size(a) > RULES_MAX_OFFERED)
        return -1;
    size_t i;
    json_t *o;
    json_array_foreach(a, i, o)
    {
        struct option *op = &out->o[out->n];
        const char *id = json_string_value(json_object_get(o, "id"));
        const char *text = json_string_value(json_object_get(o, "text"));
        json_t *dice = json_object_get(o, "dice"), *grants = json_object_get(o, "grants");
        if (!id || !text || !json_is_array(dice) || json_array_size(dice) < 1 ||
            json_array_size(dice) > 2 || !json_is_array(grants) || json_array_size(grants) < 1 ||
            json_array_size(grants) > RS_MAX_OPTION_GRANTS ||
            !json_is_integer(json_object_get(o, "cost")))
            return -1;
        snprintf(op->id, sizeof op->id, "%s", id);
        snprintf(op->key, sizeof op->key, "%.*s", (int)strcspn(id, "@"), id);
        snprintf(op->text, sizeof op->text, "%s", text);
        op->cost = (int)json_integer_value(json_object_get(o, "cost"));
        op->ndice = (int)json_array_size(dice);
        op->dice[1] = -1;
        for (int d = 0; d < op->ndice; d++)
            op->dice[d] = (int)json_integer_value(json_array_get(dice, (size_t)d));
        op->ngrants = (int)json_array_size(grants);
        /* "costs" per alternative; options stored before it existed cost "cost" each. */
        json_t *costs = json_object_get(o, "costs");
        for (int g = 0; g < op->ngrants; g++) {
            const char *grant = json_string_value(json_array_get(grants, (size_t)g));
            json_t *c = json_array_get(costs, (size_t)g);
            snprintf(op->grants[g], RS_GRANT_MAX, "%s", grant ? grant : "");
            op->grant_cost[g] = json_is_integer(c) ? (int)json_integer_value(c) : op->cost;
        }
        out->n++;
    }
    return 0;
}

json_t *scope_to_json(const struct scope *sc)
{
    static const char *const kinds[] = {"none", "campaign", "except", "only", "battles", "picked"};
    json_t *j = json_pack("{s:s}", "kind", kinds[sc->kind]);
    if (sc->nresults) {
        json_t *a = json_array();
        for (int i = 0; i < sc->nresults; i++)
            json_array_append_new(a, json_integer(sc->results[i]));
        json_object_set_new(j, "results", a);
    }
    if (sc->kind == SCOPE_EXCEPT || sc->kind == SCOPE_ONLY) {
        json_t *a = json_array();
        for (int i = 0; i < sc->n; i++)
            json_array_append_new(a, json_string(sc->scenarios[i]));
        json_object_set_new(j, "scenarios", a);
    } else if (sc->kind == SCOPE_BATTLES) {
        json_t *a = json_array();
        for (int i = 0; i < sc->n; i++)
            json_array_append_new(a, json_integer(sc->battles[i]));
        json_object_set_new(j, "battles", a);
    }
    return j;
}

json_t *instruction_to_json(const struct instruction *in)
{
    return json_pack("{s:s, s:s, s:s}", "roller", side_name(in->roller), "face",
                     face_name(in->face), "text", in->text);
}

json_t *victory_to_json(const struct ruleset *rs, const struct victory_outcome *v)
{
    json_t *list = json_array(), *notes = json_array();
    for (int i = 0; i < v->n; i++)
        json_array_append_new(list, instruction_to_json(&v->list[i]));
    for (int i = 0; i < rs->victory.nnotes; i++)
        json_array_append_new(notes, json_string(rs->victory.notes[i]));
    for (int s = 0; s < SIDE_COUNT; s++)
        if (v->commissar_note[s] && rs->victory.commissar_note[0]) {
            char text[RS_TEXT_MAX + 64];
            rules_format(rs->victory.commissar_note, (enum side)s, text, sizeof text);
            json_array_append_new(notes, json_string(text));
        }
    return json_pack("{s:o, s:{s:i, s:i}, s:o}", "instructions", list, "starting_hand", "allies",
                     v->hand[SIDE_ALLIES], "axis", v->hand[SIDE_AXIS], "notes", notes);
}
