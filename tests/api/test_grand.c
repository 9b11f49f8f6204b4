/*
 * Grand campaigns through HTTP (RULES.md 8, API.md "Grand campaigns"): a whole Campaign Book 1
 * Battle of Normandy, its five campaigns played in book order with their branches followed, and
 * an Island Hoppers grand campaign with What-if events rolled before each campaign. The
 * expectations are worked by hand from the book's data (the scenario lists, branches, medals to
 * win and objective tracks of the five CB1 campaigns, as Campaign Book 1 and the CB1 facts give
 * them) and from RULES.md 8's grades: they are written out below, never read from the server.
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct daemon other; /* where exports are imported */
static char *other_db;

static int suite_init(void)
{
    return other_daemon_start(&other, &other_db, "api_grand");
}

static int suite_clean(void)
{
    /* The announcements a test held back (their triggers off) are on again for the suites
     * after it, even when that test was cut short. */
    bool on = sql_exec_on(api_conninfo,
                          "ALTER TABLE campaigns ENABLE TRIGGER campaigns_version_changed") &&
              sql_exec_on(api_conninfo, "ALTER TABLE grand_campaigns ENABLE TRIGGER "
                                        "grand_campaigns_version_changed");
    return other_daemon_stop(&other, &other_db) == 0 && on ? 0 : 1;
}

static const char *const SIDE[2] = {"allies", "axis"};

/* ---- the grand campaign's requests ---- */

static struct http_resp *grand_req(const struct daemon *d, const char *method, const struct camp *g,
                                   enum who who, const char *suffix, const char *body)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/grand-campaigns/%s%s", g->id, suffix);
    return api(d, method, path, g, who, body, NULL);
}

static bool take_keys(struct http_resp *r, struct camp *g)
{
    memset(g, 0, sizeof *g);
    if (r->status != 201) {
        fprintf(stderr, "\ngrand campaign not created (%ld): %s\n", r->status, r->body);
        return false;
    }
    snprintf(g->id, sizeof g->id, "%s", http_str(r, "id"));
    snprintf(g->key[ORGANIZER], sizeof g->key[0], "%s", http_str(r, "organizer_key"));
    snprintf(g->key[ALLIES], sizeof g->key[0], "%s", http_str(r, "allies_key"));
    snprintf(g->key[AXIS], sizeof g->key[0], "%s", http_str(r, "axis_key"));
    return true;
}

static bool grand_create(const char *body, struct camp *g)
{
    struct http_resp *r =
        api(&api_daemon, "POST", "/api/v1/grand-campaigns", NULL, ANYONE, body, NULL);
    bool ok = take_keys(r, g);
    if (ok) {
        char want[200];
        snprintf(want, sizeof want, "/g/%s#key=%s", g->id, g->key[ALLIES]);
        CU_ASSERT_STRING_EQUAL(http_str(r, "links.allies"), want);
    }
    http_free(r);
    return ok;
}

/* The organizer starts campaign `place` with `body` ("{}": as its rules say); `m` is the
 * campaign, with the grand campaign's keys. */
static bool start_with(const struct camp *g, int place, const char *name, const char *body,
                       struct camp *m)
{
    struct http_resp *r = grand_req(&api_daemon, "POST", g, ORGANIZER, "/next", body);
    bool ok = r->status == 201;
    if (!ok)
        fprintf(stderr, "\nnext campaign %d: %ld %s\n", place, r->status, r->body);
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "place"), place);
    CU_ASSERT_STRING_EQUAL(http_str(r, "name"), name);
    *m = *g;
    snprintf(m->id, sizeof m->id, "%s", http_str(r, "id"));
    http_free(r);
    return ok;
}

static bool start_next(const struct camp *g, int place, const char *name, struct camp *m)
{
    return start_with(g, place, name, "{}", m);
}

/* ---- a battle, played at the table ---- */

struct battle_play {
    const char *scenario; /* as the book names it: the server's list must offer it */
    int winner;           /* 0 allies, 1 axis */
    int medals[2];
    int objective[2];
};

/* Each side rolls its victory-event dice (flags), then its reserves, and takes nothing. */
static void roll_before(const struct camp *m, int n, bool table)
{
    char p[64], body[400];
    for (int s = 0; s < 2 && n > 1; s++) {
        snprintf(p, sizeof p, "/battles/%d", n);
        struct http_resp *bt = camp_get(&api_daemon, m, p);
        snprintf(p, sizeof p, "victory_events.dice.%s", SIDE[s]);
        long dice = http_int(bt, p);
        http_free(bt);
        if (dice <= 0)
            continue;
        char faces[256] = "";
        for (long k = 0; k < dice && k < 20; k++)
            strcat(faces, k ? ",\"flag\"" : "\"flag\"");
        snprintf(body, sizeof body, table ? "{\"faces\":[%s]}" : "{}", faces);
        snprintf(p, sizeof p, "/battles/%d/victory-events", n);
        expect_status(camp_post(&api_daemon, m, s ? AXIS : ALLIES, p, body), 201, "victory events");
    }
    for (int s = 0; s < 2; s++) {
        snprintf(p, sizeof p, "/battles/%d/reserve-roll", n);
        expect_status(camp_post(&api_daemon, m, s ? AXIS : ALLIES, p,
                                table ? "{\"faces\":[\"flag\",\"flag\"]}" : "{}"),
                      201, "reserve roll");
        snprintf(p, sizeof p, "/battles/%d/reserve-choice", n);
        expect_status(camp_post(&api_daemon, m, s ? AXIS : ALLIES, p, "{\"options\":[]}"), 200,
                      "reserve choice");
    }
}

static void play_battle(const struct camp *m, int n, const struct battle_play *b, bool by_list,
                        bool table)
{
    char body[400], p[64];
    if (by_list) {
        /* The list says which scenario comes next: the one the branch leads to. */
        struct http_resp *r = camp_get(&api_daemon, m, "");
        if (strcmp(http_str(r, "next.scenario"), b->scenario) != 0)
            fprintf(stderr, "\nbattle %d: the list offers %s, the book %s\n", n,
                    http_str(r, "next.scenario"), b->scenario);
        CU_ASSERT_STRING_EQUAL(http_str(r, "next.scenario"), b->scenario);
        http_free(r);
        expect_status(camp_post(&api_daemon, m, ORGANIZER, "/battles", "{}"), 201, b->scenario);
    } else {
        snprintf(body, sizeof body,
                 "{\"scenario\":\"%s\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                 "\"axis\":5},\"medals_to_win\":6}",
                 b->scenario);
        expect_status(camp_post(&api_daemon, m, ORGANIZER, "/battles", body), 201, b->scenario);
    }
    roll_before(m, n, table);
    snprintf(p, sizeof p, "/battles/%d/result", n);
    snprintf(body, sizeof body,
             "{\"winner\":\"%s\",\"medals\":{\"allies\":%d,\"axis\":%d},"
             "\"objective_medals\":{\"allies\":%d,\"axis\":%d}}",
             SIDE[b->winner], b->medals[0], b->medals[1], b->objective[0], b->objective[1]);
    expect_status(camp_post(&api_daemon, m, ORGANIZER, p, body), 200, "result");
}

/* ---- Campaign Book 1: the Battle of Normandy ---- */

/*
 * Each campaign's battles as played here: the winners are chosen, and the scenarios are the
 * ones the book's branches then lead to; a winner takes exactly its medals to win (CB1's
 * scenario cards), the loser 2 (or 4). Worked by hand:
 *
 * 1 Flanking Caen (objective track: Allies 0 -> 0; Axis 0 -> -1)
 *   Securing the Flank (Allies, 5-2) -> Capturing the Crossing (Allies, 6-2) -> Withdrawal from
 *   Hill 112 (Allies, 6-2) -> END (an Allies win there ends it).
 *   Allies 3 won, 17 medals, 17 VP; Axis 0 won, 6 medals, 5 VP. Allies; 3 >= 2 x 0: Major, 2.
 * 2 The Breakout (Allies 0 -> 0; Axis 0 -> -2)
 *   Panzer Lehr Counter Attack (Axis, 2-5) -> Martinville Ridge (Allies, 5-2) -> Operation
 *   Cobra (Axis, 2-5) -> Counter-attack on Mortain (Axis, 2-4; an Axis win at Cobra leads
 *   there) -> END.
 *   Allies 1 won, 11 medals, 11 VP; Axis 3 won, 16 medals, 14 VP. Axis; 3 >= 2 x 1: Major, 2.
 * 3 Taking Caen (Allies 3 objective medals -> +2; Axis 0 -> 0)
 *   Drive on Caen (Allies, 5-4, 3 of them objectives) -> Night Withdrawal (Axis, 4-5) ->
 *   Pushing through Caen (Axis, 4-5) -> END.
 *   Allies 1 won, 13 medals, 15 VP; Axis 2 won, 14 medals, 14 VP. Allies win on victory points
 *   with fewer battles won; 1 < 2 x 2: Minor, 1.
 * 4 Early Falaise (Allies 0 -> -1; Axis -> 0)
 *   Saint Martin and Bull Bridge (Axis, 2-5) -> Mont Pinçon (Axis, 2-6) -> END (an Axis win at
 *   Mont Pinçon ends it).
 *   Allies 0 won, 4 medals, 3 VP; Axis 2 won, 11 medals, 11 VP. Axis; Major, 2.
 * 5 Falaise (Allies 0 -> -1; Axis -> 0)
 *   Wittmann's Final Battle (Allies, 6-2) -> Opportunity at Falaise (Axis, 2-5) -> Closing the
 *   Gap (Allies, 6-2) -> END.
 *   Allies 2 won, 14 medals, 13 VP; Axis 1 won, 9 medals, 9 VP. Allies; 2 >= 2 x 1: Major, 2.
 *
 * Points: Allies 2 + 1 + 2 = 5, Axis 2 + 2 = 4: the Allies win the grand campaign.
 * Over all five: battles won Allies 7, Axis 8; medals Allies 59, Axis 56.
 */
