/* "What if?" rolls (RULES.md 5): one die per side before the first battle, and one more after a
 * battle where an effect allows it (RULES.md 9: Forward Command). */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "db/store.h"
#include "campaign/rules_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct effect_row *find_effect(struct campaign *c, const char *id)
{
    for (int i = 0; i < c->neffects; i++)
        if (strcmp(c->effects[i].event_id, id) == 0)
            return &c->effects[i];
    return NULL;
}

/* `from_battle`: 0, or for a second roll the first battle the event is in force at. */
static enum cres store_effect(struct db *db, struct campaign *c, const struct event_def *ev,
                              enum side roller, int from_battle)
{
    struct effect_row *row = find_effect(c, ev->id);
    if (!row) {
        if (c->neffects >= RS_MAX_EVENTS)
            return C_DBERR;
        row = &c->effects[c->neffects++];
        memset(row, 0, sizeof *row);
        snprintf(row->event_id, sizeof row->event_id, "%s", ev->id);
        row->data = json_pack("{s:s, s:s, s:o, s:b}", "name", ev->name, "text", ev->text, "scope",
                              scope_to_json(&ev->scope), "stacks", ev->stacks);
        if (from_battle) {
            row->from_battle = from_battle;
            json_object_set_new(row->data, "from_battle", json_integer(from_battle));
        }
    }
    row->rolled_by[roller] = true;
    char by[32];
    snprintf(by, sizeof by, "{%s%s%s}", row->rolled_by[SIDE_ALLIES] ? "allies" : "",
             row->rolled_by[SIDE_ALLIES] && row->rolled_by[SIDE_AXIS] ? "," : "",
             row->rolled_by[SIDE_AXIS] ? "axis" : "");
    char *data = json_dumps(row->data, JSON_COMPACT);
    long ok = data ? db_effect_upsert(db, c->id, ev->id, by, data) : -1;
    free(data);
    return ok == 1 ? C_OK : C_DBERR;
}

enum cres campaign_what_if(struct db *db, struct campaign *c, enum side side,
                           const struct roll_input *in, struct what_if_output *out, struct cerr *e)
{
    memset(out, 0, sizeof *out);
    const struct ruleset *rs = campaign_ruleset(c, e);
    if (!rs)
        return C_REFUSED;
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL, "The campaign is finished.");
    if (!c->what_if || !rs->what_if.enabled)
        return refuse(e, PROBLEM_RULE_VIOLATION, NULL,
                      "This campaign was created without What-if events.");
    /* A second roll after a battle, where an effect allows it (Forward Command). */
    bool again = c->what_if_event[side][0] && campaign_what_if_again(c, side);
    if (c->what_if_event[side][0] && !again)
        return refuse(e, PROBLEM_ALREADY_DONE, NULL, "The %s already rolled their What-if die.",
                      side_title(side));
    struct battle *first = campaign_battle(c, 1);
    if (!again && first && first->phase != PHASE_SETUP) {
        refuse(e, PROBLEM_WRONG_PHASE, NULL,
               "What-if events are rolled before the first battle, which is %s.",
               phase_words(first->phase));
        e->phase = phase_name(PHASE_SETUP);
        return C_REFUSED;
    }
    enum cres rc = roll_draw(c, side, "what_if", 1, in, &out->roll, e);
    if (rc != C_OK)
        return rc;
    const struct event_def *ev = what_if_event(rs, side, out->roll.faces[0]);
    if (!ev)
        return refuse(e, PROBLEM_RULE_VIOLATION, NULL, "The ruleset has no What-if table.");
    out->event = ev;
    bool already = find_effect(c, ev->id) != NULL;
    out->applied = !already || ev->stacks;
    /* The first roll belongs to no battle (0); a second one to the battle played before it. */
    int battle = again ? c->nbattles : 0;
    rc = roll_store(db, c, "what_if", battle, &out->roll,
                    json_pack("{s:s, s:b}", "event", ev->id, "applied", out->applied));
    if (rc != C_OK)
        return rc;
    if (again) {
        c->what_if_again[side] = battle;
        snprintf(c->what_if_again_event[side], sizeof c->what_if_again_event[side], "%s", ev->id);
        c->what_if_again_face[side] = out->roll.faces[0];
    } else {
        snprintf(c->what_if_event[side], sizeof c->what_if_event[side], "%s", ev->id);
        c->what_if_face[side] = out->roll.faces[0];
    }
    int tokens[SIDE_COUNT] = {c->tokens[0], c->tokens[1]};
    what_if_apply_now(ev, side, already, tokens);
    char reason[RS_ID_MAX + 16];
    snprintf(reason, sizeof reason, "what_if:%s", ev->id);
    for (int s = 0; s < SIDE_COUNT; s++)
        if (campaign_tokens(db, c, (enum side)s, tokens[s], reason, 0) != C_OK)
            return C_DBERR;
    if (store_effect(db, c, ev, side, again ? battle + 1 : 0) != C_OK)
        return C_DBERR;
    /* The first battle may have waited in setup for the What-if rolls: what the events change
     * in its set-up applies now (Soviet Invasion at Szack), and it may go on. */
    if (first && first->phase == PHASE_SETUP) {
        battle_apply_overrides(c, first);
        phase_advance(c, first, NULL);
        if (battle_save(db, c, first) != C_OK)
            return C_DBERR;
    }
    return chat_tell(db, c, "what_if", "%s rolled their What-if die (%s): %s, %s%s.",
                     side_title(side), out->roll.table ? "at the table" : "server dice",
                     face_name(out->roll.faces[0]), ev->name,
                     out->applied ? "" : " (already in force: it does not count twice)");
}
