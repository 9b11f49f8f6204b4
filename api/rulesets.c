/* GET /api/v1/rulesets and GET /api/v1/rulesets/{id} */
#include "api/handlers.h"
#include "api/http.h"
#include "campaign/rulesets.h"

#include <string.h>

void handle_rulesets_list(struct req *r)
{
    const struct ruleset_set *set = rulesets();
    json_t *a = json_array();
    for (int i = 0; i < set->n; i++) {
        const struct ruleset *rs = set->items[i].rs;
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:b, s:s, s:b, s:b, s:b}", "id", rs->id, "name", rs->name,
                         "what_if", rs->what_if.enabled, "description", rs->description,
                         "reserve_roll", rs->reserve.enabled, "victory_events", rs->victory.enabled,
                         "scenario_list", rs->scenarios.n > 0));
    }
    reply_json(r, 200, a);
}

void handle_rulesets_get(struct req *r)
{
    const struct ruleset_entry *e = ruleset_entry(r->params[0]);
    if (!e) {
        reply_problem(r, PROBLEM_NOT_FOUND,
                      "There is no ruleset with that id (see "
                      "GET /api/v1/rulesets).");
        return;
    }
    reply_bytes(r, 200, "application/json", e->json, strlen(e->json), NULL);
}
