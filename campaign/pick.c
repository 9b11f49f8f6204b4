/* A side picks the one battle an event is for (RULES.md 9: Night Attacks, "the Axis player may
 * opt to make any one scenario in the campaign a Night Attack"). */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "db/store.h"

#include <stdio.h>
#include <string.h>

enum cres campaign_pick_battle(struct db *db, struct campaign *c, int battle, enum side side,
                               const char *event_id, struct cerr *e)
{
    if (!campaign_ruleset(c, e))
        return C_REFUSED;
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL, "The campaign is finished.");
    struct effect_row *row = NULL;
    for (int i = 0; i < c->neffects; i++)
        if (strcmp(c->effects[i].event_id, event_id) == 0)
            row = &c->effects[i];
    const struct event_def *events[RS_MAX_EVENTS], *ev = NULL;
    int n = campaign_events(c, 0, events, RS_MAX_EVENTS);
    for (int i = 0; i < n; i++)
        if (strcmp(events[i]->id, event_id) == 0)
            ev = events[i];
    const struct effect_def *pick = ev ? event_effect(ev, EFFECT_PICK_BATTLE) : NULL;
    if (!row || !pick)
        return refuse(e, PROBLEM_INVALID_FIELD, "event",
                      "No event in force in this campaign lets a side pick a battle for it%s.",
                      row ? " (that one does not)" : "");
    if ((enum side)pick->side != side)
        return refuse(e, PROBLEM_FORBIDDEN, NULL, "%s is for the %s to pick, not the %s.", ev->name,
                      side_title((enum side)pick->side), side_title(side));
    if (row->picked_battle)
        return refuse(e, PROBLEM_ALREADY_DONE, NULL, "The %s picked battle %d for %s already.",
                      side_title(side), row->picked_battle, ev->name);
    struct battle *b = campaign_battle(c, battle);
    if (!b)
        return refuse(e, PROBLEM_NOT_FOUND, "n", "This campaign has no battle %d.", battle);
    /* The choice is made before the battle starts: once both sides have their reserves it is
     * being played. */
    if (b->phase == PHASE_FINISHED || b->phase == PHASE_READY) {
        refuse(e, PROBLEM_WRONG_PHASE, NULL,
               "Battle %d is %s: %s is picked for a battle before it starts.", battle,
               b->phase == PHASE_FINISHED ? "over" : "being played", ev->name);
        e->phase = phase_name(PHASE_RESERVES);
        return C_REFUSED;
    }
    char num[16];
    snprintf(num, sizeof num, "%d", battle);
    if (!db_effect_pick(db, c->id, event_id, num))
        return C_DBERR;
    row->picked_battle = battle;
    /* What the event changes in the battle's set-up applies there now (a house event may set
     * the first player of the battle picked). */
    battle_apply_overrides(c, b);
    if (battle_save(db, c, b) != C_OK)
        return C_DBERR;
    enum cres rc = campaign_log(
        db, c, side_name(side), "battle_picked",
        json_pack("{s:s, s:i, s:s}", "event", event_id, "battle", battle, "side", side_name(side)));
    return rc == C_OK ? chat_tell(db, c, "battle_picked", "%s picked battle %d for %s.",
                                  side_title(side), battle, ev->name)
                      : rc;
}
