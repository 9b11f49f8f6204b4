#include "rules/to_json.h"

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
    json_t *dice = json_array(), *grants = json_array();
    for (int d = 0; d < o->ndice; d++)
        json_array_append_new(dice, json_integer(o->dice[d]));
    for (int g = 0; g < o->ngrants; g++)
        json_array_append_new(grants, json_string(o->grants[g]));
    return json_pack("{s:s, s:o, s:i, s:o, s:s}", "id", o->id, "dice", dice, "cost", o->cost,
                     "grants", grants, "text", o->text);
}

json_t *options_to_json(const struct option_list *list)
{
    json_t *a = json_array();
    for (int i = 0; i < list->n; i++)
        json_array_append_new(a, option_to_json(&list->o[i]));
    return a;
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
