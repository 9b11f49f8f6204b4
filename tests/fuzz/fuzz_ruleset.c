/* Fuzz target: ruleset documents (as in --rulesets-dir) and scenario lists. */
#include "campaign/ruleset_load.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    if (!doc)
        return 0;
    char err[1024];
    struct ruleset *rs = ruleset_from_json(doc, "fuzz.json", err, sizeof err);
    if (rs) {
        /* A ruleset that loads must evaluate: every pair of faces, both sides, without and
         * with all its What-if events in force (their option changes, battle overrides and
         * pre-battle rolls). */
        struct option_list *opts = malloc(sizeof *opts);
        struct option_mods *mods = calloc(SIDE_COUNT, sizeof *mods);
        const struct event_def *events[RS_MAX_EVENTS];
        int nevents = rs->what_if.nevents;
        for (int k = 0; k < nevents; k++) {
            events[k] = &rs->what_if.events[k];
            for (int s = 0; mods && s < SIDE_COUNT; s++)
                what_if_option_mods(events[k], (enum side)s, &mods[s]);
            enum face pb[6] = {FACE_STAR,     FACE_GRENADE, FACE_FLAG,
                               FACE_INFANTRY, FACE_ARMOR,   FACE_STAR};
            const struct effect_def *roll = event_effect(events[k], EFFECT_PRE_BATTLE_ROLL);
            if (roll)
                (void)pre_battle_hits(roll, pb, roll->dice < 6 ? roll->dice : 6);
        }
        struct battle_overrides ov;
        what_if_battle_overrides(events, nevents, &ov);
        for (int i = 0; i < 36 && opts && mods; i++) {
            enum face f[2] = {face_of_index(i / 6), face_of_index(i % 6)};
            for (int s = 0; s < SIDE_COUNT; s++) {
                reserve_options(rs, (enum side)s, f, 2, NULL, opts);
                reserve_options(rs, (enum side)s, f, 2, &mods[s], opts);
            }
        }
        free(mods);
        free(opts);
        free(rs);
    }
    static struct scenario_list list;
    json_t *sc = json_object_get(doc, "scenarios");
    if (sc)
        scenario_list_from_json(sc, "$.scenarios", &list, err, sizeof err);
    json_decref(doc);
    return 0;
}
