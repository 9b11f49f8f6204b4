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
        /* A ruleset that loads must evaluate: every pair of faces, both sides. */
        struct option_list *opts = malloc(sizeof *opts);
        for (int i = 0; i < 36 && opts; i++) {
            enum face f[2] = {face_of_index(i / 6), face_of_index(i % 6)};
            reserve_options(rs, SIDE_ALLIES, f, 2, NULL, 0, opts);
            reserve_options(rs, SIDE_AXIS, f, 2, NULL, 0, opts);
        }
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
