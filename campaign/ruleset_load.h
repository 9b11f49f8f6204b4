/*
 * Loading rulesets from JSON (the files in rules/data, compiled in, plus an optional directory).
 * This is the one part of rules/ that uses jansson. Every file is validated; a broken one is
 * refused with "file: $.json.path: reason".
 */
#ifndef M44_CAMPAIGN_RULESET_LOAD_H
#define M44_CAMPAIGN_RULESET_LOAD_H

#include "rules/rules.h"

#include <jansson.h>

#define RULESETS_MAX 64

struct ruleset_entry {
    struct ruleset *rs;
    char *json; /* the resolved document (after "extends"), compact, for GET /rulesets/{id} */
    char file[256];
};

struct ruleset_set {
    int n;
    struct ruleset_entry items[RULESETS_MAX]; /* sorted by id */
};

/*
 * Loads the built-in rulesets and then every *.json in `dir` (NULL or "" for none); a file
 * whose id is a built-in's replaces it. Returns 0, or -1 with a message in err. On failure
 * the set is left empty.
 */
int rulesets_load(struct ruleset_set *set, const char *dir, char *err, size_t errlen);

void rulesets_free(struct ruleset_set *set);

const struct ruleset_entry *rulesets_find(const struct ruleset_set *set, const char *id);

/*
 * Validates one ruleset document that needs no "extends" (used by the fuzz harness and by
 * tests). `file` names it in errors. Returns a new ruleset, or NULL with err set.
 */
struct ruleset *ruleset_from_json(json_t *doc, const char *file, char *err, size_t errlen);

/*
 * Parses a scenario list in the ruleset format ({"start","list","branches","note"}), e.g. one
 * given when a campaign is created. `where` prefixes error paths. Returns 0 or -1 with err.
 */
int scenario_list_from_json(json_t *j, const char *where, struct scenario_list *out, char *err,
                            size_t errlen);

#endif
