/*
 * Grand rulesets (RULES.md 8): which campaigns a grand campaign links, in order, and how a
 * finished campaign is graded. Data, like rulesets: rules/grand/ files are compiled in, and a
 * --rulesets-dir file with a "campaigns" list adds or replaces one. Loaded once, after the
 * rulesets (a grand ruleset names them), validated like them.
 */
#ifndef M44_CAMPAIGN_GRAND_RULESETS_H
#define M44_CAMPAIGN_GRAND_RULESETS_H

#include "campaign/rulesets.h"

#define GRAND_RULESETS_MAX 32

struct grand_ruleset {
    char id[RS_ID_MAX];
    char name[RS_NAME_MAX];
    char description[RS_TEXT_MAX];
    char source[RS_TEXT_MAX];
    char reading[RS_TEXT_MAX];
    int ncampaigns;
    struct {
        char ruleset[RS_ID_MAX];
        char name[RS_NAME_MAX];
    } campaigns[GRAND_MAX_CAMPAIGNS];
    int ngrades;
    struct grand_grade grades[GRAND_MAX_GRADES];
    char *json;     /* the document, compact, for GET /grand-rulesets */
    char file[256]; /* where it came from: rules/grand/... or a --rulesets-dir file */
};

/* Loads the built-ins and the grand rulesets of `dir` (NULL or ""); call after rulesets_init.
 * Returns 0, or -1 with "file: $.path: reason" in err. */
int grand_rulesets_init(const char *dir, char *err, size_t errlen);
void grand_rulesets_shutdown(void);

int grand_rulesets_count(void);
const struct grand_ruleset *grand_ruleset_at(int i);
const struct grand_ruleset *grand_ruleset_find(const char *id);

/* Whether a JSON document is a grand ruleset (it lists "campaigns"): the ruleset loader leaves
 * such files in --rulesets-dir to this one. */
bool is_grand_ruleset_doc(json_t *doc);

#endif
