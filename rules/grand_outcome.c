/* Grand campaigns (RULES.md 8): each finished campaign graded, points, and the grand winner. */
#include "rules/rules.h"

#include <string.h>

const struct grand_grade *grand_grade_of(const struct grand_grade *grades, int ngrades,
                                         const struct grand_part *part)
{
    if (!part->finished || part->winner < 0)
        return NULL; /* a draw gives nobody points */
    int w = part->winner, l = 1 - w;
    for (int i = 0; i < ngrades; i++)
        if ((long)part->battles_won[w] >= (long)grades[i].min_ratio * part->battles_won[l])
            return &grades[i];
    return NULL;
}

void grand_outcome(const struct grand_grade *grades, int ngrades, const struct grand_part *parts,
                   int nparts, struct grand_result *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nparts; i++) {
        for (int s = 0; s < SIDE_COUNT; s++) {
            out->battles_won[s] += parts[i].battles_won[s];
            out->medals[s] += parts[i].medals[s];
        }
        const struct grand_grade *g = grand_grade_of(grades, ngrades, &parts[i]);
        if (g)
            out->points[parts[i].winner] += g->points;
    }
    const int *keys[3] = {out->points, out->battles_won, out->medals};
    out->winner = -1;
    for (int k = 0; k < 3 && out->winner < 0; k++)
        if (keys[k][SIDE_ALLIES] != keys[k][SIDE_AXIS])
            out->winner = keys[k][SIDE_ALLIES] > keys[k][SIDE_AXIS] ? SIDE_ALLIES : SIDE_AXIS;
}
