/* A battle's result and the carry-over to the next (RULES.md 2). */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include <stdio.h>
#include <string.h>

/* Undeployed reserves are units a side called up in this battle and could not place (RULES.md
 * 2): no more than the options its reserve choice took that bring a new unit onto the map (the
 * ruleset says which grants do: not a kept token or star, nor a grant marked "unit": false).
 * A backup (replayed) is restored as recorded when a reading m44d has applied since it first
 * checked undeployed reserves (2026-11-23) could have recorded it: an earlier one counted the
 * options that cost a token, so a backup may count any option the side took, never more (a
 * backup from before that check with more is refused, as one a rule never allowed). */
static enum cres undeployed_check(struct db *db, const struct campaign *c, const struct ruleset *rs,
                                  int battle, const struct result_input *in, struct cerr *e)
{
    if (!in->undeployed[0] && !in->undeployed[1])
        return C_OK;
    struct battle_detail d;
    if (battle_detail_load(db, c, battle, &d) != C_OK)
        return C_DBERR;
    int units[SIDE_COUNT] = {0, 0};
    for (int s = 0; s < SIDE_COUNT; s++) {
        size_t i;
        json_t *item;
        json_array_foreach(d.side[s].chosen_json, i, item)
        {
            const struct grant_def *g =
                ruleset_grant(rs, json_string_value(json_object_get(item, "grant")));
            /* one the ruleset no longer defines may have been a unit */
            units[s] += in->replayed || !g || g->unit;
        }
    }
    battle_detail_free(&d);
    for (int s = 0; s < SIDE_COUNT; s++) {
        if (in->undeployed[s] <= units[s])
            continue;
        char field[48], called[64];
        snprintf(field, sizeof field, "undeployed_reserves.%s", side_name((enum side)s));
        const char *what = in->replayed ? "reserve option" : "reserve unit";
        if (units[s])
            snprintf(called, sizeof called, "%d %s%s", units[s], what, units[s] == 1 ? "" : "s");
        else
            snprintf(called, sizeof called, "no %s", what);
        if (in->replayed)
            return refuse(e, PROBLEM_RESULT_INCONSISTENT, field,
                          "The %s took %s in battle %d, so they cannot have %d undeployed "
                          "reserve%s.",
                          side_title((enum side)s), called, battle, in->undeployed[s],
                          in->undeployed[s] == 1 ? "" : "s");
        return refuse(e, PROBLEM_RESULT_INCONSISTENT, field,
                      "The %s called up %s in battle %d, so they cannot have %d undeployed: "
                      "check the undeployed reserves.",
                      side_title((enum side)s), called, battle, in->undeployed[s]);
    }
    return C_OK;
}