struct campaign_play {
    const char *name;
    const char *ruleset;
    int tokens[2]; /* each campaign starts with its own pool (the book's) */
    int nbattles;
    struct battle_play b[4];
    int winner;
    const char *grade;
    int points;
    int won[2], medals[2];
};

static const struct campaign_play CB1[5] = {
    {"Flanking Caen",
     "cb1-flanking-caen",
     {3, 1},
     3,
     {{"Securing the Flank", 0, {5, 2}, {0, 0}},
      {"Capturing the Crossing", 0, {6, 2}, {0, 0}},
      {"Withdrawal from Hill 112", 0, {6, 2}, {0, 0}}},
     0,
     "Major",
     2,
     {3, 0},
     {17, 6}},
    {"The Breakout",
     "cb1-the-breakout",
     {3, 2},
     4,
     {{"Panzer Lehr Counter Attack", 1, {2, 5}, {0, 0}},
      {"Martinville Ridge", 0, {5, 2}, {0, 0}},
      {"Operation Cobra", 1, {2, 5}, {0, 0}},
      {"Counter-attack on Mortain", 1, {2, 4}, {0, 0}}},
     1,
     "Major",
     2,
     {1, 3},
     {11, 16}},
    {"Taking Caen",
     "cb1-taking-caen",
     {3, 1},
     3,
     {{"Drive on Caen", 0, {5, 4}, {3, 0}},
      {"Night Withdrawal", 1, {4, 5}, {0, 0}},
      {"Pushing through Caen", 1, {4, 5}, {0, 0}}},
     0,
     "Minor",
     1,
     {1, 2},
     {13, 14}},
    {"Early Falaise",
     "cb1-early-falaise",
     {3, 1},
     2,
     {{"Saint Martin and Bull Bridge", 1, {2, 5}, {0, 0}}, {"Mont Pinçon", 1, {2, 6}, {0, 0}}},
     1,
     "Major",
     2,
     {0, 2},
     {4, 11}},
    {"Falaise",
     "cb1-falaise",
     {2, 1},
     3,
     {{"Wittmann's Final Battle", 0, {6, 2}, {0, 0}},
      {"Opportunity at Falaise", 1, {2, 5}, {0, 0}},
      {"Closing the Gap", 0, {6, 2}, {0, 0}}},
     0,
     "Major",
     2,
     {2, 1},
     {14, 9}},
};

/* The grand campaign's standing shows campaign `k` (0-based) as played. */
static void check_part(struct http_resp *r, int k, const struct campaign_play *cp,
                       const char *status)
{
    char p[80];
#define AT(fmt) (snprintf(p, sizeof p, "campaigns.%d." fmt, k), p)
    CU_ASSERT_EQUAL(http_int(r, AT("place")), k + 1);
    CU_ASSERT_STRING_EQUAL(http_str(r, AT("name")), cp->name);
    CU_ASSERT_STRING_EQUAL(http_str(r, AT("ruleset")), cp->ruleset);
    CU_ASSERT_STRING_EQUAL(http_str(r, AT("status")), status);
    if (strcmp(status, "finished") != 0)
        return;
    if (cp->winner >= 0) {
        CU_ASSERT_STRING_EQUAL(http_str(r, AT("winner")), SIDE[cp->winner]);
        CU_ASSERT_STRING_EQUAL(http_str(r, AT("grade")), cp->grade);
    } else {
        CU_ASSERT_TRUE(json_is_null(http_json_at(r, AT("winner"))));
        CU_ASSERT_TRUE(json_is_null(http_json_at(r, AT("grade"))));
    }
    CU_ASSERT_EQUAL(http_int(r, AT("points")), cp->points);
    /* The campaign's own standing grades it the same way. */
    char path[128];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s", http_str(r, AT("id")));
    struct http_resp *own = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, NULL);
    CU_ASSERT_STRING_EQUAL(http_str(own, "outcome.grade"), cp->winner >= 0 ? cp->grade : "");
    CU_ASSERT_EQUAL(http_int(own, "outcome.points"), cp->points);
    http_free(own);
    CU_ASSERT_EQUAL(http_int(r, AT("battles_won.allies")), cp->won[0]);
    CU_ASSERT_EQUAL(http_int(r, AT("battles_won.axis")), cp->won[1]);
    CU_ASSERT_EQUAL(http_int(r, AT("medals.allies")), cp->medals[0]);
    CU_ASSERT_EQUAL(http_int(r, AT("medals.axis")), cp->medals[1]);
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, AT("battles"))), (size_t)cp->nbattles);
    for (int n = 0; n < cp->nbattles; n++) {
        snprintf(p, sizeof p, "campaigns.%d.battles.%d.scenario", k, n);
        CU_ASSERT_STRING_EQUAL(http_str(r, p), cp->b[n].scenario);
        snprintf(p, sizeof p, "campaigns.%d.battles.%d.result.winner", k, n);
        CU_ASSERT_STRING_EQUAL(http_str(r, p), SIDE[cp->b[n].winner]);
    }
#undef AT
}

/* Plays a campaign of a grand campaign through; the standing along the way shows it. */
static void play_campaign(const struct camp *g, const struct camp *m, int k, int of,
                          const struct campaign_play *cp, bool by_list, bool table)
{
    struct http_resp *r = camp_get(&api_daemon, m, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "name"), cp->name);
    CU_ASSERT_STRING_EQUAL(http_str(r, "ruleset"), cp->ruleset);
    CU_ASSERT_STRING_EQUAL(http_str(r, "grand_campaign.id"), g->id);
    CU_ASSERT_EQUAL(http_int(r, "grand_campaign.place"), k + 1);
    if (cp->tokens[0] >= 0) {
        CU_ASSERT_EQUAL(http_int(r, "sides.allies.reserve_tokens"), cp->tokens[0]);
        CU_ASSERT_EQUAL(http_int(r, "sides.axis.reserve_tokens"), cp->tokens[1]);
    }
    http_free(r);
    for (int n = 0; n < cp->nbattles; n++) {
        play_battle(m, n + 1, &cp->b[n], by_list, table);
        if (n + 1 < cp->nbattles) {
            /* Not over yet: the next campaign cannot start (after the last, there is none). */
            r = grand_req(&api_daemon, "POST", g, ORGANIZER, "/next", "{}");
            assert_problem(r, 409, k + 1 < of ? "wrong-phase" : "already-done");
            http_free(r);
        }
    }
    if (by_list) {
        r = camp_get(&api_daemon, m, "");
        CU_ASSERT_TRUE(json_is_true(http_json_at(r, "campaign_over")));
        http_free(r);
    }
    r = camp_post(&api_daemon, m, ORGANIZER, "/finish", "{}");
    CU_ASSERT_EQUAL(r->status, 200);
    if (cp->winner >= 0) {
        CU_ASSERT_STRING_EQUAL(http_str(r, "winner"), SIDE[cp->winner]);
    } else {
        CU_ASSERT_TRUE(json_is_null(http_json_at(r, "winner")));
    }
    http_free(r);
}

/* The grand campaign's totals after campaign `k` (0-based) finished. */
static void check_totals(const struct camp *g, const struct campaign_play *plays, int k, int n)
{
    int points[2] = {0, 0}, won[2] = {0, 0}, medals[2] = {0, 0};
    for (int i = 0; i <= k; i++) {
        if (plays[i].winner >= 0)
            points[plays[i].winner] += plays[i].points;
        for (int s = 0; s < 2; s++) {
            won[s] += plays[i].won[s];
            medals[s] += plays[i].medals[s];
        }
    }
    struct http_resp *r = grand_req(&api_daemon, "GET", g, ANYONE, "", NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    for (int i = 0; i < n; i++)
        check_part(r, i, &plays[i], i <= k ? "finished" : "not started");
    CU_ASSERT_EQUAL(http_int(r, "points.allies"), points[0]);
    CU_ASSERT_EQUAL(http_int(r, "points.axis"), points[1]);
    CU_ASSERT_EQUAL(http_int(r, "battles_won.allies"), won[0]);
    CU_ASSERT_EQUAL(http_int(r, "battles_won.axis"), won[1]);
    CU_ASSERT_EQUAL(http_int(r, "medals.allies"), medals[0]);
    CU_ASSERT_EQUAL(http_int(r, "medals.axis"), medals[1]);
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "current")));
    if (k + 1 < n) {
        CU_ASSERT_STRING_EQUAL(http_str(r, "status"), "active");
        CU_ASSERT_EQUAL(http_int(r, "next.place"), k + 2);
        CU_ASSERT_STRING_EQUAL(http_str(r, "next.name"), plays[k + 1].name);
        CU_ASSERT_STRING_EQUAL(http_str(r, "waiting_for.0"), "organizer:next-campaign");
    } else {
        CU_ASSERT_STRING_EQUAL(http_str(r, "status"), "finished");
        CU_ASSERT_TRUE(json_is_null(http_json_at(r, "next")));
    }
    http_free(r);
}

