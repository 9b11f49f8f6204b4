/* GET /api/v1/grand-rulesets and GET /api/v1/grand-rulesets/{id}: the grand campaigns this
 * server can run (RULES.md 8), each with its campaigns in order and its grades. */
#include "api/handlers.h"
#include "api/http.h"
#include "campaign/grand_rulesets.h"

#include <string.h>

void handle_grand_rulesets_list(struct req *r)
{
    json_t *a = json_array();
    for (int i = 0; i < grand_rulesets_count(); i++) {
        const struct grand_ruleset *g = grand_ruleset_at(i);
        json_t *ids = json_array(), *parts = json_array(), *grades = json_array();
        bool what_if = false;
        for (int k = 0; k < g->ncampaigns; k++) {
            const struct ruleset_entry *rse = ruleset_entry(g->campaigns[k].ruleset);
            what_if |= rse && rse->rs->what_if.enabled;
            json_array_append_new(ids, json_string(g->campaigns[k].ruleset));
            json_array_append_new(parts,
                                  json_pack("{s:s, s:s, s:s, s:b, s:b}", "ruleset",
                                            g->campaigns[k].ruleset, "name", g->campaigns[k].name,
                                            "ruleset_name", rse ? rse->rs->name : "", "what_if",
                                            rse && rse->rs->what_if.enabled, "scenario_list",
                                            rse && rse->rs->scenarios.n > 0));
        }
        for (int k = 0; k < g->ngrades; k++)
            json_array_append_new(grades, json_pack("{s:s, s:i, s:i}", "name", g->grades[k].name,
                                                    "min_ratio", g->grades[k].min_ratio, "points",
                                                    g->grades[k].points));
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:b, s:s}", "id", g->id,
                                           "name", g->name, "description", g->description,
                                           "campaigns", ids, "parts", parts, "grades", grades,
                                           "what_if", what_if, "reading", g->reading));
    }
    reply_json(r, 200, a);
}

void handle_grand_rulesets_get(struct req *r)
{
    const struct grand_ruleset *g = grand_ruleset_find(r->params[0]);
    if (!g) {
        reply_problem(r, PROBLEM_NOT_FOUND,
                      "There is no grand ruleset with that id (see GET /api/v1/grand-rulesets).");
        return;
    }
    reply_bytes(r, 200, "application/json", g->json, strlen(g->json), NULL);
}
