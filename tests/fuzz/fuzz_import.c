/*
 * Fuzz target: reading a campaign export for import (campaign/import_doc.c), everything that is
 * checked before the database is touched. Whatever it accepts must be a plan the replay can
 * trust: a canonical id, rolls numbered 1, 2, 3 ..., each naming the seed in force, and every
 * server roll whose seed is in the document giving exactly that seed's faces.
 */
#include "campaign/import.h"
#include "campaign/rulesets.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char err[512];
    if (rulesets_init(NULL, err, sizeof err))
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!doc)
        return 0;
    struct import_plan plan;
    struct cerr e;
    enum cres rc = import_parse(doc, &plan, &e);
    if (rc == C_OK) {
        char canonical[CAMPAIGN_ID_LEN + 1];
        if (!canonical_uuid(plan.id, canonical) || strcmp(canonical, plan.id) != 0)
            abort();
        long next = 1;
        for (int i = 0; i < plan.nactions; i++) {
            const struct import_action *a = &plan.actions[i];
            if (a->kind != IMPORT_ROLL)
                continue;
            if (a->roll.recorded_n != next++ || a->roll.nfaces < 1 ||
                a->roll.nfaces > RULES_MAX_DICE || a->roll.recorded_epoch < 0 ||
                a->roll.recorded_epoch > plan.nseeds)
                abort();
            const struct import_seed *s =
                a->roll.recorded_epoch ? &plan.seeds[a->roll.recorded_epoch - 1] : NULL;
            if (s && s->has_value) {
                enum face want[RULES_MAX_DICE];
                if (dice_derive(s->value, plan.id, a->roll.recorded_n, a->roll.client_seed,
                                a->roll.nfaces, want) != 0 ||
                    memcmp(want, a->roll.faces, sizeof(enum face) * (size_t)a->roll.nfaces) != 0)
                    abort();
            }
        }
    } else if (rc != C_REFUSED || !e.field[0] || !e.detail[0]) {
        abort(); /* a refusal always names the field and says why */
    }
    import_plan_free(&plan);
    json_decref(doc);
    return 0;
}