static char cb1_id[40];
static char cb1_export[1 << 21];

static void test_cb1_normandy(void)
{
    struct camp g, m;
    CU_ASSERT_FATAL(grand_create("{\"name\":\"Normandy 44\",\"grand_ruleset\":"
                                 "\"cb1-normandy-grand\",\"dice\":\"table\",\"players\":"
                                 "{\"allies\":\"Ann\",\"axis\":\"Bo\"}}",
                                 &g));
    snprintf(cb1_id, sizeof cb1_id, "%s", g.id);
    /* Nothing started: no current campaign, the first is next. */
    struct http_resp *r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "campaigns")), 5);
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "current")));
    CU_ASSERT_STRING_EQUAL(http_str(r, "next.name"), "Flanking Caen");
    CU_ASSERT_STRING_EQUAL(http_str(r, "players.allies"), "Ann");
    http_free(r);
    /* Only the organizer starts a campaign. */
    r = grand_req(&api_daemon, "POST", &g, ALLIES, "/next", "{}");
    assert_problem(r, 403, "forbidden");
    http_free(r);
    for (int k = 0; k < 5; k++) {
        CU_ASSERT_FATAL(start_next(&g, k + 1, CB1[k].name, &m));
        r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
        CU_ASSERT_STRING_EQUAL(http_str(r, "current"), m.id);
        check_part(r, k, &CB1[k], "active");
        http_free(r);
        play_campaign(&g, &m, k, 5, &CB1[k], true, true);
        check_totals(&g, CB1, k, 5);
    }
    r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
    CU_ASSERT_STRING_EQUAL(http_str(r, "winner"), "allies");
    CU_ASSERT_EQUAL(http_int(r, "points.allies"), 5);
    CU_ASSERT_EQUAL(http_int(r, "points.axis"), 4);
    CU_ASSERT_EQUAL(http_int(r, "battles_won.allies"), 7);
    CU_ASSERT_EQUAL(http_int(r, "battles_won.axis"), 8);
    CU_ASSERT_EQUAL(http_int(r, "medals.allies"), 59);
    CU_ASSERT_EQUAL(http_int(r, "medals.axis"), 56);
    http_free(r);
    /* All five played: there is no sixth. */
    r = grand_req(&api_daemon, "POST", &g, ORGANIZER, "/next", "{}");
    assert_problem(r, 409, "already-done");
    http_free(r);
    r = grand_req(&api_daemon, "GET", &g, ANYONE, "/export", NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "format"), "m44d-grand-campaign-export");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "campaigns")), 5);
    snprintf(cb1_export, sizeof cb1_export, "%s", r->body);
    http_free(r);
}

/* ---- Island Hoppers: What-if before each campaign ---- */

/*
 * Four campaigns, battles set up by hand, What-if dice rolled at the table before each, server
 * dice for the rest. Worked by hand from RULES.md 2 and 8 (more battles won, then medals; a
 * draw gives nobody points):
 * 1 Guadalcanal: the Allies win 1-0: Major, 2.
 * 2 Marshall Islands: the Axis win 1-0: Major, 2.
 * 3 Marianas & Palau Islands: 1-1; medals Allies 6 + 1 = 7, Axis 2 + 6 = 8: the Axis, 1 < 2 x 1:
 *   Minor, 1.
 * 4 Home Islands: 1-1; medals 6 + 3 = 9 each: a draw, no points.
 * Points: Allies 2, Axis 3: the Axis win the grand campaign.
 */
static const struct campaign_play IH[4] = {
    {"Guadalcanal",
     "island-hoppers",
     {-1, -1},
     1,
     {{"Bloody Ridge", 0, {6, 3}, {0, 0}}},
     0,
     "Major",
     2,
     {1, 0},
     {6, 3}},
    {"Marshall Islands",
     "island-hoppers",
     {-1, -1},
     1,
     {{"Kwajalein", 1, {2, 6}, {0, 0}}},
     1,
     "Major",
     2,
     {0, 1},
     {2, 6}},
    {"Marianas & Palau Islands",
     "island-hoppers",
     {-1, -1},
     2,
     {{"Saipan", 0, {6, 2}, {0, 0}}, {"Peleliu", 1, {1, 6}, {0, 0}}},
     1,
     "Minor",
     1,
     {1, 1},
     {7, 8}},
    {"Home Islands",
     "island-hoppers",
     {-1, -1},
     2,
     {{"Iwo Jima", 0, {6, 3}, {0, 0}}, {"Okinawa", 1, {3, 6}, {0, 0}}},
     -1,
     NULL,
     0,
     {1, 1},
     {9, 9}},
};

static void test_island_hoppers(void)
{
    const struct campaign_play *plays = IH;
    struct camp g, m;
    CU_ASSERT_FATAL(grand_create("{\"name\":\"Pacific\",\"grand_ruleset\":"
                                 "\"island-hoppers-grand\",\"what_if\":true,\"dice\":\"either\"}",
                                 &g));
    /* Each campaign starts with the Reserve Tokens the organizer gives it (the book's page for
     * it), or its rules' own (2 each, rules/data/island-hoppers.json) when not given. */
    static const struct {
        const char *body;
        int tokens[2];
    } starts[4] = {
        {"{}", {2, 2}},
        {"{\"reserve_tokens\":{\"allies\":4,\"axis\":1}}", {4, 1}},
        {"{\"reserve_tokens\":null}", {2, 2}},
        {"{\"reserve_tokens\":{\"allies\":0,\"axis\":99}}", {0, 99}},
    };
    /* Refused, and nothing starts: tokens out of range, one side missing, a field it does not
     * take, a side's key. */
    static const struct {
        const char *body;
        enum who who;
        long status;
        const char *code, *field;
    } refused[] = {
        {"{\"reserve_tokens\":{\"allies\":100,\"axis\":1}}", ORGANIZER, 400, "invalid-field",
         "reserve_tokens.allies"},
        {"{\"reserve_tokens\":{\"allies\":-1,\"axis\":1}}", ORGANIZER, 400, "invalid-field",
         "reserve_tokens.allies"},
        {"{\"reserve_tokens\":{\"allies\":1}}", ORGANIZER, 400, "missing-field",
         "reserve_tokens.axis"},
        {"{\"reserve_tokens\":{\"allies\":\"2\",\"axis\":1}}", ORGANIZER, 400, "invalid-field",
         "reserve_tokens.allies"},
        {"{\"reserve_tokens\":[2,2]}", ORGANIZER, 400, "invalid-field", "reserve_tokens"},
        {"{\"tokens\":2}", ORGANIZER, 400, "unknown-field", "tokens"},
        {"{\"reserve_tokens\":{\"allies\":4,\"axis\":1}}", ALLIES, 403, "forbidden", NULL},
    };
    for (int k = 0; k < 4; k++) {
        struct http_resp *r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
        long version = http_int(r, "version");
        CU_ASSERT_EQUAL(http_int(r, "next.reserve_tokens.allies"), 2);
        CU_ASSERT_EQUAL(http_int(r, "next.reserve_tokens.axis"), 2);
        http_free(r);
        for (size_t i = 0; k == 1 && i < sizeof refused / sizeof refused[0]; i++) {
            r = grand_req(&api_daemon, "POST", &g, refused[i].who, "/next", refused[i].body);
            assert_problem(r, refused[i].status, refused[i].code);
            if (refused[i].field)
                CU_ASSERT_STRING_EQUAL(http_str(r, "field"), refused[i].field);
            http_free(r);
            r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
            CU_ASSERT_EQUAL(http_int(r, "version"), version);
            CU_ASSERT_TRUE(json_is_null(http_json_at(r, "campaigns.1.id")));
            http_free(r);
        }
        CU_ASSERT_FATAL(start_with(&g, k + 1, plays[k].name, starts[k].body, &m));
        /* Before each campaign, both sides roll for What-if events: nothing of the last
         * campaign's events, tokens or rolls is in the new one. */
        r = camp_get(&api_daemon, &m, "");
        CU_ASSERT_TRUE(json_is_true(http_json_at(r, "what_if")));
        CU_ASSERT_TRUE(json_is_null(http_json_at(r, "what_if_rolls.allies")));
        CU_ASSERT_TRUE(json_is_null(http_json_at(r, "what_if_rolls.axis")));
        CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "effects")), 0);
        CU_ASSERT_STRING_EQUAL(http_str(r, "waiting_for.0"), "allies:what-if");
        CU_ASSERT_STRING_EQUAL(http_str(r, "waiting_for.1"), "axis:what-if");
        for (int s = 0; s < 2; s++) {
            char p[64];
            snprintf(p, sizeof p, "sides.%s.reserve_tokens", SIDE[s]);
            CU_ASSERT_EQUAL(http_int(r, p), starts[k].tokens[s]);
        }
        /* and the token history starts there */
        json_t *history = http_json_at(r, "token_history");
        for (size_t i = 0; i < json_array_size(history); i++) {
            json_t *h = json_array_get(history, i);
            int s = strcmp(json_string_value(json_object_get(h, "side")), "axis") == 0;
            CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(h, "reason")), "start");
            CU_ASSERT_EQUAL(json_integer_value(json_object_get(h, "balance")), starts[k].tokens[s]);
        }
        CU_ASSERT_EQUAL(http_int(r, "grand_campaign.of"), 4);
        http_free(r);
        /* Allies: grenade is Allied Air Supremacy (third of their column); Axis: armor is
         * Improvised Hospital (second). */
        expect_status(camp_post(&api_daemon, &m, ALLIES, "/what-if", "{\"faces\":[\"grenade\"]}"),
                      201, "allies what-if");
        expect_status(camp_post(&api_daemon, &m, AXIS, "/what-if", "{\"faces\":[\"armor\"]}"), 201,
                      "axis what-if");
        r = camp_get(&api_daemon, &m, "");
        CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "effects")), 2);
        CU_ASSERT_STRING_EQUAL(http_str(r, "what_if_rolls.allies.event"), "allied-air-supremacy");
        CU_ASSERT_STRING_EQUAL(http_str(r, "what_if_rolls.axis.event"), "improvised-hospital");
        http_free(r);
        play_campaign(&g, &m, k, 4, &plays[k], false, false);
        check_totals(&g, plays, k, 4);
    }
    struct http_resp *r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
    CU_ASSERT_STRING_EQUAL(http_str(r, "winner"), "axis");
    CU_ASSERT_EQUAL(http_int(r, "points.allies"), 2);
    CU_ASSERT_EQUAL(http_int(r, "points.axis"), 3);
    http_free(r);

    /* Its record, verified: every server roll of every campaign from its revealed seed. */
    r = grand_req(&api_daemon, "GET", &g, ANYONE, "/export", NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    char *out;
    int st = m44_verify(r->body, &out);
    if (st != 0)
        fprintf(stderr, "\n%s\n", out);
    CU_ASSERT_EQUAL(st, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Marianas & Palau Islands"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nVERIFIED: every server roll matches"));
    CU_ASSERT_PTR_NULL(strstr(out, "NOT VERIFIED"));
    /* Restored elsewhere, each campaign starts with the tokens it was given. */
    struct http_resp *imp =
        api(&other, "POST", "/api/v1/grand-campaigns/import", NULL, ANYONE, r->body, NULL);
    CU_ASSERT_EQUAL(imp->status, 201);
    if (imp->status != 201)
        fprintf(stderr, "\nIsland Hoppers import: %s\n", imp->body);
    http_free(imp);
    for (int k = 0; k < 4; k++) {
        char path[128];
        snprintf(path, sizeof path, "campaigns.%d.campaign.id", k);
        snprintf(path, sizeof path, "/api/v1/campaigns/%s", http_str(r, path));
        struct http_resp *c = api(&other, "GET", path, NULL, ANYONE, NULL, NULL);
        for (int s = 0; s < 2; s++) {
            snprintf(path, sizeof path, "sides.%s.reserve_tokens", SIDE[s]);
            CU_ASSERT_EQUAL(http_int(c, path), starts[k].tokens[s]);
        }
        http_free(c);
    }
    /* A die changed in the third campaign is found. */
    json_t *doc = json_deep_copy(r->json);
    json_t *rolls = json_object_get(json_array_get(json_object_get(doc, "campaigns"), 2), "rolls");
    json_t *faces = NULL;
    for (size_t i = 0; i < json_array_size(rolls) && !faces; i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(rolls, i), "source")),
                   "server") == 0)
            faces = json_object_get(json_array_get(rolls, i), "faces");
    CU_ASSERT_PTR_NOT_NULL_FATAL(faces);
    const char *f0 = json_string_value(json_array_get(faces, 0));
    json_array_set_new(faces, 0, json_string(strcmp(f0, "star") == 0 ? "flag" : "star"));
    char *text = jstr(doc);
    st = m44_verify(text, &out);
    CU_ASSERT_EQUAL(st, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MISMATCH"));
    free(text);
    json_decref(doc);
    http_free(r);
}

