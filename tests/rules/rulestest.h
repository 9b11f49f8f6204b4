/* Shared by the rules tests: the built-in rulesets, loaded once. */
#ifndef M44_RULESTEST_H
#define M44_RULESTEST_H

#include "campaign/ruleset_load.h"

extern struct ruleset_set test_rulesets;

/* A built-in ruleset by id; fails the calling test (and returns NULL) when missing. */
const struct ruleset *rs_get(const char *id);

#endif
