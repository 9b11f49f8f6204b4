/* The JSON shapes of rules results, shared by the API and bin/m44 (API.md "Shapes"). */
#ifndef M44_CAMPAIGN_RULES_JSON_H
#define M44_CAMPAIGN_RULES_JSON_H

#include "rules/rules.h"

#include <jansson.h>

/* ["infantry", "star"] */
json_t *faces_to_json(const enum face *faces, int n);

/*
 * Reads an array of face names. Returns the count, or -1 when `j` is not an array of valid
 * face names of length 1..max.
 */
int faces_from_json(json_t *j, enum face *out, int max);

/* {"id", "dice": [i...], "cost", "grants": [...], "text"} */
json_t *option_to_json(const struct option *o);
json_t *options_to_json(const struct option_list *list);

/* The reverse of options_to_json, for options stored with a roll. -1 when malformed. */
int options_from_json(json_t *a, struct option_list *out);

/* {"kind", "scenarios" | "battles"} */
json_t *scope_to_json(const struct scope *sc);

/* {"roller", "face", "text"} */
json_t *instruction_to_json(const struct instruction *in);

/*
 * {"instructions": [...], "starting_hand": {"allies","axis"}, "notes": [...]}, notes holding
 * the ruleset's notes and the Commissar note where it applies.
 */
json_t *victory_to_json(const struct ruleset *rs, const struct victory_outcome *v);

#endif
