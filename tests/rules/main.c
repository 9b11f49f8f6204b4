/* Rules core tests: table-driven, exhaustive where the space is small. */
#include "tests/common/testkit.h"
#include "tests/rules/rulestest.h"

#include <sodium.h>
#include <stdio.h>

struct ruleset_set test_rulesets;

const struct ruleset *rs_get(const char *id)
{
    const struct ruleset_entry *e = rulesets_find(&test_rulesets, id);
    CU_ASSERT_PTR_NOT_NULL(e);
    return e ? e->rs : NULL;
}

void register_dice_tests(void);
void register_reserve_tests(void);
void register_choice_tests(void);
void register_victory_tests(void);
void register_whatif_tests(void);
void register_outcome_tests(void);
void register_load_tests(void);
void register_cli_tests(void);
void register_grand_tests(void);

int main(void)
{
    char err[1024];
    if (sodium_init() < 0 || rulesets_load(&test_rulesets, NULL, err, sizeof err)) {
        fprintf(stderr, "cannot load the built-in rulesets: %s\n", err);
        return 1;
    }
    const tk_register_fn suites[] = {
        register_dice_tests,    register_reserve_tests, register_choice_tests,
        register_victory_tests, register_whatif_tests,  register_outcome_tests,
        register_load_tests,    register_cli_tests,     register_grand_tests};
    int rc = tk_run("rules", suites, (int)(sizeof suites / sizeof suites[0]));
    rulesets_free(&test_rulesets);
    return rc;
}
