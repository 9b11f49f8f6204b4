/* "What if?" events (RULES.md 5): which event a die picks, token effects, standing scopes. */
#include "rules/rules.h"

#include <ctype.h>
#include <string.h>

const struct event_def *what_if_event(const struct ruleset *rs, enum side roller, enum face f)
{
    const struct what_if_rules *w = &rs->what_if;
    if (!w->enabled)
        return NULL;
    for (int pos = 0; pos < 5; pos++)
        if (w->faces[pos] == f)
            return &w->events[w->column[roller][pos]];
    return NULL;
}

static enum side effect_side(const struct effect_def *e, enum side roller)
{
    return e->side == EFFECT_ROLLER ? roller : (enum side)e->side;
}

static bool apply_tokens(const struct effect_def *e, enum side side, int tokens[SIDE_COUNT])
{
    int before = tokens[side];
    long v = e->op == TOKENS_SET ? e->amount : (long)tokens[side] + e->amount;
    tokens[side] = v < 0 ? 0 : (v > 1000000 ? 1000000 : (int)v);
    return tokens[side] != before;
}

bool what_if_apply_now(const struct event_def *ev, enum side roller, bool already,
                       int tokens[SIDE_COUNT])
{
    if (already && !ev->stacks)
        return false;
    bool changed = false;
    for (int i = 0; i < ev->neffects; i++) {
        const struct effect_def *e = &ev->effects[i];
        if (e->type == EFFECT_TOKENS && e->after_battle == 0)
            changed |= apply_tokens(e, effect_side(e, roller), tokens);
    }
    return changed;
}

bool what_if_apply_after_battle(const struct event_def *ev, const enum side *rollers, int nrollers,
                                int battle, int tokens[SIDE_COUNT])
{
    bool changed = false;
    int times = ev->stacks ? nrollers : (nrollers > 0 ? 1 : 0);
    for (int t = 0; t < times; t++)
        for (int i = 0; i < ev->neffects; i++) {
            const struct effect_def *e = &ev->effects[i];
            if (e->type == EFFECT_TOKENS && e->after_battle == battle)
                changed |= apply_tokens(e, effect_side(e, rollers[t]), tokens);
        }
    return changed;
}

void what_if_option_mods(const struct event_def *ev, enum side side, struct option_mods *mods)
{
    for (int i = 0; i < ev->neffects; i++) {
        const struct effect_def *e = &ev->effects[i];
        if ((enum side)e->side != side)
            continue;
        if (e->type == EFFECT_GRANT && mods->nrewrites < RULES_MAX_REWRITES) {
            struct grant_rewrite *rw = &mods->rewrites[mods->nrewrites++];
            memcpy(rw->from, e->from, sizeof rw->from);
            memcpy(rw->to, e->to, sizeof rw->to);
            memcpy(rw->by, ev->name, sizeof rw->by);
        } else if (e->type == EFFECT_REMOVE_GRANTS) {
            for (int g = 0; g < e->ngrants && mods->nremovals < RULES_MAX_REMOVALS; g++) {
                memcpy(mods->removals[mods->nremovals], e->grants[g], RS_GRANT_MAX);
                memcpy(mods->removal_by[mods->nremovals++], ev->name, RS_NAME_MAX);
            }
        }
    }
}

const struct effect_def *event_effect(const struct event_def *ev, enum effect_type type)
{
    for (int i = 0; i < ev->neffects; i++)
        if (ev->effects[i].type == type)
            return &ev->effects[i];
    return NULL;
}