/* ---- export, import ---- */

/* The "campaign" object of campaign `i` of a grand campaign's export. */
static json_t *member_of(json_t *doc, int i)
{
    return json_object_get(json_array_get(json_object_get(doc, "campaigns"), (size_t)i),
                           "campaign");
}

/* The document with new ids for the grand campaign and its campaigns (`tag` tells them apart):
 * its rolls are all from the table, so nothing derived from an id changes. */
static json_t *renamed(json_t *doc, int tag)
{
    json_t *copy = json_deep_copy(doc);
    char id[40];
    snprintf(id, sizeof id, "0b7e8e4a-0000-4000-8000-%08d0000", tag % 10000000);
    json_object_set_new(json_object_get(copy, "grand_campaign"), "id", json_string(id));
    for (size_t i = 0; i < json_array_size(json_object_get(copy, "campaigns")); i++) {
        snprintf(id, sizeof id, "0b7e8e4a-0000-4000-8000-%08d%04d", tag % 10000000,
                 (int)(i + 1) % 1000);
        json_object_set_new(member_of(copy, (int)i), "id", json_string(id));
    }
    return copy;
}

/* A grand import refused with 400, naming `field` (when given), its detail saying `words`. */
static void grand_import_refused(json_t *doc, const char *field, const char *words)
{
    char *text = jstr(doc);
    struct http_resp *r =
        api(&other, "POST", "/api/v1/grand-campaigns/import", NULL, ANYONE, text, NULL);
    free(text);
    assert_problem(r, 400, "invalid-field");
    if (field)
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), field);
    if (words && !strstr(http_str(r, "detail"), words))
        fprintf(stderr, "\ngrand import refused, want \"%s\": %s\n", words, r->body);
    if (words)
        CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), words));
    http_free(r);
}

