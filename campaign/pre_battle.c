/* Pre-battle rolls an effect calls for (RULES.md 9): Naval Struggle's three dice against the
 * US Navy Destroyers, rolled by the Japanese (Axis) player at the start of a battle that has
 * them. A roll like any other: numbered, logged, verifiable. */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "campaign/rules_json.h"

#include <stdio.h>
#include <string.h>

static enum cres no_effect(enum side side, int battle, struct cerr *e)
{
    return refuse(e, PROBLEM_RULE_VIOLATION, NULL,
                  "No effect in force calls for a roll by the %s before battle %d.",
                  side_title(side), battle);
}

enum cres campaign_pre_battle_roll(struct db *db, struct campaign *c, int battle, enum side side,
                                   const struct roll_input *in, struct roll *out, int *hits,
                                   struct cerr *e)
{
    if (!campaign_ruleset(c, e))
        return C_REFUSED;
    /* A battle past its victory events that no effect called a roll for is told so, not to
     * wait for a phase gone by. Before them, an effect may still come (a What-if roll before
     * battle 1): the phase is said. */
    struct battle *any = campaign_battle(c, battle);
    struct pre_battle_need needs[RS_MAX_EVENTS];
    int n = any ? campaign_pre_battle_needs(c, any, needs, RS_MAX_EVENTS) : 0;
    const struct pre_battle_need *need = NULL;
    for (int i = 0; i < n && !need; i++)
        if ((enum side)needs[i].roll->side == side)
            need = &needs[i];
    bool past = any && (any->phase == PHASE_RESERVES || any->phase == PHASE_READY);
    if (past && !c->finished && !need)
        return no_effect(side, battle, e);
    struct battle *b;
    enum cres rc = phase_require(c, battle, PHASE_VICTORY_EVENTS, &b, e);
    if (rc != C_OK)
        return rc;
    if (!need)
        return no_effect(side, battle, e);
    struct battle_detail d;
    if (battle_detail_load(db, c, battle, &d) != C_OK)
        return C_DBERR;
    bool rolled = d.side[side].pb_rolled;
    if (rolled)
        rc = refuse(e, PROBLEM_ALREADY_DONE, NULL,
                    "The %s already made their %s roll for battle %d.", side_title(side),
                    need->event->name, battle);
    else
        rc = roll_draw(c, side, "pre_battle", need->roll->dice, in, out, e);
    if (rc == C_OK) {
        *hits = pre_battle_hits(need->roll, out->faces, out->count);
        rc = roll_store(db, c, "pre_battle", battle, out,
                        json_pack("{s:s, s:s, s:i}", "roll", need->roll->roll, "event",
                                  need->event->id, "hits", *hits));
    }
    if (rc == C_OK) {
        char faces[RULES_MAX_DICE * 12];
        chat_faces(out->faces, out->count, faces, sizeof faces);
        rc = chat_tell(db, c, "pre_battle", "%s rolled for %s before battle %d (%s): %s: %d hit%s.",
                       side_title(side), need->event->name, battle,
                       out->table ? "at the table" : "server dice", faces, *hits,
                       *hits == 1 ? "" : "s");
    }
    if (rc == C_OK) {
        d.side[side].pb_rolled = true;
        d.side[side].pb = *out;
        rc = phase_advance_save(db, c, b, &d);
    }
    battle_detail_free(&d);
    return rc;
}
