/* The rulesets the daemon serves, loaded once at start (read-only afterwards). */
#ifndef M44_CAMPAIGN_RULESETS_H
#define M44_CAMPAIGN_RULESETS_H

#include "campaign/ruleset_load.h"

/* Loads the built-ins plus `dir` (may be NULL/""); returns 0 or -1 with err. Call once. */
int rulesets_init(const char *dir, char *err, size_t errlen);
void rulesets_shutdown(void);

/* The loaded set; valid between rulesets_init and rulesets_shutdown. */
const struct ruleset_set *rulesets(void);

/* A loaded ruleset by id, or NULL. */
const struct ruleset_entry *ruleset_entry(const char *id);

#endif
