/* Grand campaigns (RULES.md 8): each finished campaign graded, points, the winner and its
 * ties; the grand rulesets, built in and from --rulesets-dir, with broken files refused. The
 * expectations are RULES.md 8's, worked by hand. */
#include "campaign/grand_rulesets.h"
#include "tests/common/testkit.h"
#include "tests/rules/rulestest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* RULES.md 8: Major (2 points) when the winner won at least twice the loser's battles,
 * otherwise Minor (1); a draw gives nobody points. */
static const struct grand_grade GRADES[] = {{"Major", 2, 2}, {"Minor", 0, 1}};

struct grade_case {
    bool finished;
    int winner;
    int won[2];
    const char *grade; /* NULL: none */
};

static const struct grade_case grade_cases[] = {
    {true, SIDE_ALLIES, {2, 1}, "Major"}, /* exactly twice */
    {true, SIDE_ALLIES, {3, 2}, "Minor"},
    {true, SIDE_AXIS, {0, 3}, "Major"},
    {true, SIDE_AXIS, {1, 1}, "Minor"},   /* won on medals or victory points */
    {true, SIDE_ALLIES, {1, 2}, "Minor"}, /* fewer battles won, more victory points */
    {true, SIDE_ALLIES, {0, 0}, "Major"}, /* 0 >= 2 x 0 */
    {true, -1, {2, 2}, NULL},             /* a draw */
    {false, SIDE_ALLIES, {3, 0}, NULL},   /* not finished yet */
};

static void test_grades(void)
{
    for (size_t i = 0; i < sizeof grade_cases / sizeof grade_cases[0]; i++) {
        const struct grade_case *c = &grade_cases[i];
        struct grand_part p = {.finished = c->finished, .winner = c->winner};
        memcpy(p.battles_won, c->won, sizeof p.battles_won);
        const struct grand_grade *g = grand_grade_of(GRADES, 2, &p);
        if (!c->grade) {
            CU_ASSERT_PTR_NULL(g);
        } else {
            CU_ASSERT_PTR_NOT_NULL_FATAL(g);
            CU_ASSERT_STRING_EQUAL(g->name, c->grade);
        }
    }
}

struct outcome_case {
    int n;
    struct {
        int winner, won[2], medals[2];
    } parts[4];
    int points[2];
    int winner; /* -1: tied on all three */
};

static const struct outcome_case outcome_cases[] = {
    /* More points win: Major 2 + Minor 1 against Major 2. */
    {3, {{0, {2, 0}, {12, 5}}, {1, {0, 2}, {4, 12}}, {0, {3, 2}, {20, 18}}}, {3, 2}, SIDE_ALLIES},
    /* Two Majors, points 2-2: more battles won over all campaigns, 3 + 1 against 1 + 2. */
    {2, {{0, {3, 1}, {18, 10}}, {1, {1, 2}, {12, 14}}}, {2, 2}, SIDE_ALLIES},
    /* Two Minors, points 1-1, battles won 3 + 2 = 5 each: more medals, 25 against 27. */
    {2, {{0, {3, 2}, {15, 16}}, {1, {2, 3}, {10, 11}}}, {1, 1}, SIDE_AXIS},
    /* Points, battles and medals all tied: no winner. */
    {2, {{0, {2, 0}, {10, 4}}, {1, {0, 2}, {4, 10}}}, {2, 2}, -1},
    /* A draw gives nobody points; unfinished parts count battles and medals only. */
    {2, {{-1, {1, 1}, {6, 6}}, {-2, {2, 0}, {12, 3}}}, {0, 0}, SIDE_ALLIES},
};

static void test_outcome(void)
{
    for (size_t i = 0; i < sizeof outcome_cases / sizeof outcome_cases[0]; i++) {
        const struct outcome_case *c = &outcome_cases[i];
        struct grand_part parts[4];
        for (int k = 0; k < c->n; k++) {
            parts[k].finished = c->parts[k].winner != -2;
            parts[k].winner = c->parts[k].winner < 0 ? -1 : c->parts[k].winner;
            memcpy(parts[k].battles_won, c->parts[k].won, sizeof parts[k].battles_won);
            memcpy(parts[k].medals, c->parts[k].medals, sizeof parts[k].medals);
        }
        struct grand_result r;
        grand_outcome(GRADES, 2, parts, c->n, &r);
        if (r.points[0] != c->points[0] || r.points[1] != c->points[1] || r.winner != c->winner)
            fprintf(stderr, "\ngrand case %zu: points %d-%d winner %d\n", i, r.points[0],
                    r.points[1], r.winner);
        CU_ASSERT_EQUAL(r.points[SIDE_ALLIES], c->points[0]);
        CU_ASSERT_EQUAL(r.points[SIDE_AXIS], c->points[1]);
        CU_ASSERT_EQUAL(r.winner, c->winner);
    }
}

/* ---- grand rulesets ---- */

static char dir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void clear_dir(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*.json", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot clear %s\n", dir);
}

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/m44-grand.XXXXXX");
    char err[1024];
    if (!mkdtemp(dir) || rulesets_init(NULL, err, sizeof err)) {
        fprintf(stderr, "grand suite: %s\n", err);
        return 1;
    }
    return 0;
}

static int suite_clean(void)
{
    grand_rulesets_shutdown();
    rulesets_shutdown();
    clear_dir();
    rmdir(dir);
    return 0;
}

