/* Multi-map battles (RULES.md 7): the D-Day Landings map combinations. */
#include "rules/rules.h"

#include <string.h>

int map_find(const struct map_rules *m, const char *id)
{
    for (int i = 0; id && i < m->nmaps; i++)
        if (strcmp(m->maps[i].id, id) == 0)
            return i;
    return -1;
}

const struct map_combo *map_combination(const struct map_rules *m, const int *maps, int n)
{
    for (int c = 0; c < m->ncombos; c++) {
        const struct map_combo *combo = &m->combos[c];
        if (combo->nmaps != n)
            continue;
        bool all = true;
        for (int i = 0; i < n && all; i++) {
            bool found = false;
            for (int j = 0; j < combo->nmaps; j++)
                found |= combo->maps[j] == maps[i];
            /* ... and no map named twice */
            for (int k = 0; k < i; k++)
                found &= maps[k] != maps[i];
            all = found;
        }
        if (all)
            return combo;
    }
    return NULL;
}
