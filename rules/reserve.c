/* The reserve roll (RULES.md 3): options for a side's dice, and validation of its choice. */
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

const struct grant_def *ruleset_grant(const struct ruleset *rs, const char *id)
{
    for (int i = 0; i < rs->ngrants; i++)
        if (strcmp(rs->grants[i].id, id) == 0)
            return &rs->grants[i];
    return NULL;
}

/* The name of the event that takes the grant away, or NULL. */
static const char *removed(const struct option_mods *mods, const char *grant)
{
    for (int r = 0; mods && r < mods->nremovals; r++)
        if (strcmp(mods->removals[r], grant) == 0)
            return mods->removal_by[r];
    return NULL;
}

/* Copies the option's grants and their costs, rewritten, without the removed ones and without
 * duplicates; notes what was rewritten. Returns how many are left. */
static int bind_grants(const struct ruleset *rs, const struct option_def *def, struct option *o,
                       const struct option_mods *mods)
{
    snprintf(o->text, sizeof o->text, "%s", def->text);
    o->ngrants = 0;
    for (int g = 0; g < def->ngrants; g++) {
        const char *grant = def->grants[g];
        for (int r = 0; mods && r < mods->nrewrites; r++)
            if (strcmp(mods->rewrites[r].from, grant) == 0) {
                grant = mods->rewrites[r].to;
                const struct grant_def *gd = ruleset_grant(rs, grant);
                size_t len = strlen(o->text);
                snprintf(o->text + len, sizeof o->text - len, " (%s makes it %s)",
                         mods->rewrites[r].by, gd ? gd->text : grant);
                break;
            }
        const char *by = removed(mods, grant);
        if (by) {
            const struct grant_def *gd = ruleset_grant(rs, grant);
            size_t len = strlen(o->text);
            snprintf(o->text + len, sizeof o->text - len, " (not %s: %s)", gd ? gd->text : grant,
                     by);
            continue;
        }
        bool dup = false;
        for (int k = 0; k < o->ngrants; k++)
            dup |= strcmp(o->grants[k], grant) == 0;
        if (dup)
            continue;
        snprintf(o->grants[o->ngrants], RS_GRANT_MAX, "%s", grant);
        o->grant_cost[o->ngrants++] = def->grant_cost[g];
    }
    o->cost = o->ngrants ? o->grant_cost[0] : 0;
    for (int g = 1; g < o->ngrants; g++)
        if (o->grant_cost[g] < o->cost)
            o->cost = o->grant_cost[g];
    return o->ngrants;
}

static void add_option(const struct ruleset *rs, const struct option_def *def, const int *dice,
                       const struct option_mods *mods, struct option_list *out)
{
    if (out->n >= RULES_MAX_OFFERED)
        return;
    struct option *o = &out->o[out->n];
    memset(o, 0, sizeof *o);
    snprintf(o->key, sizeof o->key, "%s", def->key);
    o->ndice = def->ndice;
    o->dice[0] = dice[0];
    o->dice[1] = def->ndice > 1 ? dice[1] : -1;
    if (def->ndice == 1)
        snprintf(o->id, sizeof o->id, "%s@%d", def->key, dice[0]);
    else
        snprintf(o->id, sizeof o->id, "%s@%d+%d", def->key, dice[0], dice[1]);
    if (bind_grants(rs, def, o, mods) > 0)
        out->n++; /* an option whose every grant was taken away is not offered */
}

void reserve_options(const struct ruleset *rs, enum side side, const enum face *faces, int nfaces,
                     const struct option_mods *mods, struct option_list *out)
{
    out->n = 0;
    if (!rs->reserve.enabled)
        return;
    for (int k = 0; k < rs->reserve.noptions[side]; k++) {
        const struct option_def *def = &rs->reserve.options[side][k];
        if (def->ndice == 1) {
            for (int i = 0; i < nfaces; i++) {
                const int dice[2] = {i, -1};
                if (faces[i] == def->dice[0])
                    add_option(rs, def, dice, mods, out);
            }
            continue;
        }
        for (int i = 0; i < nfaces; i++)
            for (int j = i + 1; j < nfaces; j++) {
                bool match = (faces[i] == def->dice[0] && faces[j] == def->dice[1]) ||
                             (faces[i] == def->dice[1] && faces[j] == def->dice[0]);
                const int dice[2] = {i, j};
                if (match)
                    add_option(rs, def, dice, mods, out);
            }
    }
}

void reserve_validate(const struct option_list *offered, const struct choice_item *items,
                      int nitems, int tokens, struct choice_result *out)
{
    memset(out, 0, sizeof *out);
    out->item = out->offered = out->holder = -1;
    if (nitems > RULES_MAX_OFFERED) {
        out->error = CHOICE_TOO_MANY;
        return;
    }
    int holder[RULES_MAX_DICE]; /* the option chosen that uses each die, or -1 */
    for (int d = 0; d < RULES_MAX_DICE; d++)
        holder[d] = -1;
    bool taken[RULES_MAX_OFFERED] = {false};
    int cost = 0;
    for (int k = 0; k < nitems; k++) {
        int idx = -1;
        for (int i = 0; i < offered->n && idx < 0; i++)
            if (items[k].id && strcmp(offered->o[i].id, items[k].id) == 0)
                idx = i;
        out->item = k;
        out->offered = idx;
        if (idx < 0) {
            out->error = CHOICE_UNKNOWN_OPTION;
            return;
        }
        const struct option *o = &offered->o[idx];
        if (taken[idx]) {
            out->error = CHOICE_DUPLICATE_OPTION;
            return;
        }
        for (int d = 0; d < o->ndice; d++)
            if (o->dice[d] >= 0 && o->dice[d] < RULES_MAX_DICE && holder[o->dice[d]] >= 0) {
                out->error = CHOICE_DIE_REUSED;
                out->holder = holder[o->dice[d]];
                return;
            }
        int grant = -1;
        if (items[k].grant) {
            for (int g = 0; g < o->ngrants && grant < 0; g++)
                if (strcmp(o->grants[g], items[k].grant) == 0)
                    grant = g;
            if (grant < 0) {
                out->error = CHOICE_INVALID_GRANT;
                return;
            }
        } else if (o->ngrants == 1) {
            grant = 0;
        } else {
            out->error = CHOICE_GRANT_REQUIRED;
            return;
        }
        cost += o->grant_cost[grant]; /* each alternative costs its own (RULES.md 9) */
        if (cost > tokens) {
            out->error = CHOICE_NOT_ENOUGH_TOKENS;
            out->cost = cost;
            return;
        }
        taken[idx] = true;
        for (int d = 0; d < o->ndice; d++)
            if (o->dice[d] >= 0 && o->dice[d] < RULES_MAX_DICE)
                holder[o->dice[d]] = idx;
        out->chosen[out->nchosen].offered = idx;
        out->chosen[out->nchosen].cost = o->grant_cost[grant];
        snprintf(out->chosen[out->nchosen].grant, RS_GRANT_MAX, "%s", o->grants[grant]);
        out->nchosen++;
    }
    out->item = out->offered = -1;
    out->error = CHOICE_OK;
    out->cost = cost;
}