static void test_builtin(void)
{
    char err[1024];
    CU_ASSERT_EQUAL_FATAL(grand_rulesets_init(NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(grand_rulesets_count(), 2);
    /* Campaign Book 1's five Normandy campaigns, in book order. */
    const char *cb1[] = {"cb1-flanking-caen", "cb1-the-breakout", "cb1-taking-caen",
                         "cb1-early-falaise", "cb1-falaise"};
    const struct grand_ruleset *g = grand_ruleset_find("cb1-normandy-grand");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL_FATAL(g->ncampaigns, 5);
    for (int i = 0; i < 5; i++)
        CU_ASSERT_STRING_EQUAL(g->campaigns[i].ruleset, cb1[i]);
    CU_ASSERT_STRING_EQUAL(g->campaigns[1].name, "The Breakout");
    /* Island Hoppers: Guadalcanal, Marshall Islands, Marianas & Palau Islands, Home Islands. */
    const char *ih[] = {"Guadalcanal", "Marshall Islands", "Marianas & Palau Islands",
                        "Home Islands"};
    g = grand_ruleset_find("island-hoppers-grand");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL_FATAL(g->ncampaigns, 4);
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_STRING_EQUAL(g->campaigns[i].name, ih[i]);
        CU_ASSERT_STRING_EQUAL(g->campaigns[i].ruleset, "island-hoppers");
    }
    /* The grades are data: RULES.md 8's reading. */
    CU_ASSERT_EQUAL_FATAL(g->ngrades, 2);
    CU_ASSERT_STRING_EQUAL(g->grades[0].name, "Major");
    CU_ASSERT_EQUAL(g->grades[0].min_ratio, 2);
    CU_ASSERT_EQUAL(g->grades[0].points, 2);
    CU_ASSERT_EQUAL(g->grades[1].points, 1);
    grand_rulesets_shutdown();
}

#define GRAND(id, campaigns, grades)                                                               \
    "{\"id\":\"" id "\",\"name\":\"N\",\"description\":\"d\",\"campaigns\":[" campaigns            \
    "],\"grades\":[" grades "]}"
#define ONE   "{\"ruleset\":\"standard\",\"name\":\"One\"}"
#define MAJOR "{\"name\":\"Major\",\"min_ratio\":2,\"points\":2}"
#define MINOR "{\"name\":\"Minor\",\"min_ratio\":0,\"points\":1}"

static void test_dir(void)
{
    char err[1024] = "";
    /* Added, and a built-in replaced; a ruleset file beside them is the ruleset loader's. */
    clear_dir();
    write_file("ours.json", GRAND("ours", ONE "," ONE, MAJOR "," MINOR));
    write_file("ih.json", GRAND("island-hoppers-grand", ONE, MINOR));
    write_file("house.json", "{\"id\":\"house\",\"extends\":\"standard\",\"name\":\"H\","
                             "\"description\":\"d\"}");
    CU_ASSERT_EQUAL_FATAL(grand_rulesets_init(dir, err, sizeof err), 0);
    CU_ASSERT_EQUAL(grand_rulesets_count(), 3);
    CU_ASSERT_EQUAL(grand_ruleset_find("ours")->ncampaigns, 2);
    CU_ASSERT_EQUAL(grand_ruleset_find("island-hoppers-grand")->ncampaigns, 1);
    grand_rulesets_shutdown();

    struct {
        const char *doc, *want;
    } cases[] = {
        {GRAND("x", "{\"ruleset\":\"nope\",\"name\":\"A\"}", MINOR),
         "x.json: $.campaigns[0].ruleset: \"nope\" is not a ruleset this server has"},
        {GRAND("x", "", MINOR), "x.json: $.campaigns: must list 1 to"},
        {GRAND("x", ONE, MINOR "," MAJOR),
         "x.json: $.grades[1].min_ratio: grades are listed highest first"},
        {GRAND("x", ONE, ""), "x.json: $.grades: must list 1 to"},
        {GRAND("Bad Id", ONE, MINOR), "x.json: $.id: ids are lowercase"},
        {"{\"id\":\"x\",\"campaigns\":[" ONE "],\"grades\":[" MINOR "],\"colour\":1}",
         "x.json: $: unknown field \"colour\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clear_dir();
        write_file("x.json", cases[i].doc);
        err[0] = '\0';
        CU_ASSERT_EQUAL(grand_rulesets_init(dir, err, sizeof err), -1);
        CU_ASSERT_EQUAL(grand_rulesets_count(), 0);
        if (!strstr(err, cases[i].want))
            fprintf(stderr, "\ngrand dir case %zu: \"%s\" lacks \"%s\"\n", i, err, cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].want));
    }
    /* Two files of the directory with one id. */
    clear_dir();
    write_file("a.json", GRAND("same", ONE, MINOR));
    write_file("b.json", GRAND("same", ONE, MINOR));
    CU_ASSERT_EQUAL(grand_rulesets_init(dir, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "b.json: $.id: \"same\" is also the id of another file"));
    CU_ASSERT_EQUAL(grand_rulesets_init("/nonexistent/rules", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/rules: cannot open"));
}

void register_grand_tests(void)
{
    CU_pSuite s = CU_add_suite("grand campaigns", NULL, NULL);
    CU_add_test(s, "grades: Major, Minor, none", test_grades);
    CU_add_test(s, "points, then battles won, then medals", test_outcome);
    CU_pSuite d = CU_add_suite("grand rulesets", suite_init, suite_clean);
    CU_add_test(d, "built in: CB1 Normandy, Island Hoppers", test_builtin);
    CU_add_test(d, "--rulesets-dir adds, replaces, refuses", test_dir);
}
