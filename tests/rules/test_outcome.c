/* Campaign outcome (winner, victory points, grades) and scenario lists. */
#include "campaign/ruleset_load.h"
#include "rules/rules.h"
#include "tests/common/testkit.h"
#include "tests/rules/rulestest.h"

#include <stdlib.h>
#include <string.h>

struct outcome_case {
    const char *ruleset;
    struct standing st;
    int winner;
    int vp[2];
};

static const struct outcome_case cases[] = {
    {"standard", {{2, 1}, {10, 14}, {0, 0}}, SIDE_ALLIES, {10, 14}},
    {"standard", {{1, 2}, {14, 10}, {0, 0}}, SIDE_AXIS, {14, 10}},
    {"standard", {{2, 2}, {15, 12}, {0, 0}}, SIDE_ALLIES, {15, 12}}, /* tie: medals */
    {"standard", {{2, 2}, {12, 13}, {0, 0}}, SIDE_AXIS, {12, 13}},
    {"standard", {{2, 2}, {12, 12}, {0, 0}}, -1, {12, 12}}, /* a draw */
    {"simplified", {{0, 0}, {0, 0}, {0, 0}}, -1, {0, 0}},
    /* Flanking Caen track: Allies 0,2,2,3,3,4 (5+); Axis -1, 1 (1+). RULES.md 9: "Campaign
     * Book 1 winner: the side with more campaign victory points (medals + objective bonus),
     * ties broken by battles won." */
    {"cb1-flanking-caen", {{2, 1}, {15, 13}, {0, 0}}, SIDE_ALLIES, {15, 12}},
    {"cb1-flanking-caen", {{2, 1}, {15, 13}, {1, 1}}, SIDE_ALLIES, {17, 14}},
    {"cb1-flanking-caen", {{2, 1}, {15, 13}, {3, 4}}, SIDE_ALLIES, {18, 14}},
    {"cb1-flanking-caen", {{2, 1}, {15, 13}, {9, 0}}, SIDE_ALLIES, {19, 12}},
    {"cb1-the-breakout", {{1, 2}, {11, 12}, {4, 2}}, SIDE_ALLIES, {14, 12}},
    /* D7 of the audit: Allies 2 wins and 12 medals, Axis 1 win, 14 medals and 2 objective
     * medals: Axis 14 + 1 = 15 victory points against 12; the Axis win the campaign. */
    {"cb1-flanking-caen", {{2, 1}, {12, 14}, {0, 2}}, SIDE_AXIS, {12, 15}},
    /* Equal victory points: battles won decide. */
    {"cb1-flanking-caen", {{1, 2}, {13, 12}, {0, 2}}, SIDE_AXIS, {13, 13}},
};

static void test_outcomes(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct outcome_case *c = &cases[i];
        const struct ruleset *rs = rs_get(c->ruleset);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
        struct outcome o;
        campaign_outcome(rs, &c->st, &o);
        CU_ASSERT_EQUAL(o.winner, c->winner);
        CU_ASSERT_EQUAL(o.victory_points[0], c->vp[0]);
        CU_ASSERT_EQUAL(o.victory_points[1], c->vp[1]);
        CU_ASSERT_EQUAL(o.has_track, strncmp(c->ruleset, "cb1-", 4) == 0);
        CU_ASSERT_STRING_EQUAL(o.grade, "");
    }
}

