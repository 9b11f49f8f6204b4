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

/* Latin-1 and Latin Extended-A letters as a letter and a combining mark (U+0300..U+036F),
 * from Unicode's decompositions: a name typed decomposed ("Pinc" + U+0327 + "on") matches the
 * book's ("Pinçon"). Sorted by letter, then mark. */
static const struct {
    unsigned char base;
    unsigned short mark, composed;
} composed_letters[] = {
    {'A', 0x300, 0x0C0}, {'A', 0x301, 0x0C1}, {'A', 0x302, 0x0C2}, {'A', 0x303, 0x0C3},
    {'A', 0x304, 0x100}, {'A', 0x306, 0x102}, {'A', 0x308, 0x0C4}, {'A', 0x30A, 0x0C5},
    {'A', 0x328, 0x104}, {'C', 0x301, 0x106}, {'C', 0x302, 0x108}, {'C', 0x307, 0x10A},
    {'C', 0x30C, 0x10C}, {'C', 0x327, 0x0C7}, {'D', 0x30C, 0x10E}, {'E', 0x300, 0x0C8},
    {'E', 0x301, 0x0C9}, {'E', 0x302, 0x0CA}, {'E', 0x304, 0x112}, {'E', 0x306, 0x114},
    {'E', 0x307, 0x116}, {'E', 0x308, 0x0CB}, {'E', 0x30C, 0x11A}, {'E', 0x328, 0x118},
    {'G', 0x302, 0x11C}, {'G', 0x306, 0x11E}, {'G', 0x307, 0x120}, {'G', 0x327, 0x122},
    {'H', 0x302, 0x124}, {'I', 0x300, 0x0CC}, {'I', 0x301, 0x0CD}, {'I', 0x302, 0x0CE},
    {'I', 0x303, 0x128}, {'I', 0x304, 0x12A}, {'I', 0x306, 0x12C}, {'I', 0x307, 0x130},
    {'I', 0x308, 0x0CF}, {'I', 0x328, 0x12E}, {'J', 0x302, 0x134}, {'K', 0x327, 0x136},
    {'L', 0x301, 0x139}, {'L', 0x30C, 0x13D}, {'L', 0x327, 0x13B}, {'N', 0x301, 0x143},
    {'N', 0x303, 0x0D1}, {'N', 0x30C, 0x147}, {'N', 0x327, 0x145}, {'O', 0x300, 0x0D2},
    {'O', 0x301, 0x0D3}, {'O', 0x302, 0x0D4}, {'O', 0x303, 0x0D5}, {'O', 0x304, 0x14C},
    {'O', 0x306, 0x14E}, {'O', 0x308, 0x0D6}, {'O', 0x30B, 0x150}, {'R', 0x301, 0x154},
    {'R', 0x30C, 0x158}, {'R', 0x327, 0x156}, {'S', 0x301, 0x15A}, {'S', 0x302, 0x15C},
    {'S', 0x30C, 0x160}, {'S', 0x327, 0x15E}, {'T', 0x30C, 0x164}, {'T', 0x327, 0x162},
    {'U', 0x300, 0x0D9}, {'U', 0x301, 0x0DA}, {'U', 0x302, 0x0DB}, {'U', 0x303, 0x168},
    {'U', 0x304, 0x16A}, {'U', 0x306, 0x16C}, {'U', 0x308, 0x0DC}, {'U', 0x30A, 0x16E},
    {'U', 0x30B, 0x170}, {'U', 0x328, 0x172}, {'W', 0x302, 0x174}, {'Y', 0x301, 0x0DD},
    {'Y', 0x302, 0x176}, {'Y', 0x308, 0x178}, {'Z', 0x301, 0x179}, {'Z', 0x307, 0x17B},
    {'Z', 0x30C, 0x17D}, {'a', 0x300, 0x0E0}, {'a', 0x301, 0x0E1}, {'a', 0x302, 0x0E2},
    {'a', 0x303, 0x0E3}, {'a', 0x304, 0x101}, {'a', 0x306, 0x103}, {'a', 0x308, 0x0E4},
    {'a', 0x30A, 0x0E5}, {'a', 0x328, 0x105}, {'c', 0x301, 0x107}, {'c', 0x302, 0x109},
    {'c', 0x307, 0x10B}, {'c', 0x30C, 0x10D}, {'c', 0x327, 0x0E7}, {'d', 0x30C, 0x10F},
    {'e', 0x300, 0x0E8}, {'e', 0x301, 0x0E9}, {'e', 0x302, 0x0EA}, {'e', 0x304, 0x113},
    {'e', 0x306, 0x115}, {'e', 0x307, 0x117}, {'e', 0x308, 0x0EB}, {'e', 0x30C, 0x11B},
    {'e', 0x328, 0x119}, {'g', 0x302, 0x11D}, {'g', 0x306, 0x11F}, {'g', 0x307, 0x121},
    {'g', 0x327, 0x123}, {'h', 0x302, 0x125}, {'i', 0x300, 0x0EC}, {'i', 0x301, 0x0ED},
    {'i', 0x302, 0x0EE}, {'i', 0x303, 0x129}, {'i', 0x304, 0x12B}, {'i', 0x306, 0x12D},
    {'i', 0x308, 0x0EF}, {'i', 0x328, 0x12F}, {'j', 0x302, 0x135}, {'k', 0x327, 0x137},
    {'l', 0x301, 0x13A}, {'l', 0x30C, 0x13E}, {'l', 0x327, 0x13C}, {'n', 0x301, 0x144},
    {'n', 0x303, 0x0F1}, {'n', 0x30C, 0x148}, {'n', 0x327, 0x146}, {'o', 0x300, 0x0F2},
    {'o', 0x301, 0x0F3}, {'o', 0x302, 0x0F4}, {'o', 0x303, 0x0F5}, {'o', 0x304, 0x14D},
    {'o', 0x306, 0x14F}, {'o', 0x308, 0x0F6}, {'o', 0x30B, 0x151}, {'r', 0x301, 0x155},
    {'r', 0x30C, 0x159}, {'r', 0x327, 0x157}, {'s', 0x301, 0x15B}, {'s', 0x302, 0x15D},
    {'s', 0x30C, 0x161}, {'s', 0x327, 0x15F}, {'t', 0x30C, 0x165}, {'t', 0x327, 0x163},
    {'u', 0x300, 0x0F9}, {'u', 0x301, 0x0FA}, {'u', 0x302, 0x0FB}, {'u', 0x303, 0x169},
    {'u', 0x304, 0x16B}, {'u', 0x306, 0x16D}, {'u', 0x308, 0x0FC}, {'u', 0x30A, 0x16F},
    {'u', 0x30B, 0x171}, {'u', 0x328, 0x173}, {'w', 0x302, 0x175}, {'y', 0x301, 0x0FD},
    {'y', 0x302, 0x177}, {'y', 0x308, 0x0FF}, {'z', 0x301, 0x17A}, {'z', 0x307, 0x17C},
    {'z', 0x30C, 0x17E},
};

