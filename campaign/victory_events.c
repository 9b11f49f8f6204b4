/* Victory event rolls (RULES.md 4, 6): each side rolls once, before reserves. */
#include "campaign/campaign.h"

enum cres campaign_victory_roll(struct db *db, struct campaign *c, int battle, enum side side,
                                const struct roll_input *in, struct roll *out, struct cerr *e)
{
    if (!campaign_ruleset(c, e))
        return C_REFUSED;
    /* A side with no dice in this battle (none in the first) is told so, not to wait for a
     * phase in which it would still have none. */
    struct battle *any = campaign_battle(c, battle);
    if (any && !c->finished && any->phase != PHASE_FINISHED &&
        campaign_victory_dice(c, any, side) == 0)
        return refuse(e, PROBLEM_ALREADY_DONE, NULL,
                      "The %s have no victory event dice in battle %d.", side_title(side), battle);
    struct battle *b;
    enum cres rc = phase_require(c, battle, PHASE_VICTORY_EVENTS, &b, e);
    if (rc != C_OK)
        return rc;
    struct battle_detail d;
    if (battle_detail_load(db, c, battle, &d) != C_OK)
        return C_DBERR;
    int dice = campaign_victory_dice(c, b, side);
    if (d.side[side].ve_rolled)
        rc = refuse(e, PROBLEM_ALREADY_DONE, NULL,
                    "The %s already rolled their victory event dice for battle %d.",
                    side_title(side), battle);
    else
        rc = roll_draw(c, side, "victory_events", dice, in, out, e);
    if (rc == C_OK)
        rc = roll_store(db, c, "victory_events", battle, out, NULL);
    if (rc == C_OK) {
        d.side[side].ve_rolled = true;
        d.side[side].ve = *out;
        rc = phase_advance_save(db, c, b, &d);
    }
    battle_detail_free(&d);
    return rc;
}