enum cres campaign_result(struct db *db, struct campaign *c, int battle,
                          const struct result_input *in, struct cerr *e)
{
    const struct ruleset *rs = campaign_ruleset(c, e);
    if (!rs)
        return C_REFUSED;
    struct battle *b;
    enum cres rc = phase_require(c, battle, PHASE_READY, &b, e);
    if (rc != C_OK)
        return rc;
    for (int s = 0; s < SIDE_COUNT; s++) {
        char field[48];
        snprintf(field, sizeof field, "objective_medals.%s", side_name((enum side)s));
        if (in->objective[s] > in->medals[s])
            return refuse(e, PROBLEM_INVALID_FIELD, field,
                          "Objective medals are part of the medals won: the %s won %d medal%s, not "
                          "%d objective medal%s.",
                          side_title((enum side)s), in->medals[s], in->medals[s] == 1 ? "" : "s",
                          in->objective[s], in->objective[s] == 1 ? "" : "s");
    }
    if (in->has_undeployed && !rs->reserve.enabled && (in->undeployed[0] || in->undeployed[1]))
        return refuse(e, PROBLEM_INVALID_FIELD, "undeployed_reserves",
                      "This ruleset has no reserve roll, so no undeployed reserves.");
    rc = undeployed_check(db, c, rs, battle, in, e);
    if (rc != C_OK)
        return rc;
    /* A result that cannot be right (API.md): the loser reached the medals to win, or the
     * winner did not; unless the scenario was won by its special condition. On several maps
     * only the total counts, and the winner may go beyond it. */
    enum side w = in->winner, l = side_other(w);
    char field[48];
    if (!in->sudden_death && in->medals[l] >= b->medals_to_win) {
        snprintf(field, sizeof field, "medals.%s", side_name(l));
        return refuse(e, PROBLEM_RESULT_INCONSISTENT, field,
                      "The %s lost with %d medal%s, but %d win%s this battle: check the winner and "
                      "the medals (or say it was won by the scenario's special condition).",
                      side_title(l), in->medals[l], in->medals[l] == 1 ? "" : "s", b->medals_to_win,
                      b->medals_to_win == 1 ? "s" : "");
    }
    if (!in->sudden_death && in->medals[w] < b->medals_to_win) {
        snprintf(field, sizeof field, "medals.%s", side_name(w));
        return refuse(e, PROBLEM_RESULT_INCONSISTENT, field,
                      "The %s won with %d medal%s, but it takes %d to win this battle: check the "
                      "winner and the medals (or say it was won by the scenario's special "
                      "condition).",
                      side_title(w), in->medals[w], in->medals[w] == 1 ? "" : "s",
                      b->medals_to_win);
    }
    /* The dice each side rolls before the next battle, when the ruleset counts these medals
     * (the simplified rules): no more than a roll holds (the rest of the count is bounded when
     * the ruleset loads). A backup too: its next roll could not be rolled as the rules say. */
    struct standing st;
    campaign_standing(c, &st); /* the battles finished before this one */
    for (int s = 0; s < SIDE_COUNT && battle < MAX_BATTLES; s++) {
        int won = st.battles_won[s] + (s == (int)w);
        long dice = victory_dice_needed(rs, battle + 1, won, in->medals[s]);
        if (dice <= RULES_MAX_DICE)
            continue;
        snprintf(field, sizeof field, "medals.%s", side_name((enum side)s));
        return refuse(e, PROBLEM_RESULT_INCONSISTENT, field,
                      "With %d medal%s in this battle the %s would roll %ld dice before the next "
                      "one, and a roll holds at most %d: check the medals.",
                      in->medals[s], in->medals[s] == 1 ? "" : "s", side_title((enum side)s), dice,
                      RULES_MAX_DICE);
    }
    b->winner = (int)in->winner;
    b->sudden_death = in->sudden_death;
    memcpy(b->medals, in->medals, sizeof b->medals);
    memcpy(b->undeployed, in->undeployed, sizeof b->undeployed);
    memcpy(b->objective, in->objective, sizeof b->objective);
    b->phase = PHASE_FINISHED;
    if (battle_save(db, c, b) != C_OK)
        return C_DBERR;
    /* Only the winner gets a Reserve Token back for each reserve unit it could not place. */
    if (b->undeployed[w] && campaign_tokens(db, c, w, c->tokens[w] + b->undeployed[w],
                                            "undeployed_reserves", battle) != C_OK)
        return C_DBERR;
    /* What-if effects due after this battle (Western Allies after the first). */
    const struct what_if_rules *wi = &rs->what_if;
    for (int i = 0; i < c->neffects; i++)
        for (int k = 0; k < wi->nevents; k++) {
            if (strcmp(wi->events[k].id, c->effects[i].event_id) != 0)
                continue;
            enum side rollers[SIDE_COUNT];
            int n = 0;
            for (int s = 0; s < SIDE_COUNT; s++)
                if (c->effects[i].rolled_by[s])
                    rollers[n++] = (enum side)s;
            int tokens[SIDE_COUNT] = {c->tokens[0], c->tokens[1]};
            if (!what_if_apply_after_battle(&wi->events[k], rollers, n, battle, tokens))
                continue;
            char reason[RS_ID_MAX + 16];
            snprintf(reason, sizeof reason, "what_if:%s", wi->events[k].id);
            for (int s = 0; s < SIDE_COUNT; s++)
                if (campaign_tokens(db, c, (enum side)s, tokens[s], reason, battle) != C_OK)
                    return C_DBERR;
        }
    json_t *log =
        json_pack("{s:i, s:s, s:{s:i, s:i}, s:{s:i, s:i}, s:{s:i, s:i}, s:b}", "battle", battle,
                  "winner", side_name(w), "medals", "allies", in->medals[0], "axis", in->medals[1],
                  "undeployed_reserves", "allies", in->undeployed[0], "axis", in->undeployed[1],
                  "objective_medals", "allies", in->objective[0], "axis", in->objective[1],
                  "sudden_death", in->sudden_death);
    rc = campaign_log(db, c, "organizer", "result", log);
    if (rc != C_OK)
        return rc;
    return chat_tell(db, c, "result", "Battle %d (%s): %s won, %d medal%s to %d%s.", battle,
                     b ? b->scenario : "", side_title(w), in->medals[w],
                     in->medals[w] == 1 ? "" : "s", in->medals[1 - w],
                     in->sudden_death ? ", by the scenario's sudden death" : "");
}