/* An ASCII letter `base` with the combining mark that follows it at *p (two bytes: U+0300 is
 * CC 80, U+036F is CD AF), as the one letter they make; the mark is then taken. Else `base`. */
static unsigned composed(unsigned base, const char **p)
{
    const unsigned char *s = (const unsigned char *)*p;
    unsigned mark = s[0] == 0xCC && s[1] >= 0x80 && s[1] <= 0xBF   ? 0x300u + (s[1] - 0x80u)
                    : s[0] == 0xCD && s[1] >= 0x80 && s[1] <= 0xAF ? 0x340u + (s[1] - 0x80u)
                                                                   : 0;
    for (size_t i = 0; mark && i < sizeof composed_letters / sizeof composed_letters[0]; i++)
        if (composed_letters[i].base == base && composed_letters[i].mark == mark) {
            *p += 2;
            return composed_letters[i].composed;
        }
    return base;
}

/* The next character of a name as a code point, lower case: ASCII, Latin-1 and Latin
 * Extended-A ("MONT PINÇON", "ŁÓDŹ"), the letters of the scenarios' places, whether typed as one
 * character or as a letter and a combining mark. A byte that does not start a valid two-byte
 * sequence is taken as it is. */
static unsigned next_folded(const char **p)
{
    const unsigned char *s = (const unsigned char *)*p;
    unsigned cp = s[0];
    if (cp >= 0xC2 && cp <= 0xDF && (s[1] & 0xC0) == 0x80) {
        cp = ((cp & 0x1Fu) << 6) | (s[1] & 0x3Fu);
        *p += 2;
    } else {
        *p += cp ? 1 : 0;
        if (cp >= 0x80)
            return cp | 0x10000u; /* a stray byte */
        cp = composed(cp, p);
        if (cp < 0x80)
            return (unsigned)tolower((int)cp);
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