static void test_export_import(void)
{
    CU_ASSERT_FATAL(cb1_export[0] != '\0');
    json_t *doc = json_loads(cb1_export, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    /* Restored on another server: the same standing, new keys. */
    struct http_resp *r =
        api(&other, "POST", "/api/v1/grand-campaigns/import", NULL, ANYONE, cb1_export, NULL);
    struct camp g;
    CU_ASSERT_FATAL(take_keys(r, &g));
    http_free(r);
    CU_ASSERT_STRING_EQUAL(g.id, cb1_id);
    r = grand_req(&other, "GET", &g, ANYONE, "", NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    const char *keys[] = {"status",  "winner", "points",        "battles_won", "medals",
                          "current", "name",   "grand_ruleset", "created_at"};
    json_t *was = json_object_get(doc, "standing");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CU_ASSERT_TRUE(
            json_equal(json_object_get(r->json, keys[i]), json_object_get(was, keys[i])));
    for (int k = 0; k < 5; k++) {
        json_t *a = json_array_get(json_object_get(r->json, "campaigns"), (size_t)k);
        json_t *b = json_array_get(json_object_get(was, "campaigns"), (size_t)k);
        const char *fields[] = {"id", "status", "winner", "grade", "points", "battles"};
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            CU_ASSERT_TRUE(
                json_equal(json_object_get(a, fields[i]), json_object_get(b, fields[i])));
    }
    /* Each campaign is there, and takes the new keys (one set for all of it). */
    struct camp m = g;
    snprintf(m.id, sizeof m.id, "%s", http_str(r, "campaigns.4.id"));
    http_free(r);
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/role", m.id);
    r = api(&other, "GET", path, &m, AXIS, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "role"), "axis");
    http_free(r);
    /* A second import of the same grand campaign is refused. */
    r = api(&other, "POST", "/api/v1/grand-campaigns/import", NULL, ANYONE, cb1_export, NULL);
    assert_problem(r, 409, "campaign-exists");
    http_free(r);

    /* Refused, nothing written: campaigns out of the book's order ... */
    long before = sql_long_on(other_db, "SELECT count(*) FROM campaigns");
    long grands = sql_long_on(other_db, "SELECT count(*) FROM grand_campaigns");
    json_t *bad = renamed(doc, 1);
    json_t *list = json_object_get(bad, "campaigns");
    json_t *first = json_incref(json_array_get(list, 0));
    json_array_remove(list, 0);
    json_array_append_new(list, first);
    grand_import_refused(bad, "campaigns[0]", NULL);
    /* ... a campaign after one that is not finished ... */
    json_decref(bad);
    bad = renamed(doc, 2);
    json_t *c1 = json_array_get(json_object_get(bad, "campaigns"), 0);
    json_t *actions = json_object_get(c1, "actions");
    for (size_t i = json_array_size(actions); i-- > 0;)
        if (strcmp(json_string_value(json_object_get(json_array_get(actions, i), "action")),
                   "finished") == 0)
            json_array_remove(actions, i);
    grand_import_refused(bad, NULL, "not finished");
    /* ... settings a creation would refuse: What-if for campaigns that have none, a name too
     * long ... */
    json_decref(bad);
    bad = renamed(doc, 4);
    json_object_set_new(json_object_get(bad, "grand_campaign"), "what_if", json_true());
    grand_import_refused(bad, "grand_campaign.what_if", NULL);
    json_object_set_new(json_object_get(bad, "grand_campaign"), "what_if", json_false());
    char long_name[260];
    memset(long_name, 'n', 259);
    long_name[259] = '\0';
    json_object_set_new(json_object_get(bad, "grand_campaign"), "name", json_string(long_name));
    grand_import_refused(bad, "grand_campaign.name", NULL);
    /* ... a start no export writes (an offset of 16 hours: 400, not a database error taken
     * for an id that exists) ... */
    json_decref(bad);
    bad = renamed(doc, 20);
    json_object_set_new(json_object_get(bad, "grand_campaign"), "created_at",
                        json_string("2026-11-24T02:13:27+16:00"));
    grand_import_refused(bad, "grand_campaign.created_at", NULL);
    /* ... a campaign played otherwise than its grand campaign says: dice the grand campaign
     * does not roll (a side could then enter chosen faces), other players, another name, other
     * rules than its place's (only the summary's are checked before), a scenario list of its own
     * (its Reserve Tokens are the organizer's to set: see Island Hoppers) ... */
    static const char *const changes[][2] = {
        {"dice", "has its dice rolled by the server or at the table, but its grand campaign has "
                 "them rolled at the table"},
        {"players", "as the Axis player, but its grand campaign names"},
        {"name", "of its grand campaign, not \"Operation Elsewhere\""},
        {"scenarios", "has a scenario list of its own"},
        {"ruleset", "The Breakout is played with \"CB1 Normandy: The Breakout\", not \"Standard "
                    "campaign rules\"."},
    };
    for (size_t k = 0; k < sizeof changes / sizeof changes[0]; k++) {
        json_decref(bad);
        bad = renamed(doc, 10 + (int)k);
        json_t *created = json_object_get(
            json_array_get(
                json_object_get(json_array_get(json_object_get(bad, "campaigns"), 1), "actions"),
                0),
            "detail");
        const char *what = changes[k][0];
        json_t *v = strcmp(what, "dice") == 0      ? json_string("either")
                    : strcmp(what, "name") == 0    ? json_string("Operation Elsewhere")
                    : strcmp(what, "ruleset") == 0 ? json_string("standard")
                                                   : NULL;
        if (strcmp(what, "players") == 0)
            json_object_set_new(json_object_get(created, "players"), "axis",
                                json_string("Mallory"));
        else if (strcmp(what, "scenarios") == 0)
            v = json_loads("{\"start\":\"Only One\",\"list\":[{\"name\":\"Only One\","
                           "\"first_player\":\"allies\",\"cards\":{\"allies\":5,\"axis\":5},"
                           "\"medals_to_win\":1}],\"branches\":{\"Only One\":{\"allies\":\"END\","
                           "\"axis\":\"END\"}}}",
                           0, NULL);
        if (v)
            json_object_set_new(created, what, v);
        grand_import_refused(bad, "campaigns[1].actions[0]", changes[k][1]);
    }
    /* ... and a broken roll in the fourth campaign names where. */
    json_decref(bad);
    bad = renamed(doc, 3);
    json_t *c4 = json_array_get(json_object_get(bad, "campaigns"), 3);
    json_object_set_new(c4, "rolls", json_array());
    char *text = jstr(bad);
    r = api(&other, "POST", "/api/v1/grand-campaigns/import", NULL, ANYONE, text, NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_EQUAL(strncmp(http_str(r, "field"), "campaigns[3]", 12), 0);
    http_free(r);
    free(text);
    json_decref(bad);
    /* A campaign with the grand campaign's id, or another campaign's: said so, not "already
     * exists on this server" (which it does not). */
    const struct {
        int at, like; /* campaign `at` takes the id of campaign `like` (-1: the grand's) */
        const char *field, *words;
    } same[] = {
        {1, -1, "campaigns[1].campaign.id", "Campaign 2 has the same id as the grand"},
        {2, 0, "campaigns[2].campaign.id", "Campaign 3 has the same id as campaign 1"},
    };
    for (int k = 0; k < 2; k++) {
        bad = renamed(doc, 31 + k);
        json_t *like = same[k].like < 0 ? json_object_get(bad, "grand_campaign")
                                        : member_of(bad, same[k].like);
        json_object_set(member_of(bad, same[k].at), "id", json_object_get(like, "id"));
        grand_import_refused(bad, same[k].field, same[k].words);
        json_decref(bad);
    }
    /* A first campaign whose id is no id: its own import says so (the ids after it are
     * compared with none of its bytes). */
    bad = renamed(doc, 33);
    json_object_set_new(member_of(bad, 0), "id", json_string("0b7e8e4a-0000-4000-8000-zz"));
    grand_import_refused(bad, "campaigns[0].campaign.id", NULL);
    json_decref(bad);
    CU_ASSERT_EQUAL(sql_long_on(other_db, "SELECT count(*) FROM campaigns"), before);
    CU_ASSERT_EQUAL(sql_long_on(other_db, "SELECT count(*) FROM grand_campaigns"), grands);
    /* Names a creation would now refuse (only spaces) are restored as recorded. */
    bad = renamed(doc, 30);
    json_object_set_new(json_object_get(bad, "grand_campaign"), "name", json_string("   "));
    text = jstr(bad);
    json_decref(bad);
    r = api(&other, "POST", "/api/v1/grand-campaigns/import", NULL, ANYONE, text, NULL);
    free(text);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    CU_ASSERT_EQUAL(
        sql_long_on(other_db, "SELECT count(*) FROM grand_campaigns WHERE name = '   '"), 1);
    json_decref(doc);
}

/* ---- keys, versions, long polls ---- */

/* The status of GET `path` with If-None-Match: `etag`. */
static long status_if_none_match(const char *path, const char *etag)
{
    char inm[80];
    snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
    const char *h[] = {inm, NULL};
    struct http_resp *r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, h);
    long status = r->status;
    http_free(r);
    return status;
}

/* GET `path`: 200, and its ETag in `etag`. */
static void etag_of_get(const char *path, char *etag, size_t len)
{
    struct http_resp *r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    etag[0] = '\0';
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "ETag", etag, len));
    http_free(r);
}

/* Campaigns and grand campaigns share one space of ids, and each id is of one kind: a
 * campaign's id read as a grand campaign (or the reverse) is a 404, never the other one's
 * standing or a 304 of its version, however well this daemon knows that version (read, written
 * or only heard: the announcement names the kind, so what is only heard is answered from
 * memory for its own kind). */
static void test_id_of_other_kind(void)
{
    struct camp g, m;
    CU_ASSERT_FATAL(
        grand_create("{\"name\":\"Kinds\",\"grand_ruleset\":\"island-hoppers-grand\"}", &g));
    CU_ASSERT_FATAL(start_next(&g, 1, "Guadalcanal", &m));
    char real[2][480], wrong[2][480], etag[2][40];
    snprintf(real[0], sizeof real[0], "/api/v1/campaigns/%s", m.id);
    snprintf(real[1], sizeof real[1], "/api/v1/grand-campaigns/%s", g.id);
    snprintf(wrong[0], sizeof wrong[0], "/api/v1/grand-campaigns/%s", m.id);
    snprintf(wrong[1], sizeof wrong[1], "/api/v1/campaigns/%s", g.id);
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 2; k++)
            etag_of_get(real[k], etag[k], sizeof etag[k]);
        for (int k = 0; k < 2; k++) {
            char waiting[sizeof wrong[k] + 8];
            snprintf(waiting, sizeof waiting, "%.470s?wait=1", wrong[k]);
            struct http_resp *r = api(&api_daemon, "GET", wrong[k], NULL, ANYONE, NULL, NULL);
            assert_problem(r, 404, "not-found");
            http_free(r);
            CU_ASSERT_EQUAL(status_if_none_match(wrong[k], etag[k]), 404);
            CU_ASSERT_EQUAL(status_if_none_match(waiting, etag[k]), 404);
        }
        /* Then both moved by a write (a new key through the campaign), heard and written. */
        struct http_resp *r = camp_post(&api_daemon, &m, ORGANIZER, "/keys/axis", "{}");
        CU_ASSERT_EQUAL_FATAL(r->status, 200);
        snprintf(m.key[AXIS], sizeof m.key[AXIS], "%s", http_str(r, "key"));
        http_free(r);
    }
    /* A daemon that has only heard of them (started after they were made, read nothing): the
     * announcement names the kind, so it answers the right one from memory, with no database
     * worker, and still refuses the other. */
    struct daemon d2;
    CU_ASSERT_FATAL(daemon_start(&d2, api_conninfo, NULL));
    CU_ASSERT(daemon_metric_becomes(&d2, "m44d_version_listener_current", 1, 10000));
    CU_ASSERT(daemon_seen_all(&d2, 5000));
    long heard = daemon_metric(&d2, "m44d_version_changes_heard_total");
    struct http_resp *r = camp_post(&api_daemon, &m, ORGANIZER, "/keys/axis", "{}");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    http_free(r);
    /* The campaign and its grand campaign moved: at least two announcements. */
    for (int i = 0; i < 1000 && daemon_metric(&d2, "m44d_version_changes_heard_total") < heard + 2;
         i++)
        tk_sleep_ms(10);
    CU_ASSERT(daemon_metric(&d2, "m44d_version_changes_heard_total") >= heard + 2);
    for (int k = 0; k < 2; k++) {
        etag_of_get(real[k], etag[k], sizeof etag[k]);
        char inm[100];
        snprintf(inm, sizeof inm, "If-None-Match: %s", etag[k]);
        const char *h[] = {inm, NULL};
        long from_memory = daemon_metric(&d2, "m44d_memory_answers_total");
        r = api(&d2, "GET", real[k], NULL, ANYONE, NULL, h);
        CU_ASSERT_EQUAL(r->status, 304);
        http_free(r);
        CU_ASSERT_EQUAL(daemon_metric(&d2, "m44d_memory_answers_total"), from_memory + 1);
        r = api(&d2, "GET", wrong[k], NULL, ANYONE, NULL, h);
        CU_ASSERT_EQUAL(r->status, 404);
        http_free(r);
    }
    daemon_stop(&d2, SIGTERM, 10);
}

