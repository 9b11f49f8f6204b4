/* The standing of a grand campaign (API.md "Grand campaigns"): its campaigns in order, each
 * graded as it finished, points, battles and medals per side, the current campaign and the
 * winner; every battle of every campaign, for a timeline. */
#include "api/views.h"

#include "campaign/grand.h"

#include <string.h>

/* Every battle of a started campaign: [{"number","scenario","result"}]. */
static enum cres battles_of(struct db *db, const struct campaign *c, int index, void *arg)
{
    (void)db;
    json_t *lists = arg;
    json_t *a = json_array();
    for (int i = 0; i < c->nbattles; i++) {
        const struct battle *b = &c->battles[i];
        json_array_append_new(a, json_pack("{s:i, s:s, s:o}", "number", b->number, "scenario",
                                           b->scenario, "result", result_json(b)));
    }
    json_array_set_new(lists, (size_t)index - 1, a);
    return C_OK;
}

json_t *view_grand(struct db *db, const struct grand *g, struct cerr *e)
{
    int n = grand_size(g);
    struct grand_played played[GRAND_MAX_CAMPAIGNS];
    json_t *lists = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(lists, json_array());
    if (grand_parts(db, g, played, battles_of, lists, e) != C_OK) {
        json_decref(lists);
        return NULL;
    }
    struct grand_part parts[GRAND_MAX_CAMPAIGNS];
    for (int i = 0; i < n; i++)
        parts[i] = played[i].part;
    struct grand_result total;
    grand_outcome(g->gr ? g->gr->grades : NULL, g->gr ? g->gr->ngrades : 0, parts, n, &total);

    json_t *campaigns = json_array();
    const char *current = NULL;
    int finished = 0;
    for (int i = 0; i < n; i++) {
        const struct grand_played *p = &played[i];
        const struct ruleset_entry *rse = g->gr ? ruleset_entry(g->gr->campaigns[i].ruleset) : NULL;
        if (strcmp(p->status, "active") == 0)
            current = p->id;
        finished += strcmp(p->status, "finished") == 0;
        json_array_append_new(
            campaigns,
            json_pack("{s:i, s:o, s:s, s:s, s:s, s:s, s:o, s:o, s:i, s:o, s:o, s:O}", "place",
                      i + 1, "id", str_or_null(p->id), "ruleset",
                      g->gr ? g->gr->campaigns[i].ruleset : "", "ruleset_name",
                      rse ? rse->rs->name : "", "name", g->gr ? g->gr->campaigns[i].name : "",
                      "status", p->status, "winner", side_or_null(p->part.winner), "grade",
                      str_or_null(p->grade ? p->grade->name : NULL), "points",
                      p->grade ? p->grade->points : 0, "battles_won",
                      pair_json(p->part.battles_won), "medals", pair_json(p->part.medals),
                      "battles", json_array_get(lists, (size_t)i)));
    }
    json_decref(lists);
    bool over = n > 0 && finished == n;
    /* The next campaign to start, once the one before it has finished. */
    json_t *next = json_null(), *waiting = json_array();
    if (!over && !current && g->gr) {
        int k = g->nmembers;
        const struct ruleset_entry *rse = ruleset_entry(g->gr->campaigns[k].ruleset);
        /* What it starts with unless the organizer says otherwise (null: no reserve roll). */
        json_t *tokens =
            rse && rse->rs->reserve.enabled ? pair_json(rse->rs->tokens_default) : json_null();
        next = json_pack("{s:i, s:s, s:s, s:o}", "place", k + 1, "name", g->gr->campaigns[k].name,
                         "ruleset", g->gr->campaigns[k].ruleset, "reserve_tokens", tokens);
        json_array_append_new(waiting, json_string("organizer:next-campaign"));
    }
    json_t *grades = json_array();
    for (int i = 0; g->gr && i < g->gr->ngrades; i++)
        json_array_append_new(grades, json_pack("{s:s, s:i, s:i}", "name", g->gr->grades[i].name,
                                                "min_ratio", g->gr->grades[i].min_ratio, "points",
                                                g->gr->grades[i].points));
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:b, s:s, s:{s:s, s:s}, s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:s, s:o}",
        "id", g->id, "name", g->name, "grand_ruleset", g->ruleset_id, "grand_ruleset_name",
        g->gr ? g->gr->name : "a grand campaign this server no longer has", "what_if", g->what_if,
        "dice", dice_mode_name(g->dice), "players", "allies", g->players[SIDE_ALLIES], "axis",
        g->players[SIDE_AXIS], "created_at", g->created_at, "version", (json_int_t)g->version,
        "status", over ? "finished" : "active", "campaigns", campaigns, "points",
        pair_json(total.points), "battles_won", pair_json(total.battles_won), "medals",
        pair_json(total.medals), "current", str_or_null(current), "next", next, "leader",
        side_or_null(over ? -1 : total.winner), "winner", side_or_null(over ? total.winner : -1),
        "waiting_for", waiting, "grades", grades, "reading", g->gr ? g->gr->reading : "",
        "key_tags", key_tags_json(g->key_hash));
}