static const char *skip_spaces(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* The next character of a name as a code point, lower case: ASCII, Latin-1 and Latin
 * Extended-A ("MONT PINÇON", "ŁÓDŹ"), the letters of the scenarios' places. A byte that does not
 * start a valid two-byte sequence is taken as it is. */
static unsigned next_folded(const char **p)
{
    const unsigned char *s = (const unsigned char *)*p;
    unsigned cp = s[0];
    if (cp >= 0xC2 && cp <= 0xDF && (s[1] & 0xC0) == 0x80) {
        cp = ((cp & 0x1Fu) << 6) | (s[1] & 0x3Fu);
        *p += 2;
    } else {
        *p += cp ? 1 : 0;
        return cp < 0x80 ? (unsigned)tolower((int)cp) : cp | 0x10000u; /* a stray byte */
    }
    if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) /* À..Þ but × */
        return cp + 0x20;
    if ((cp >= 0x100 && cp <= 0x137) || (cp >= 0x14A && cp <= 0x177)) /* Ā ā .. Ķ ķ, Ŋ ŋ .. Ŷ ŷ */
        return cp == 0x130 ? 'i' : cp | 1u;                           /* İ */
    if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E)) /* Ĺ ĺ .. Ň ň, Ź ź .. Ž ž */
        return cp & 1u ? cp + 1 : cp;
    if (cp == 0x178) /* Ÿ */
        return 0xFF;
    return cp;
}

bool scenario_names_match(const char *a, const char *b)
{
    if (!a || !b)
        return false;
    a = skip_spaces(a);
    b = skip_spaces(b);
    for (;;) {
        const char *na = skip_spaces(a), *nb = skip_spaces(b);
        bool sa = na != a, sb = nb != b;
        if (sa || sb) {
            /* A run of spaces matches a run of spaces, or the end of the other name. */
            if (sa != sb)
                return (sa && !*na && !*b) || (sb && !*nb && !*a);
            a = na, b = nb;
            if (!*a || !*b)
                return !*a && !*b;
        }
        if (!*a || !*b)
            return !*a && !*b;
        if (next_folded(&a) != next_folded(&b))
            return false;
    }
}

bool scope_applies(const struct scope *sc, int number, const char *scenario, int picked)
{
    bool named = false;
    switch (sc->kind) {
    case SCOPE_NONE:
        return false;
    case SCOPE_CAMPAIGN:
        return true;
    case SCOPE_PICKED:
        return picked > 0 && picked == number;
    case SCOPE_BATTLES:
        for (int i = 0; i < sc->n; i++)
            if (sc->battles[i] == number)
                return true;
        return false;
    case SCOPE_EXCEPT:
    case SCOPE_ONLY:
        for (int i = 0; i < sc->n; i++)
            named |= scenario_names_match(scenario, sc->scenarios[i]);
        return sc->kind == SCOPE_ONLY ? named : !named;
    }
    return false;
}

bool scope_applies_result(const struct scope *sc, int number)
{
    for (int i = 0; i < sc->nresults; i++)
        if (sc->results[i] == number)
            return true;
    return false;
}

void what_if_battle_overrides(const struct event_def *const *events, int n,
                              struct battle_overrides *out)
{
    out->first_player = -1;
    out->no_commissar = false;
    for (int k = 0; k < n; k++) {
        const struct event_def *ev = events[k];
        for (int i = 0; i < ev->neffects; i++) {
            if (ev->effects[i].type == EFFECT_FIRST_PLAYER)
                out->first_player = (int)ev->effects[i].side;
            else if (ev->effects[i].type == EFFECT_NO_COMMISSAR)
                out->no_commissar = true;
        }
    }
}

const struct effect_def *what_if_pre_battle_roll(const struct event_def *ev,
                                                 const char (*features)[RS_ID_MAX], int nfeatures)
{
    const struct effect_def *e = event_effect(ev, EFFECT_PRE_BATTLE_ROLL);
    for (int f = 0; e && f < nfeatures; f++)
        if (strcmp(features[f], e->feature) == 0)
            return e;
    return NULL;
}

int pre_battle_hits(const struct effect_def *e, const enum face *faces, int n)
{
    int hits = 0;
    for (int i = 0; i < n; i++)
        for (int h = 0; h < e->nhits; h++)
            hits += faces[i] == e->hits[h];
    return hits;
}