static void test_keys_and_versions(void)
{
    struct camp g, m;
    CU_ASSERT_FATAL(
        grand_create("{\"name\":\"Keys\",\"grand_ruleset\":\"island-hoppers-grand\"}", &g));
    /* A key re-issued before the first campaign begins is in that campaign's log, by the
     * organizer, at the time it was made (before the campaign began). */
    struct http_resp *r = grand_req(&api_daemon, "POST", &g, ORGANIZER, "/keys/allies", "{}");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    snprintf(g.key[ALLIES], sizeof g.key[ALLIES], "%s", http_str(r, "key"));
    http_free(r);
    tk_sleep_ms(20); /* the log's times are to the millisecond: the two apart */
    CU_ASSERT_FATAL(start_next(&g, 1, "Guadalcanal", &m));
    r = camp_get(&api_daemon, &m, "/log");
    int reissued = 0;
    const char *created_at = NULL, *reissued_at = NULL;
    for (size_t i = 0; i < json_array_size(r->json); i++) {
        json_t *e = json_array_get(r->json, i);
        const char *action = json_string_value(json_object_get(e, "action"));
        if (strcmp(action, "campaign_created") == 0)
            created_at = json_string_value(json_object_get(e, "at"));
        if (strcmp(action, "key_reissued") == 0) {
            reissued++;
            reissued_at = json_string_value(json_object_get(e, "at"));
            CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "actor")), "organizer");
            CU_ASSERT_STRING_EQUAL(
                json_string_value(json_object_get(json_object_get(e, "detail"), "role")), "allies");
        }
    }
    CU_ASSERT_EQUAL(reissued, 1);
    CU_ASSERT(created_at && reissued_at && strcmp(reissued_at, created_at) < 0);
    http_free(r);
    /* One set of keys, so one set of key tags: the grand campaign's page and its campaign's
     * learn of a new key alike. */
    r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
    struct http_resp *mr = camp_get(&api_daemon, &m, "");
    for (int k = 0; k < 3; k++) {
        const char *tag = k == 0   ? "key_tags.organizer"
                          : k == 1 ? "key_tags.allies"
                                   : "key_tags.axis";
        CU_ASSERT_PTR_NOT_NULL(http_str(r, tag));
        CU_ASSERT_STRING_EQUAL(http_str(r, tag) ? http_str(r, tag) : "",
                               http_str(mr, tag) ? http_str(mr, tag) : "-");
    }
    http_free(mr);
    http_free(r);
    /* The grand campaign's ETag moves with its campaigns. */
    r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
    char etag[40];
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "ETag", etag, sizeof etag));
    long long v = http_int(r, "version");
    http_free(r);
    char path[200];
    snprintf(path, sizeof path, "/api/v1/grand-campaigns/%s", g.id);
    CU_ASSERT_EQUAL(status_if_none_match(path, etag), 304);
    /* The daemon that made the write sees it without waiting for the database's announcement:
     * the grand campaign's is held back here (its trigger off), so only the write itself can
     * tell this daemon that the grand campaign moved. */
    CU_ASSERT(
        sql_exec_on(api_conninfo,
                    "ALTER TABLE grand_campaigns DISABLE TRIGGER grand_campaigns_version_changed"));
    expect_status(
        camp_post(&api_daemon, &m, ORGANIZER, "/battles",
                  "{\"scenario\":\"Tenaru\",\"first_player\":\"allies\",\"cards\":{\"allies\":"
                  "5,\"axis\":5},\"medals_to_win\":6}"),
        201, "battle");
    r = grand_req(&api_daemon, "GET", &g, ANYONE, "", NULL);
    CU_ASSERT(http_int(r, "version") > v);
    http_free(r);
    CU_ASSERT_EQUAL(status_if_none_match(path, etag), 200);
    CU_ASSERT(
        sql_exec_on(api_conninfo,
                    "ALTER TABLE grand_campaigns ENABLE TRIGGER grand_campaigns_version_changed"));
    /* A key of the grand campaign acts on its campaign; a new key stops the old one in both. */
    char log_path[200], log_etag[40];
    snprintf(log_path, sizeof log_path, "/api/v1/campaigns/%s/log", m.id);
    etag_of_get(log_path, log_etag, sizeof log_etag);
    CU_ASSERT_EQUAL(status_if_none_match(log_path, log_etag), 304);
    struct camp old = m;
    r = grand_req(&api_daemon, "POST", &g, ORGANIZER, "/keys/axis", "{}");
    CU_ASSERT_EQUAL(r->status, 200);
    snprintf(g.key[AXIS], sizeof g.key[AXIS], "%s", http_str(r, "key"));
    snprintf(m.key[AXIS], sizeof m.key[AXIS], "%s", http_str(r, "key"));
    http_free(r);
    /* The campaign's log says so, and its ETag (the campaign's version) moved with the line: the
     * ETag read before gets the whole log, not a 304. */
    char log_inm[80];
    snprintf(log_inm, sizeof log_inm, "If-None-Match: %s", log_etag);
    const char *hl[] = {log_inm, NULL};
    r = api(&api_daemon, "GET", log_path, NULL, ANYONE, NULL, hl);
    CU_ASSERT_EQUAL(r->status, 200);
    size_t lines = json_array_size(r->json);
    json_t *line = json_array_get(r->json, lines ? lines - 1 : 0);
    const char *action = json_string_value(json_object_get(line, "action"));
    const char *role = json_string_value(json_object_get(json_object_get(line, "detail"), "role"));
    CU_ASSERT_STRING_EQUAL(action ? action : "(no line)", "key_reissued");
    CU_ASSERT_STRING_EQUAL(role ? role : "(no line)", "axis");
    char moved[40] = "";
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "ETag", moved, sizeof moved));
    CU_ASSERT_STRING_NOT_EQUAL(moved, log_etag);
    http_free(r);
    r = camp_post(&api_daemon, &old, AXIS, "/battles/1/reserve-roll", "{}");
    assert_problem(r, 401, "unauthorized");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), "replaced"));
    http_free(r);
    expect_status(camp_post(&api_daemon, &m, AXIS, "/battles/1/reserve-roll", "{}"), 201,
                  "new key");
    /* That roll left the campaign held in memory. A new key of the grand campaign replaces the
     * campaign's key: a read here must not take the campaign (and its old key) from memory. */
    struct camp held = m;
    r = grand_req(&api_daemon, "POST", &g, ORGANIZER, "/keys/axis", "{}");
    CU_ASSERT_EQUAL(r->status, 200);
    snprintf(g.key[AXIS], sizeof g.key[AXIS], "%s", http_str(r, "key"));
    snprintf(m.key[AXIS], sizeof m.key[AXIS], "%s", http_str(r, "key"));
    http_free(r);
    char role_path[160];
    snprintf(role_path, sizeof role_path, "/api/v1/campaigns/%s/role", m.id);
    r = api(&api_daemon, "GET", role_path, &held, AXIS, NULL, NULL);
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    r = api(&api_daemon, "GET", role_path, &m, AXIS, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "role"), "axis");
    http_free(r);
    /* ... and a re-issue through the campaign changes the grand campaign's key too. */
    r = camp_post(&api_daemon, &m, ORGANIZER, "/keys/allies", "{}");
    CU_ASSERT_EQUAL(r->status, 200);
    char fresh[64];
    snprintf(fresh, sizeof fresh, "%s", http_str(r, "key"));
    http_free(r);
    struct camp g_old = g;
    snprintf(g.key[ALLIES], sizeof g.key[ALLIES], "%s", fresh);
    r = grand_req(&api_daemon, "POST", &g_old, ALLIES, "/next", "{}");
    assert_problem(r, 401, "unauthorized");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), "replaced"));
    http_free(r);
    struct camp g_stranger = g; /* a key it never had */
    snprintf(g_stranger.key[ORGANIZER], sizeof g_stranger.key[0], "%043d", 7);
    r = grand_req(&api_daemon, "POST", &g_stranger, ORGANIZER, "/next", "{}");
    assert_problem(r, 401, "unauthorized");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), "This link's key is not one of this grand "
                                                  "campaign's: ask the organizer for a link.");
    http_free(r);
    r = grand_req(&api_daemon, "POST", &g, ALLIES, "/next", "{}");
    assert_problem(r, 403, "forbidden");
    http_free(r);
    /* Each key's role, for the dashboard's links; a replaced key says so. */
    const char *const roles[] = {"organizer", "allies", "axis"};
    for (int w = ORGANIZER; w <= AXIS; w++) {
        r = grand_req(&api_daemon, "GET", &g, (enum who)w, "/role", NULL);
        CU_ASSERT_EQUAL(r->status, 200);
        CU_ASSERT_STRING_EQUAL(http_str(r, "role"), roles[w]);
        CU_ASSERT_STRING_EQUAL(http_str(r, "grand_campaign"), g.id);
        http_free(r);
    }
    r = grand_req(&api_daemon, "GET", &g_old, ALLIES, "/role", NULL);
    assert_problem(r, 401, "unauthorized");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), "replaced"));
    http_free(r);
    r = grand_req(&api_daemon, "GET", &g, ANYONE, "/role", NULL);
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    /* The grand campaign changed by hand, its version moved and its campaign's not: a read of
     * the campaign, held in memory by the read before it, shows the change. */
    r = api(&api_daemon, "GET", role_path, &m, AXIS, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    char rename[300];
    snprintf(rename, sizeof rename,
             "UPDATE grand_campaigns SET name = 'Keys, renamed by hand', version = version + 1 "
             "WHERE id = '%s'",
             g.id);
    CU_ASSERT(sql_exec_on(api_conninfo, rename));
    r = camp_get(&api_daemon, &m, "/export");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "standing.grand_campaign.name"), "Keys, renamed by hand");
    http_free(r);
    /* Campaigns and grand campaigns share one space of ids: a campaign imported under the grand
     * campaign's id is refused (its GET, cache and long polls would be the grand campaign's). */
    r = camp_get(&api_daemon, &m, "/export");
    json_t *doc = json_loads(r->body, 0, NULL);
    http_free(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_object_set_new(json_object_get(doc, "campaign"), "id", json_string(g.id));
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    r = api(&api_daemon, "POST", "/api/v1/campaigns/import", NULL, ANYONE, text, NULL);
    assert_problem(r, 409, "campaign-exists");
    http_free(r);
    free(text);
    /* Bad requests. */
    r = api(&api_daemon, "POST", "/api/v1/grand-campaigns", NULL, ANYONE,
            "{\"name\":\"x\",\"grand_ruleset\":\"nope\"}", NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "grand_ruleset");
    http_free(r);
    r = api(&api_daemon, "POST", "/api/v1/grand-campaigns", NULL, ANYONE,
            "{\"name\":\"x\",\"grand_ruleset\":\"cb1-normandy-grand\",\"what_if\":true}", NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "what_if");
    http_free(r);
    r = api(&api_daemon, "GET", "/api/v1/grand-campaigns/0b7e8e4a-0000-4000-8000-00000000ffff",
            NULL, ANYONE, NULL, NULL);
    assert_problem(r, 404, "not-found");
    http_free(r);
    r = api(&api_daemon, "GET", "/api/v1/grand-rulesets/island-hoppers-grand", NULL, ANYONE, NULL,
            NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "campaigns")), 4);
    http_free(r);
}

