/* Campaign outcome (RULES.md 2) and scenario lists. */
#include "rules/rules.h"

#include <string.h>

int objective_bonus(const struct ruleset *rs, enum side side, int count)
{
    int len = rs->outcome.track_len[side];
    if (len == 0)
        return 0;
    if (count < 0)
        count = 0;
    return rs->outcome.track[side][count < len ? count : len - 1];
}

int outcome_measure(enum rank_key k, const struct standing *st, const struct outcome *o,
                    enum side s)
{
    switch (k) {
    case RANK_BATTLES_WON:
        return st->battles_won[s];
    case RANK_MEDALS:
        return st->medals[s];
    case RANK_VICTORY_POINTS:
        return o->victory_points[s];
    }
    return 0;
}

void campaign_outcome(const struct ruleset *rs, const struct standing *st, struct outcome *out)
{
    memset(out, 0, sizeof *out);
    out->winner = -1;
    out->decided_by = -1;
    out->has_track = rs->outcome.track_len[0] > 0 || rs->outcome.track_len[1] > 0;
    for (int s = 0; s < SIDE_COUNT; s++)
        out->victory_points[s] =
            st->medals[s] + objective_bonus(rs, (enum side)s, st->objective_medals[s]);
    int first_margin = 0;
    for (int k = 0; k < rs->outcome.nrank; k++) {
        int a = outcome_measure(rs->outcome.rank_by[k], st, out, SIDE_ALLIES);
        int x = outcome_measure(rs->outcome.rank_by[k], st, out, SIDE_AXIS);
        if (k == 0)
            first_margin = a > x ? a - x : x - a;
        if (a != x) {
            out->winner = a > x ? SIDE_ALLIES : SIDE_AXIS;
            out->decided_by = k;
            break;
        }
    }
    if (out->winner < 0)
        return;
    for (int g = 0; g < rs->outcome.ngrades; g++)
        if (first_margin >= rs->outcome.grades[g].min_margin) {
            memcpy(out->grade, rs->outcome.grades[g].name, sizeof rs->outcome.grades[g].name);
            out->points = rs->outcome.grades[g].points;
            break;
        }
}

int scenario_find(const struct scenario_list *list, const char *name)
{
    for (int i = 0; i < list->n; i++)
        if (strcmp(list->s[i].name, name) == 0)
            return i;
    return -1;
}
