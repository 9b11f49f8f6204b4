/*
 * Fuzz target: the reserve-choice validator. Header bytes pick the ruleset, side, two faces and
 * the tokens; the rest is the choice body. Whatever it accepts must obey RULES.md 3: dice
 * disjoint, cost within the tokens, each grant one of the option's alternatives.
 */
#include "api/bodies.h"
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
    if (size < 5)
        return 0;
    const struct ruleset_set *set = rulesets();
    const struct ruleset *rs = set->items[data[0] % set->n].rs;
    enum side side = data[1] & 1 ? SIDE_AXIS : SIDE_ALLIES;
    enum face f[2] = {face_of_index(data[2] % 6), face_of_index(data[3] % 6)};
    int tokens = data[4] % 10;
    static struct option_list offered;
    static struct choice_result res;
    reserve_options(rs, side, f, 2, NULL, &offered);
    struct jerr e;
    json_t *body = json_body((const char *)data + 5, size - 5, &e);
    if (!body)
        return 0;
    struct choice_item items[RULES_MAX_OFFERED];
    int n;
    if (parse_choice(body, items, &n, &e)) {
        reserve_validate(&offered, items, n, tokens, &res);
        if (res.error == CHOICE_OK) {
            bool used[2] = {false, false};
            int cost = 0;
            for (int k = 0; k < res.nchosen; k++) {
                const struct option *o = &offered.o[res.chosen[k].offered];
                for (int d = 0; d < o->ndice; d++) {
                    if (used[o->dice[d]])
                        abort(); /* a die used twice was accepted */
                    used[o->dice[d]] = true;
                }
                bool grant_ok = false;
                for (int g = 0; g < o->ngrants; g++)
                    grant_ok |= strcmp(o->grants[g], res.chosen[k].grant) == 0;
                if (!grant_ok)
                    abort();
                cost += o->cost;
            }
            if (cost != res.cost || cost > tokens)
                abort();
        }
    }
    json_decref(body);
    return 0;
}