/* A write made through this daemon, the database's announcements of campaigns held back
 * (their trigger off), so that only the write itself can tell the daemon what it moved: it
 * wakes a long poll (20 s) parked on `m`'s standing with a 200 long before its wait runs out,
 * and the standing's ETag read before it no longer gets a 304. The write is the organizer's
 * POST /api/v1/<kind>/<by's id><suffix> with `body` ("campaigns" or "grand-campaigns"). */
static void write_wakes_poll(const struct camp *m, const char *kind, const struct camp *by,
                             const char *suffix, const char *body)
{
    char write_path[256];
    snprintf(write_path, sizeof write_path, "/api/v1/%s/%s%s", kind, by->id, suffix);
    char standing[200], etag[40];
    snprintf(standing, sizeof standing, "/api/v1/campaigns/%s", m->id);
    /* The listener is current (the daemon hears its own pings), so the standing's 304 is
     * answered from memory, and a long poll parked on it would wait its 20 s out (but for the
     * one read below). */
    CU_ASSERT(daemon_metric_becomes(&api_daemon, "m44d_version_listener_current", 1, 10000));
    CU_ASSERT(sql_exec_on(api_conninfo,
                          "ALTER TABLE campaigns DISABLE TRIGGER campaigns_version_changed"));
    etag_of_get(standing, etag, sizeof etag);
    CU_ASSERT_EQUAL(status_if_none_match(standing, etag), 304);
    long parked = daemon_metric(&api_daemon, "m44d_long_polls_waiting");
    long polls = daemon_metric(&api_daemon, "m44d_version_polls_total");
    struct poll_arg poll = {.d = &api_daemon, .c = m, .wait = 20};
    snprintf(poll.inm, sizeof poll.inm, "If-None-Match: %s", etag);
    pthread_t poller;
    bool polling = pthread_create(&poller, NULL, long_poll_thread, &poll) == 0;
    CU_ASSERT(polling);
    CU_ASSERT(daemon_metric_becomes(&api_daemon, "m44d_long_polls_waiting", parked + 1, 5000));
    /* The first long poll parked under a listener's connection makes the daemon read the
     * versions of what is parked once (what changed before it listened), within
     * --version-poll-ms (400 ms). Run after the write, that read would wake the poll too:
     * it is let happen first, if it is to happen (not when earlier tests made it already). */
    for (int i = 0; i < 20 && daemon_metric(&api_daemon, "m44d_version_polls_total") == polls; i++)
        tk_sleep_ms(100);
    long woken = daemon_metric(&api_daemon, WAKES_BY("write"));
    double written_at = mono_seconds();
    expect_status(api(&api_daemon, "POST", write_path, by, ORGANIZER, body, NULL), 200, write_path);
    if (polling)
        pthread_join(poller, NULL);
    /* Woken by the write, with the new version, long before its wait ran out: by the write
     * itself (not by a look at the versions, which a listener lagging under load would make). */
    CU_ASSERT_EQUAL(poll.status, 200);
    CU_ASSERT(poll.done_at - written_at < 15.0);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, WAKES_BY("write")), woken + 1);
    CU_ASSERT_EQUAL(status_if_none_match(standing, etag), 200);
    CU_ASSERT(sql_exec_on(api_conninfo,
                          "ALTER TABLE campaigns ENABLE TRIGGER campaigns_version_changed"));
}

struct reissue_shot {
    const struct camp *c;
    pthread_barrier_t *start;
    long status;
};

static void *reissue_at_once(void *arg)
{
    struct reissue_shot *s = arg;
    pthread_barrier_wait(s->start);
    struct http_resp *r = camp_post(&api_daemon, s->c, ORGANIZER, "/keys/axis", "{}");
    s->status = r->status;
    http_free(r);
    return NULL;
}

static void test_key_through_one_campaign(void)
{
    struct camp g, m1, m2;
    CU_ASSERT_FATAL(grand_create(
        "{\"name\":\"Two campaigns\",\"grand_ruleset\":\"island-hoppers-grand\"}", &g));
    CU_ASSERT_FATAL(start_next(&g, 1, "Guadalcanal", &m1));
    expect_status(camp_post(&api_daemon, &m1, ORGANIZER, "/finish", "{}"), 200, "finish");
    CU_ASSERT_FATAL(start_next(&g, 2, "Marshall Islands", &m2));
    char log1[200], etag[40];
    snprintf(log1, sizeof log1, "/api/v1/campaigns/%s/log", m1.id);
    /* A new key given through the second campaign is the first one's too: its log has the
     * line, so the ETag read before it gets the whole log. */
    etag_of_get(log1, etag, sizeof etag);
    CU_ASSERT_EQUAL(status_if_none_match(log1, etag), 304);
    expect_status(camp_post(&api_daemon, &m2, ORGANIZER, "/keys/axis", "{}"), 200, "new key");
    CU_ASSERT_EQUAL(status_if_none_match(log1, etag), 200);
    /* The daemon that gave it knows at once that the first campaign moved, and wakes its long
     * polls. */
    write_wakes_poll(&m1, "campaigns", &m2, "/keys/axis", "{}");
    /* Two new keys at the same moment, through each campaign: both given, one after the other,
     * without the database ever finding them waiting for each other (a deadlock is a failed
     * statement, retried, after a second's wait). */
    long errors = daemon_metric(&api_daemon, "m44d_db_errors_total");
    int refused = 0;
    for (int round = 0; round < 10; round++) {
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, 2);
        struct reissue_shot a = {&m1, &start, 0}, b = {&m2, &start, 0};
        pthread_t ta, tb;
        bool started_a = pthread_create(&ta, NULL, reissue_at_once, &a) == 0;
        bool started_b = pthread_create(&tb, NULL, reissue_at_once, &b) == 0;
        if (started_a != started_b) /* the one that did not start: its place taken here */
            pthread_barrier_wait(&start);
        if (started_a)
            pthread_join(ta, NULL);
        if (started_b)
            pthread_join(tb, NULL);
        pthread_barrier_destroy(&start);
        CU_ASSERT(started_a && started_b);
        refused += (a.status != 200) + (b.status != 200);
    }
    CU_ASSERT_EQUAL(refused, 0);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, "m44d_db_errors_total"), errors);
}

