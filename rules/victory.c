/* Victory event rolls (RULES.md 4) and the simplified rules' pre-battle rolls (RULES.md 6). */
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

long victory_dice_needed(const struct ruleset *rs, int battle, int battles_won, int medals_previous)
{
    const struct victory_rules *v = &rs->victory;
    if (!v->enabled || battle < v->from_battle)
        return 0;
    long n = (long)v->base_dice + (long)v->per_battle_won * (battles_won > 0 ? battles_won : 0);
    if (v->previous_medals)
        n += medals_previous > 0 ? medals_previous : 0;
    return n;
}

int victory_dice(const struct ruleset *rs, int battle, int battles_won, int medals_previous)
{
    long n = victory_dice_needed(rs, battle, battles_won, medals_previous);
    return n > RULES_MAX_DICE ? RULES_MAX_DICE : (int)n;
}

void rules_format(const char *tmpl, enum side roller, char *out, size_t len)
{
    size_t o = 0;
    if (!len)
        return;
    for (const char *p = tmpl; *p && o + 1 < len;) {
        const char *word = NULL;
        size_t skip = 0;
        if (strncmp(p, "{roller}", 8) == 0)
            word = side_adjective(roller), skip = 8;
        else if (strncmp(p, "{opponent}", 10) == 0)
            word = side_adjective(side_other(roller)), skip = 10;
        if (word) {
            for (const char *w = word; *w && o + 1 < len; w++)
                out[o++] = *w;
            p += skip;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

static void add(const struct ruleset *rs, struct victory_outcome *out, enum side roller,
                enum face f)
{
    if (out->n >= RULES_MAX_INSTRUCTIONS)
        return;
    struct instruction *in = &out->list[out->n++];
    in->roller = roller;
    in->face = f;
    rules_format(rs->victory.instructions[f], roller, in->text, sizeof in->text);
}

static int count_face(const enum face *faces, int n, enum face f)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += faces[i] == f;
    return c;
}

void victory_resolve(const struct ruleset *rs, enum side first_player,
                     const enum face *const faces[SIDE_COUNT], const int nfaces[SIDE_COUNT],
                     const int cards[SIDE_COUNT], int commissar, struct victory_outcome *out)
{
    const struct victory_rules *v = &rs->victory;
    memset(out, 0, sizeof *out);
    enum side order[2] = {first_player, side_other(first_player)};
    /* Each side in turn, first player first: its faces in the ruleset's order. */
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < v->norder; k++)
            for (int c = count_face(faces[order[s]], nfaces[order[s]], v->order[k]); c > 0; c--)
                add(rs, out, order[s], v->order[k]);
    /* Then the faces resolved last (grenades), first player's before the other's. */
    for (int k = 0; k < v->nlast; k++)
        for (int s = 0; s < 2; s++)
            for (int c = count_face(faces[order[s]], nfaces[order[s]], v->last[k]); c > 0; c--)
                add(rs, out, order[s], v->last[k]);
    int min_hand = v->min_hand > 0 ? v->min_hand : 1;
    for (int s = 0; s < SIDE_COUNT; s++) {
        enum side opp = side_other((enum side)s);
        out->stars_against[s] = count_face(faces[opp], nfaces[opp], FACE_STAR);
        int hand = cards[s] - out->stars_against[s];
        out->hand[s] = hand < min_hand ? min_hand : hand;
        out->commissar_note[s] = commissar == s && out->hand[s] == 1;
    }
}
