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

int what_if_rewrites(const struct event_def *ev, enum side side, struct grant_rewrite *out, int max)
{
    int n = 0;
    for (int i = 0; i < ev->neffects && n < max; i++) {
        const struct effect_def *e = &ev->effects[i];
        if (e->type == EFFECT_GRANT && (enum side)e->side == side) {
            memcpy(out[n].from, e->from, sizeof out[n].from);
            memcpy(out[n].to, e->to, sizeof out[n].to);
            n++;
        }
    }
    return n;
}

/* Case-insensitive "haystack contains needle": "Battle of Kupa" matches "Kupa". */
static bool contains_ci(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    if (!n)
        return false;
    for (const char *h = haystack; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

bool scope_applies(const struct scope *sc, int number, const char *scenario)
{
    bool named = false;
    switch (sc->kind) {
    case SCOPE_NONE:
        return false;
    case SCOPE_CAMPAIGN:
        return true;
    case SCOPE_ONCE:
        return number == 1;
    case SCOPE_BATTLES:
        for (int i = 0; i < sc->n; i++)
            if (sc->battles[i] == number)
                return true;
        return false;
    case SCOPE_EXCEPT:
    case SCOPE_ONLY:
        for (int i = 0; i < sc->n; i++)
            named |= scenario && contains_ci(scenario, sc->scenarios[i]);
        return sc->kind == SCOPE_ONLY ? named : !named;
    }
    return false;
}