/* Major / Minor grades and grand-campaign points come from data. */
static void test_grades_from_data(void)
{
    const char *doc = "{\"id\":\"graded\",\"name\":\"Graded\",\"description\":\"test\","
                      "\"outcome\":{\"rank_by\":[\"victory_points\",\"battles_won\"],"
                      "\"grades\":[{\"name\":\"major\",\"min_margin\":6,\"points\":2},"
                      "{\"name\":\"minor\",\"min_margin\":1,\"points\":1}],"
                      "\"objective_track\":{\"allies\":[0,1,3],\"axis\":[0]}}}";
    json_t *j = json_loads(doc, 0, NULL);
    char err[512];
    struct ruleset *rs = ruleset_from_json(j, "graded.json", err, sizeof err);
    json_decref(j);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
    static const struct {
        struct standing st;
        int winner;
        const char *grade;
        int points;
    } t[] = {
        {{{1, 2}, {20, 10}, {0, 0}}, SIDE_ALLIES, "major", 2}, /* VP 20 v 10 */
        {{{1, 2}, {12, 10}, {2, 0}}, SIDE_ALLIES, "minor", 1}, /* VP 15 v 10: margin 5 */
        {{{1, 2}, {10, 10}, {7, 0}}, SIDE_ALLIES, "minor", 1}, /* bonus 3 (last repeats) */
        {{{1, 2}, {10, 16}, {0, 0}}, SIDE_AXIS, "major", 2},
        {{{1, 2}, {10, 10}, {0, 0}}, SIDE_AXIS, "", 0}, /* VP tie: battles decide, no grade */
        {{{2, 2}, {10, 10}, {0, 0}}, -1, "", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct outcome o;
        campaign_outcome(rs, &t[i].st, &o);
        CU_ASSERT_EQUAL(o.winner, t[i].winner);
        if (t[i].winner >= 0 && t[i].points) {
            CU_ASSERT_STRING_EQUAL(o.grade, t[i].grade);
        }
        CU_ASSERT_EQUAL(o.points, t[i].points);
    }
    free(rs);
}

/* The CB1 scenario lists: order, who moves first, cards, medals, branches, token additions. */
static void test_cb1_scenarios(void)
{
    const struct ruleset *rs = rs_get("cb1-flanking-caen");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
    const struct scenario_list *l = &rs->scenarios;
    CU_ASSERT_EQUAL_FATAL(l->n, 4);
    CU_ASSERT_STRING_EQUAL(l->s[l->start].name, "Securing the Flank");
    CU_ASSERT_EQUAL(l->s[0].first_player, SIDE_ALLIES);
    CU_ASSERT_EQUAL(l->s[0].cards[SIDE_ALLIES], 4);
    CU_ASSERT_EQUAL(l->s[0].cards[SIDE_AXIS], 5);
    CU_ASSERT_EQUAL(l->s[0].medals_to_win, 5);
    int hill = scenario_find(l, "Withdrawal from Hill 112");
    CU_ASSERT_EQUAL_FATAL(hill, 2);
    CU_ASSERT_EQUAL(l->s[hill].first_player, SIDE_AXIS);
    CU_ASSERT_EQUAL(l->s[hill].next[SIDE_ALLIES], SCENARIO_END);
    CU_ASSERT_EQUAL(l->s[hill].next[SIDE_AXIS], scenario_find(l, "Hill 112"));
    CU_ASSERT_EQUAL(l->s[0].next[SIDE_AXIS], 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(l->note, "Provisional"));
    CU_ASSERT_EQUAL(rs->tokens_default[SIDE_ALLIES], 3);
    CU_ASSERT_EQUAL(rs->tokens_default[SIDE_AXIS], 1);

    rs = rs_get("cb1-the-breakout");
    int mortain = scenario_find(&rs->scenarios, "Counter-attack on Mortain");
    CU_ASSERT_EQUAL_FATAL(mortain, 3);
    CU_ASSERT_EQUAL(rs->scenarios.s[mortain].tokens_added[SIDE_ALLIES], 1);
    CU_ASSERT_EQUAL(rs->scenarios.s[mortain].tokens_added[SIDE_AXIS], 1);
    CU_ASSERT_EQUAL(rs->scenarios.s[0].tokens_added[SIDE_ALLIES], 0);
    CU_ASSERT_EQUAL(rs->tokens_default[SIDE_AXIS], 2);

    rs = rs_get("cb1-early-falaise");
    int pincon = scenario_find(&rs->scenarios, "Mont Pinçon");
    CU_ASSERT_EQUAL_FATAL(pincon, 1);
    CU_ASSERT_EQUAL(rs->scenarios.s[pincon].next[SIDE_AXIS], SCENARIO_END);
    CU_ASSERT_EQUAL(rs->scenarios.s[pincon].next[SIDE_ALLIES], 2);
    /* Rulesets without a list leave it to the organizer. */
    CU_ASSERT_EQUAL(rs_get("standard")->scenarios.n, 0);
}

void register_outcome_tests(void)
{
    CU_pSuite s = CU_add_suite("outcome and scenario lists", NULL, NULL);
    CU_add_test(s, "winner: battles, then medals; victory points", test_outcomes);
    CU_add_test(s, "Major/Minor grades from data", test_grades_from_data);
    CU_add_test(s, "CB1 Normandy scenario lists", test_cb1_scenarios);
}
