/* A new battle: from the request, or the next scenario of the campaign's list. */
#include "campaign/campaign.h"

#include "db/store.h"

#include <stdio.h>
#include <string.h>

enum cres campaign_new_battle(struct db *db, struct campaign *c, const struct battle_input *in,
                              struct battle **out, struct cerr *e)
{
    const struct ruleset *rs = campaign_ruleset(c, e);
    if (!rs)
        return C_REFUSED;
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL, "The campaign is finished.");
    struct battle *cur = campaign_current(c);
    if (cur && cur->phase != PHASE_FINISHED) {
        refuse(e, PROBLEM_WRONG_PHASE, NULL,
               "Battle %d is in phase %s; record its result before the next battle.", cur->number,
               phase_name(cur->phase));
        e->phase = phase_name(PHASE_FINISHED);
        return C_REFUSED;
    }
    if (c->nbattles >= MAX_BATTLES)
        return refuse(e, PROBLEM_RULE_VIOLATION, NULL, "A campaign has at most %d battles.",
                      MAX_BATTLES);
    struct battle nb = {.number = c->nbattles + 1, .winner = -1, .phase = PHASE_SETUP};
    int added[SIDE_COUNT] = {0, 0};
    int next = campaign_next_scenario(c);
    if (next >= 0) {
        const struct scenario_def *def = &c->scenarios->s[next];
        if (in->scenario && strcmp(in->scenario, def->name) != 0)
            return refuse(e, PROBLEM_SCENARIO_NOT_NEXT, "scenario",
                          "The campaign's scenario list says the next battle is \"%s\".",
                          def->name);
        snprintf(nb.scenario, sizeof nb.scenario, "%s", def->name);
        nb.first_player = def->first_player;
        memcpy(nb.cards, def->cards, sizeof nb.cards);
        nb.medals_to_win = def->medals_to_win;
        memcpy(added, def->tokens_added, sizeof added);
    } else if (next == SCENARIO_END) {
        return refuse(e, PROBLEM_ALREADY_DONE, NULL,
                      "The campaign's scenario list has ended: finish the campaign.");
    } else if (!in->scenario) {
        return refuse(e, PROBLEM_MISSING_FIELD, "scenario",
                      "scenario is required: this campaign has no scenario list.");
    } else {
        snprintf(nb.scenario, sizeof nb.scenario, "%s", in->scenario);
    }
    /* Given fields override the list's (a group may play a variant). */
    if (in->first_player >= 0)
        nb.first_player = (enum side)in->first_player;
    for (int s = 0; s < SIDE_COUNT; s++)
        if (in->cards[s] > 0)
            nb.cards[s] = in->cards[s];
    if (in->medals_to_win > 0)
        nb.medals_to_win = in->medals_to_win;
    nb.commissar = in->commissar;
    if (next < 0) {
        const char *missing = in->first_player < 0     ? "first_player"
                              : in->cards[0] <= 0      ? "cards.allies"
                              : in->cards[1] <= 0      ? "cards.axis"
                              : in->medals_to_win <= 0 ? "medals_to_win"
                                                       : NULL;
        if (missing)
            return refuse(e, PROBLEM_MISSING_FIELD, missing,
                          "%s is required: this campaign has no scenario list.", missing);
    }
    phase_advance(c, &nb, NULL);
    char num[16], ca[16], cx[16], mw[16];
    snprintf(num, sizeof num, "%d", nb.number);
    snprintf(ca, sizeof ca, "%d", nb.cards[0]);
    snprintf(cx, sizeof cx, "%d", nb.cards[1]);
    snprintf(mw, sizeof mw, "%d", nb.medals_to_win);
    const char *p[] = {c->id,
                       num,
                       nb.scenario,
                       side_name(nb.first_player),
                       ca,
                       cx,
                       mw,
                       nb.commissar >= 0 ? side_name((enum side)nb.commissar) : NULL,
                       phase_name(nb.phase)};
    if (!db_battle_insert(db, p))
        return C_DBERR;
    c->battles[c->nbattles++] = nb;
    for (int s = 0; s < SIDE_COUNT; s++)
        if (added[s] && campaign_tokens(db, c, (enum side)s, c->tokens[s] + added[s],
                                        "scenario_bonus", nb.number) != C_OK)
            return C_DBERR;
    *out = &c->battles[c->nbattles - 1];
    json_t *log = json_pack(
        "{s:i, s:s, s:s, s:{s:i, s:i}, s:i, s:o}", "number", nb.number, "scenario", nb.scenario,
        "first_player", side_name(nb.first_player), "cards", "allies", nb.cards[0], "axis",
        nb.cards[1], "medals_to_win", nb.medals_to_win, "commissar",
        nb.commissar >= 0 ? json_string(side_name((enum side)nb.commissar)) : json_null());
    return campaign_log(db, c, "organizer", "battle_created", log);
}