/* A write on the grand campaign that moves its campaigns (a new key, its chat link) wakes their
 * long polls on the daemon that made it, as a write on one of them does. */
static void test_grand_writes_wake_campaigns(void)
{
    struct camp g, m1, m2;
    CU_ASSERT_FATAL(
        grand_create("{\"name\":\"Woken\",\"grand_ruleset\":\"island-hoppers-grand\"}", &g));
    CU_ASSERT_FATAL(start_next(&g, 1, "Guadalcanal", &m1));
    expect_status(camp_post(&api_daemon, &m1, ORGANIZER, "/finish", "{}"), 200, "finish");
    CU_ASSERT_FATAL(start_next(&g, 2, "Marshall Islands", &m2));
    write_wakes_poll(&m1, "grand-campaigns", &g, "/keys/axis", "{}");
    write_wakes_poll(&m2, "grand-campaigns", &g, "/keys/axis", "{}");
    /* The chat link set, then removed: a line in each campaign's log each time. (Its
     * messages are never delivered: a .invalid host is no one's.) */
    write_wakes_poll(&m1, "grand-campaigns", &g, "/webhook",
                     "{\"url\":\"https://chat.invalid/hook\"}");
    write_wakes_poll(&m2, "grand-campaigns", &g, "/webhook", "{\"url\":null}");
}

/* ---- a campaign added while a grand campaign's write waits for its locks ---- */

/* Runs `sql` (one or more statements) on a connection the test holds; false (printed) when it
 * fails. */
static bool held_exec(PGconn *pg, const char *sql)
{
    PGresult *r = PQexec(pg, sql);
    ExecStatusType st = PQresultStatus(r);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        fprintf(stderr, "\n%s: %s\n", sql, PQerrorMessage(pg));
    PQclear(r);
    return ok;
}

/* Waits (up to 20 s) until `n` sessions of the test database wait for a lock, each blocked by
 * the session `by` alone (0: by any). */
static bool lock_waiters(long n, int by)
{
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
             "wait_event_type = 'Lock' AND (%d = 0 OR pg_blocking_pids(pid) = ARRAY[%d])",
             by, by);
    for (int i = 0; i < 400; i++) {
        if (sql_long(sql) == n)
            return true;
        usleep(50 * 1000);
    }
    fprintf(stderr, "\nnever %ld sessions waiting (blocked by %d)\n", n, by);
    return false;
}

#define RUN_AGAIN(cause) "m44d_db_transactions_run_again_total{cause=\"" cause "\"}"

struct grand_shot {
    const struct camp *g;
    long status;
};

static void *grand_key_thread(void *arg)
{
    struct grand_shot *s = arg;
    struct http_resp *r = grand_req(&api_daemon, "POST", s->g, ORGANIZER, "/keys/axis", "{}");
    s->status = r->status;
    http_free(r);
    return NULL;
}

/* A new key for a grand campaign locks its campaigns, in the order of their ids, then its row.
 * If the lock statement waited while another write added a campaign (POST .../next holds the
 * campaigns and the row while it does), it read the campaigns as they were before: the campaign
 * added would be locked last, after the row, out of that order, and a write on it (which locks
 * it, then the row) would wait for the new key while the new key waits for it. The steps are
 * made certain by sessions the test holds: Z the grand campaign's row (as a campaign's write,
 * moving its version, holds it: a campaign may still be added), X its campaign, Y a write on
 * the campaign X adds. Each statement of theirs gives up after 20 s. */
static void test_campaign_added_while_locking(void)
{
    struct camp g, m1;
    CU_ASSERT_FATAL(grand_create(
        "{\"name\":\"Added meanwhile\",\"grand_ruleset\":\"island-hoppers-grand\"}", &g));
    CU_ASSERT_FATAL(start_next(&g, 1, "Guadalcanal", &m1));
    /* Before the first campaign in the order of ids. */
    const char *added = "00000000-0000-4000-8000-000000000000";
    CU_ASSERT_FATAL(strcmp(added, m1.id) < 0);
    PGconn *z = PQconnectdb(api_conninfo), *x = PQconnectdb(api_conninfo),
           *y = PQconnectdb(api_conninfo);
    CU_ASSERT_FATAL(PQstatus(z) == CONNECTION_OK && PQstatus(x) == CONNECTION_OK &&
                    PQstatus(y) == CONNECTION_OK);
    for (PGconn **c = (PGconn *[]){z, x, y, NULL}; *c; c++)
        CU_ASSERT_FATAL(held_exec(*c, "SET statement_timeout = '20s'"));
    long errors = daemon_metric(&api_daemon, "m44d_db_errors_total");
    long deadlocks = daemon_metric(&api_daemon, RUN_AGAIN("deadlock"));
    long moved_on = daemon_metric(&api_daemon, RUN_AGAIN("moved_on"));
    char sql[1200];
    snprintf(sql, sizeof sql,
             "BEGIN; SELECT 1 FROM grand_campaigns WHERE id = '%s' FOR NO KEY UPDATE", g.id);
    CU_ASSERT_FATAL(held_exec(z, sql));
    snprintf(sql, sizeof sql, "BEGIN; SELECT 1 FROM campaigns WHERE id = '%s' FOR UPDATE", m1.id);
    CU_ASSERT_FATAL(held_exec(x, sql));
    /* The new key waits for the campaign X holds, having read the grand campaign's campaigns. */
    struct grand_shot shot = {&g, 0};
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, grand_key_thread, &shot) == 0);
    CU_ASSERT(lock_waiters(1, PQbackendPID(x)));
    /* X adds a second campaign, a copy of the first at place 2, and commits: the new key then
     * waits for the row Z holds. */
    snprintf(sql, sizeof sql,
             "DO $$ DECLARE cols text; BEGIN "
             "SELECT string_agg(quote_ident(attname), ', ') INTO cols FROM pg_attribute WHERE "
             "attrelid = 'campaigns'::regclass AND attnum > 0 AND NOT attisdropped AND "
             "attname NOT IN ('id', 'seq', 'grand_index'); "
             "EXECUTE format('INSERT INTO campaigns (id, grand_index, %%s) SELECT %%L::uuid, 2, "
             "%%s FROM campaigns WHERE id = %%L::uuid', cols, '%s', cols, '%s'); END $$; COMMIT",
             added, m1.id);
    CU_ASSERT(held_exec(x, sql));
    CU_ASSERT(lock_waiters(1, PQbackendPID(z)));
    /* Y writes on the added campaign as a campaign's write does: the campaign, then the grand
     * campaign's row. It must wait for the new key (which holds every campaign), never hold
     * what the new key will want. */
    snprintf(sql, sizeof sql,
             "BEGIN; SELECT 1 FROM campaigns WHERE id = '%s' FOR UPDATE; "
             "SELECT 1 FROM grand_campaigns WHERE id = '%s' FOR NO KEY UPDATE",
             added, g.id);
    CU_ASSERT(PQsendQuery(y, sql) == 1);
    CU_ASSERT(lock_waiters(2, 0));
    CU_ASSERT(held_exec(z, "COMMIT"));
    bool y_ok = true;
    for (PGresult *r; (r = PQgetResult(y)) != NULL; PQclear(r))
        if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
            fprintf(stderr, "\nthe write on the added campaign: %s\n", PQresultErrorMessage(r));
            y_ok = false;
        }
    CU_ASSERT(y_ok);
    CU_ASSERT(held_exec(y, y_ok ? "COMMIT" : "ROLLBACK"));
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(shot.status, 200);
    /* Nobody waited for the other: no statement failed (a deadlock fails one, after a second). */
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, "m44d_db_errors_total"), errors);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, RUN_AGAIN("deadlock")), deadlocks);
    /* The new key saw the campaign added when its locks were all taken, and ran again once. */
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, RUN_AGAIN("moved_on")), moved_on + 1);
    snprintf(sql, sizeof sql,
             "BEGIN; DELETE FROM event_log WHERE campaign_id = '%s'; DELETE FROM outbox WHERE "
             "campaign_id = '%s'; DELETE FROM campaigns WHERE id = '%s'; COMMIT",
             added, added, added);
    CU_ASSERT(held_exec(x, sql));
    PQfinish(x);
    PQfinish(y);
    PQfinish(z);
}

void register_grand_tests(void)
{
    CU_pSuite s = CU_add_suite("grand campaigns", suite_init, suite_clean);
    CU_add_test(s, "CB1 Battle of Normandy, all five campaigns", test_cb1_normandy);
    CU_add_test(s, "Island Hoppers, What-if before each campaign, verified", test_island_hoppers);
    CU_add_test(s, "a grand campaign exported and imported", test_export_import);
    CU_add_test(s, "one set of keys; versions move with the campaigns", test_keys_and_versions);
    CU_add_test(s, "a campaign's id is no grand campaign's, nor the reverse",
                test_id_of_other_kind);
    CU_add_test(s, "a new key through one campaign: the others move; two at once do not deadlock",
                test_key_through_one_campaign);
    CU_add_test(s, "a new key or chat link of a grand campaign wakes its campaigns' long polls",
                test_grand_writes_wake_campaigns);
    CU_add_test(s, "a campaign added while a new key waits for its locks: no deadlock",
                test_campaign_added_while_locking);
}
