/*
 * Rules fidelity through HTTP (RULES.md 7-9, the audit's D1-D13): each reading played as a
 * table would play it, with table dice so the faces are the ones the case needs. The seed's
 * words are quoted where they decide. The What-if faces follow the data's reading (faces in the
 * order infantry, armor, grenade, star, flag pick the events in the order the book lists them).
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the round trip is imported; it also knows a house ruleset (test_scope). */
static struct daemon other;
static char *other_db;
static char house_dir[] = "/tmp/m44-house-rules.XXXXXX";
static char house_file[4][64];
/* The daemon the helpers below act on. */
static const struct daemon *at = &api_daemon;

/* Island Hoppers, with Naval Struggle in force at battle 2 only and Allied Air Supremacy at
 * Tarawa only (in the book both last the whole campaign). */
static const char house_rules[] =
    "{\"id\":\"house-hoppers\",\"extends\":\"island-hoppers\",\"name\":\"House Hoppers\","
    "\"what_if\":{\"events\":{"
    "\"naval-struggle\":{\"scope\":{\"kind\":\"battles\",\"battles\":[2]}},"
    "\"allied-air-supremacy\":{\"scope\":{\"kind\":\"only\",\"scenarios\":[\"Tarawa\"]}}}}}";
/* The Fall of Poland, with Soviet Invasion at one battle the Axis pick (in the book: Szack). */
static const char house_poland[] =
    "{\"id\":\"house-poland\",\"extends\":\"fall-of-poland\",\"name\":\"House Poland\","
    "\"what_if\":{\"events\":{\"soviet-invasion\":{\"scope\":{\"kind\":\"picked\",\"scenarios\":"
    "null},"
    "\"effects\":[{\"type\":\"first_player\",\"side\":\"axis\"},{\"type\":\"no_commissar\"},"
    "{\"type\":\"pick_battle\",\"side\":\"axis\"}]}}}}";

/* A grand campaign whose first campaign has no reserve roll (the simplified rules). */
static const char house_grand[] =
    "{\"id\":\"house-grand\",\"name\":\"House grand\",\"description\":\"Simplified, then "
    "standard.\",\"source\":\"a house rule\",\"campaigns\":[{\"ruleset\":\"simplified\","
    "\"name\":\"Opening\"},{\"ruleset\":\"standard\",\"name\":\"Closing\"}],\"grades\":["
    "{\"name\":\"Major\",\"min_ratio\":2,\"points\":2},{\"name\":\"Minor\",\"min_ratio\":0,"
    "\"points\":1}],\"reading\":\"a house rule\"}";

/* The standard rules with the Air Sortie token's text as long as a ruleset's text may be, its
 * last characters two bytes each (RS_TEXT_MAX is 320 with the end; 319 bytes here). */
#define LONG_TOKEN_HEAD                                                                            \
    "un jeton Sortie a\xc3\xa9rienne pour qui a le pack, gard\xc3\xa9 de bataille en bataille"
static char long_token[320];
static char house_long[512];

static int suite_init(void)
{
    if (!mkdtemp(house_dir))
        return 1;
    size_t n = strlen(LONG_TOKEN_HEAD);
    memcpy(long_token, LONG_TOKEN_HEAD, n);
    for (; n + 2 <= 318; n += 2)
        memcpy(long_token + n, "\xc3\xa9", 2); /* é */
    long_token[n++] = '.';
    long_token[n] = '\0';
    snprintf(house_long, sizeof house_long,
             "{\"id\":\"house-long\",\"extends\":\"standard\",\"name\":\"House long\","
             "\"grants\":{\"air-sortie\":{\"text\":\"%s\",\"kept\":true}}}",
             long_token);
    const char *docs[] = {house_rules, house_poland, house_grand, house_long};
    for (int i = 0; i < 4; i++) {
        snprintf(house_file[i], sizeof house_file[i], "%s/house%d.json", house_dir, i);
        FILE *f = fopen(house_file[i], "w");
        bool written = f && fputs(docs[i], f) >= 0;
        if (f && fclose(f) != 0)
            written = false;
        if (!written)
            return 1;
    }
    const char *args[] = {"--rulesets-dir", house_dir, NULL};
    other_db = tk_new_database("api_rules");
    return other_db && daemon_start(&other, other_db, args) ? 0 : 1;
}

static int suite_clean(void)
{
    int rc = other_daemon_stop(&other, &other_db);
    for (int i = 0; i < 4; i++)
        unlink(house_file[i]);
    rmdir(house_dir);
    return rc;
}

/* A table-dice campaign of `ruleset` with What-if on when faces are given for it. */
static void campaign(struct camp *c, const char *ruleset, int allies_tokens, int axis_tokens,
                     const char *allies_what_if, const char *axis_what_if)
{
    char body[400];
    bool wi = allies_what_if != NULL;
    snprintf(body, sizeof body,
             "{\"name\":\"rules %s\",\"ruleset\":\"%s\",\"dice\":\"table\",\"what_if\":%s,"
             "\"reserve_tokens\":{\"allies\":%d,\"axis\":%d}}",
             ruleset, ruleset, wi ? "true" : "false", allies_tokens, axis_tokens);
    CU_ASSERT_FATAL(camp_create(at, body, c));
    if (!wi)
        return;
    snprintf(body, sizeof body, "{\"faces\":[\"%s\"]}", allies_what_if);
    expect_status(camp_post(at, c, ALLIES, "/what-if", body), 201, "allies what-if");
    snprintf(body, sizeof body, "{\"faces\":[\"%s\"]}", axis_what_if);
    expect_status(camp_post(at, c, AXIS, "/what-if", body), 201, "axis what-if");
}

static void new_battle(struct camp *c, const char *scenario, const char *first, const char *extra)
{
    char body[400];
    snprintf(body, sizeof body,
             "{\"scenario\":\"%s\",\"first_player\":\"%s\",\"cards\":{\"allies\":5,\"axis\":5}%s}",
             scenario, first, extra ? extra : ",\"medals_to_win\":6");
    expect_status(camp_post(at, c, ORGANIZER, "/battles", body), 201, scenario);
}

/* Both sides enter their victory event dice as rolled at the table (faces as JSON strings). */
static void victory_events(struct camp *c, int n, const char *allies, const char *axis)
{
    char p[64], body[128];
    snprintf(p, sizeof p, "/battles/%d/victory-events", n);
    snprintf(body, sizeof body, "{\"faces\":[%s]}", allies);
    expect_status(camp_post(at, c, ALLIES, p, body), 201, "allies victory events");
    snprintf(body, sizeof body, "{\"faces\":[%s]}", axis);
    expect_status(camp_post(at, c, AXIS, p, body), 201, "axis victory events");
}

/* Both sides roll their reserves at the table and take nothing. */
static void reserves(struct camp *c, int n, const char *allies, const char *axis)
{
    char p[64], body[128];
    snprintf(p, sizeof p, "/battles/%d/reserve-roll", n);
    snprintf(body, sizeof body, "{\"faces\":[%s]}", allies);
    expect_status(camp_post(at, c, ALLIES, p, body), 201, "allies reserve roll");
    snprintf(body, sizeof body, "{\"faces\":[%s]}", axis);
    expect_status(camp_post(at, c, AXIS, p, body), 201, "axis reserve roll");
}

static void choose_nothing(struct camp *c, int n, enum who who)
{
    char p[64];
    snprintf(p, sizeof p, "/battles/%d/reserve-choice", n);
    expect_status(camp_post(at, c, who, p, "{\"options\":[]}"), 200, "take nothing");
}

static void result(struct camp *c, int n, const char *winner, int allies, int axis)
{
    char p[64], body[200];
    snprintf(p, sizeof p, "/battles/%d/result", n);
    snprintf(body, sizeof body, "{\"winner\":\"%s\",\"medals\":{\"allies\":%d,\"axis\":%d}}",
             winner, allies, axis);
    expect_status(camp_post(at, c, ORGANIZER, p, body), 200, "result");
}

/* Whether a battle's list (effects, effects_at_result) names the event. */
static bool lists(const struct camp *c, int n, const char *list, const char *event)
{
    char p[64];
    snprintf(p, sizeof p, "/battles/%d", n);
    struct http_resp *r = camp_get(at, c, p);
    json_t *a = http_json_at(r, list);
    bool found = false;
    for (size_t i = 0; i < json_array_size(a); i++)
        found |= strcmp(json_string_value(json_object_get(json_array_get(a, i), "id")), event) == 0;
    http_free(r);
    return found;
}

static long tokens(const struct camp *c, const char *side)
{
    struct http_resp *r = camp_get(&api_daemon, c, "");
    char p[64];
    snprintf(p, sizeof p, "sides.%s.reserve_tokens", side);
    long v = http_int(r, p);
    http_free(r);
    return v;
}

/* D1. 001, Fall of Poland, Axis FLAG + STAR: "German elite infantry unit ... or Air Power / Air
 * Sortie token"; RULES.md 9: the elite infantry unit costs 1 token, the air token 0. */
static void test_cost_per_alternative(void)
{
    struct camp c;
    campaign(&c, "fall-of-poland", 0, 1, NULL, NULL);
    new_battle(&c, "Mokra", "axis", NULL);
    reserves(&c, 1, "\"infantry\",\"armor\"", "\"flag\",\"star\"");
    struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
    json_t *opts = http_json_at(r, "reserves.axis.options"), *sf = NULL;
    for (size_t i = 0; i < json_array_size(opts); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(opts, i), "id")),
                   "star-flag@0+1") == 0)
            sf = json_array_get(opts, i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(sf, "grants"), 0)),
                           "elite-infantry");
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(sf, "costs"), 0)), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(sf, "costs"), 1)), 0);
    http_free(r);
    expect_status(
        camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"star-flag@0+1\",\"grant\":\"elite-infantry\"}]}"),
        200, "elite infantry for a token");
    CU_ASSERT_EQUAL(tokens(&c, "axis"), 0);
    /* With no token left, the elite infantry is refused and the air token is free. */
    struct camp d;
    campaign(&d, "fall-of-poland", 0, 0, NULL, NULL);
    new_battle(&d, "Mokra", "axis", NULL);
    reserves(&d, 1, "\"infantry\",\"armor\"", "\"flag\",\"star\"");
    r = camp_post(&api_daemon, &d, AXIS, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"star-flag@0+1\",\"grant\":\"elite-infantry\"}]}");
    assert_problem(r, 422, "not-enough-tokens");
    http_free(r);
    expect_status(camp_post(&api_daemon, &d, AXIS, "/battles/1/reserve-choice",
                            "{\"options\":[{\"id\":\"star-flag@0+1\",\"grant\":\"air-sortie\"}]}"),
                  200, "air token free");
    CU_ASSERT_EQUAL(tokens(&d, "axis"), 0);
}

/* D2. 001, Defensive Works: "Ignore all post-scenario instructions to remove sandbags from
 * British troops in the next scenario": with battle 1's result and at battle 2, not before. */
static void test_defensive_works(void)
{
    struct camp c;
    campaign(&c, "bicycle-blitzkrieg", 2, 2, "star", "infantry"); /* Allies: Defensive Works */
    new_battle(&c, "Kota Bharu", "axis", NULL);
    CU_ASSERT_FALSE(lists(&c, 1, "effects", "defensive-works"));
    CU_ASSERT_TRUE(lists(&c, 1, "effects_at_result", "defensive-works"));
    reserves(&c, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 1, ALLIES);
    choose_nothing(&c, 1, AXIS);
    result(&c, 1, "axis", 2, 6);
    new_battle(&c, "Jitra", "axis", NULL);
    CU_ASSERT_TRUE(lists(&c, 2, "effects", "defensive-works"));
    CU_ASSERT_FALSE(lists(&c, 2, "effects_at_result", "defensive-works"));
}

/* D3. 001, Allied Air Supremacy: "The Axis player may not play any Air Sortie or Air Power card
 * / token for the rest of the campaign": no air grant is offered, and choosing one is refused. */
static void test_air_supremacy(void)
{
    struct camp c;
    campaign(&c, "island-hoppers", 2, 2, "grenade", "infantry"); /* Allies: Air Supremacy */
    new_battle(&c, "Guadalcanal", "allies", NULL);
    reserves(&c, 1, "\"star\",\"star\"", "\"star\",\"star\"");
    struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
    int air[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        char p[64];
        snprintf(p, sizeof p, "reserves.%s.options", s ? "axis" : "allies");
        json_t *opts = http_json_at(r, p);
        for (size_t i = 0; i < json_array_size(opts); i++) {
            json_t *g = json_object_get(json_array_get(opts, i), "grants");
            for (size_t k = 0; k < json_array_size(g); k++)
                air[s] += strncmp(json_string_value(json_array_get(g, k)), "air-", 4) == 0;
        }
    }
    http_free(r);
    CU_ASSERT_EQUAL(air[1], 0); /* the Axis: none */
    CU_ASSERT(air[0] > 0);      /* the Allies keep theirs */
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"star-star@0+1\",\"grant\":\"air-sortie\"}]}");
    assert_problem(r, 422, "invalid-grant");
    http_free(r);
}

/* D4. 001, Forward Command: "After playing one scenario with this What If event, the Japanese
 * player may roll again using this table for the next scenario, if they wish." */
static void test_forward_command(void)
{
    struct camp c;
    campaign(&c, "island-hoppers", 2, 2, "infantry", "star"); /* Axis: Forward Command */
    struct http_resp *r = camp_post(&api_daemon, &c, AXIS, "/what-if", "{\"faces\":[\"flag\"]}");
    assert_problem(r, 409, "already-done"); /* not before a scenario was played */
    http_free(r);
    new_battle(&c, "Guadalcanal", "allies", NULL);
    reserves(&c, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 1, ALLIES);
    choose_nothing(&c, 1, AXIS);
    r = camp_post(&api_daemon, &c, AXIS, "/what-if", "{\"faces\":[\"flag\"]}");
    assert_problem(r, 409, "already-done"); /* "after playing one scenario", not during it */
    http_free(r);
    result(&c, 1, "allies", 6, 3);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "what_if_again.axis")));
    CU_ASSERT_TRUE(json_is_false(http_json_at(r, "what_if_again.allies")));
    http_free(r);
    r = camp_post(&api_daemon, &c, ALLIES, "/what-if", "{\"faces\":[\"flag\"]}");
    assert_problem(r, 409, "already-done");
    http_free(r);
    expect_status(camp_post(&api_daemon, &c, AXIS, "/what-if", "{\"faces\":[\"flag\"]}"), 201,
                  "the Axis rolls again");
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "what_if_rolls.axis.again.event"), "cave-construction");
    CU_ASSERT_EQUAL(http_int(r, "what_if_rolls.axis.again.after_battle"), 1);
    CU_ASSERT_TRUE(json_is_false(http_json_at(r, "what_if_again.axis")));
    http_free(r);
    r = camp_post(&api_daemon, &c, AXIS, "/what-if", "{\"faces\":[\"armor\"]}");
    assert_problem(r, 409, "already-done"); /* once */
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), "The Axis already rolled their What-if die.");
    http_free(r);
    /* "... for the next scenario": the new event is in force from battle 2, not at battle 1,
     * which was played without it. */
    CU_ASSERT_FALSE(lists(&c, 1, "effects", "cave-construction"));
    CU_ASSERT_TRUE(lists(&c, 1, "effects", "forward-command"));
    new_battle(&c, "Tarawa", "allies", NULL);
    CU_ASSERT_TRUE(lists(&c, 2, "effects", "cave-construction"));
    /* A side that let the moment pass cannot roll later: after battle 2's set-up, never. */
    struct camp d;
    campaign(&d, "island-hoppers", 2, 2, "infantry", "star");
    new_battle(&d, "Guadalcanal", "allies", NULL);
    reserves(&d, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&d, 1, ALLIES);
    choose_nothing(&d, 1, AXIS);
    result(&d, 1, "allies", 6, 3);
    new_battle(&d, "Tarawa", "allies", NULL);
    r = camp_post(&api_daemon, &d, AXIS, "/what-if", "{\"faces\":[\"flag\"]}");
    assert_problem(r, 409, "already-done");
    http_free(r);
}

/* D5. 001, Soviet Invasion: "The Soviet side gets to move first at the battle of Szack and they
 * may ignore the Commissar rule." The set-up says otherwise; the battle is set up as the event
 * says, and the victory events are resolved Axis first. */
static void test_soviet_invasion(void)
{
    struct camp c;
    campaign(&c, "fall-of-poland", 2, 2, "infantry", "flag"); /* Axis: Soviet Invasion */
    new_battle(&c, "Mokra", "allies", ",\"medals_to_win\":6,\"commissar\":\"axis\"");
    struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "first_player"), "allies"); /* not Szack: as set up */
    CU_ASSERT_STRING_EQUAL(http_str(r, "commissar"), "axis");
    http_free(r);
    reserves(&c, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 1, ALLIES);
    choose_nothing(&c, 1, AXIS);
    result(&c, 1, "allies", 6, 1);
    new_battle(&c, "  szack ", "allies", ",\"medals_to_win\":6,\"commissar\":\"axis\"");
    r = camp_get(&api_daemon, &c, "/battles/2");
    CU_ASSERT_STRING_EQUAL(http_str(r, "first_player"), "axis");
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "commissar")));
    http_free(r);
    victory_events(&c, 2, "\"infantry\",\"star\",\"flag\"", "\"infantry\",\"star\"");
    r = camp_get(&api_daemon, &c, "/battles/2");
    CU_ASSERT_STRING_EQUAL(http_str(r, "victory_events.instructions.0.roller"), "axis");
    CU_ASSERT_STRING_EQUAL(http_str(r, "victory_events.instructions.2.roller"), "allies");
    /* No Commissar note, although the Axis start with 5 - 1 cards only... and never one. */
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "victory_events.notes")), 0);
    http_free(r);
    /* Szack as the first battle, set up before the What-if dice are rolled: the event applies
     * as soon as it is rolled. */
    struct camp d;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"szack first\",\"ruleset\":\"fall-of-poland\","
                                "\"dice\":\"table\",\"what_if\":true}",
                                &d));
    new_battle(&d, "Szack", "allies", ",\"medals_to_win\":6,\"commissar\":\"axis\"");
    r = camp_get(&api_daemon, &d, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "first_player"), "allies"); /* nothing rolled yet */
    http_free(r);
    expect_status(camp_post(&api_daemon, &d, ALLIES, "/what-if", "{\"faces\":[\"armor\"]}"), 201,
                  "wi");
    expect_status(camp_post(&api_daemon, &d, AXIS, "/what-if", "{\"faces\":[\"flag\"]}"), 201,
                  "wi");
    r = camp_get(&api_daemon, &d, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "first_player"), "axis");
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "commissar")));
    http_free(r);
}

/* D6. RULES.md 9: "Scenario names match whole names, case and spacing ignored ("Hel" never
 * matches "Chelm")." */
static void test_whole_names(void)
{
    struct camp c;
    campaign(&c, "fall-of-poland", 2, 2, "star", "infantry"); /* Allies: Minefields (Hel, Kupa) */
    new_battle(&c, "Defence of Chelm", "allies", NULL);
    CU_ASSERT_FALSE(lists(&c, 1, "effects", "minefields"));
    reserves(&c, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 1, ALLIES);
    choose_nothing(&c, 1, AXIS);
    result(&c, 1, "allies", 6, 0);
    new_battle(&c, "HEL", "allies", NULL);
    CU_ASSERT_TRUE(lists(&c, 2, "effects", "minefields"));
}

/* D7. RULES.md 9: "Campaign Book 1 winner: the side with more campaign victory points (medals +
 * objective bonus), ties broken by battles won." The audit's case: Allies 2 wins and 12 medals,
 * Axis 1 win, 14 medals and 2 objective medals (Flanking Caen track: Axis 1 for 1+): the Axis
 * have 15 points against 12 and win. D8: star + star is the campaign's own 1 Air Power token. */
static void test_cb1_winner_and_two_stars(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"cb1\",\"ruleset\":\"cb1-flanking-caen\",\"dice\":"
                                "\"table\"}",
                                &c));
    struct http_resp *part =
        camp_post(&api_daemon, &c, ORGANIZER, "/battles", "{\"scenario\":\"Securing\"}");
    assert_problem(part, 422, "scenario-not-next"); /* a part of the name is not the name */
    http_free(part);
    const int medals[3][2] = {{5, 4}, {6, 4}, {1, 6}};
    const char *winners[3] = {"allies", "allies", "axis"};
    for (int n = 1; n <= 3; n++) {
        /* "Scenario names match whole names, case and spacing ignored" (RULES.md 9). */
        expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                                n == 1 ? "{\"scenario\":\" securing  the FLANK\"}" : "{}"),
                      201, "next scenario");
        char p[64], body[320];
        if (n > 1) {
            snprintf(p, sizeof p, "/battles/%d/victory-events", n);
            for (int s = 0; s < 2; s++) {
                char q[64];
                snprintf(q, sizeof q, "/battles/%d", n);
                struct http_resp *bt = camp_get(&api_daemon, &c, q);
                snprintf(q, sizeof q, "victory_events.dice.%s", s ? "axis" : "allies");
                long dice = http_int(bt, q);
                http_free(bt);
                char faces[256] = "";
                for (long k = 0; k < dice && k < 30; k++)
                    strcat(faces, k ? ",\"flag\"" : "\"flag\"");
                snprintf(body, sizeof body, "{\"faces\":[%s]}", faces);
                expect_status(camp_post(&api_daemon, &c, s ? AXIS : ALLIES, p, body), 201,
                              "victory");
            }
        }
        reserves(&c, n, "\"star\",\"star\"", "\"flag\",\"flag\"");
        if (n == 1) {
            struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
            CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "reserves.allies.options")), 1);
            CU_ASSERT_STRING_EQUAL(http_str(r, "reserves.allies.options.0.grants.0"), "air-power");
            CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "reserves.allies.options.0.grants")),
                            1);
            CU_ASSERT_EQUAL(http_int(r, "reserves.allies.options.0.cost"), 0);
            http_free(r);
        }
        choose_nothing(&c, n, ALLIES);
        choose_nothing(&c, n, AXIS);
        snprintf(p, sizeof p, "/battles/%d/result", n);
        snprintf(body, sizeof body,
                 "{\"winner\":\"%s\",\"medals\":{\"allies\":%d,\"axis\":%d},"
                 "\"objective_medals\":{\"allies\":0,\"axis\":%d}}",
                 winners[n - 1], medals[n - 1][0], medals[n - 1][1], n == 3 ? 2 : 0);
        expect_status(camp_post(&api_daemon, &c, ORGANIZER, p, body), 200, "cb1 result");
    }
    struct http_resp *r = camp_post(&api_daemon, &c, ORGANIZER, "/finish", "{}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "winner"), "axis");
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(http_int(r, "sides.allies.victory_points"), 12);
    CU_ASSERT_EQUAL(http_int(r, "sides.axis.victory_points"), 15);
    CU_ASSERT_EQUAL(http_int(r, "sides.allies.battles_won"), 2);
    http_free(r);
}

/* D9-D11: the readings are in the data and said to players: the What-if face mapping is
 * provisional, wherever a roll is shown. */
static void test_readings_shown(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"note\",\"ruleset\":\"break-through-normandy\","
                                "\"dice\":\"table\",\"what_if\":true}",
                                &c));
    struct http_resp *r = camp_post(&api_daemon, &c, ALLIES, "/what-if", "{\"faces\":[\"star\"]}");
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "note"), "icons"));
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "what_if_note"), "icons"));
    http_free(r);
    r = api(&api_daemon, "GET", "/api/v1/rulesets/standard", NULL, ANYONE, NULL, NULL);
    CU_ASSERT(strlen(http_str(r, "readings.grenades_chosen_by_roller")) > 0);
    http_free(r);
    r = api(&api_daemon, "GET", "/api/v1/rulesets/island-hoppers", NULL, ANYONE, NULL, NULL);
    CU_ASSERT(strlen(http_str(r, "reserve.allies.star-infantry-veteran.reading")) > 0);
    http_free(r);
}

/* Results battle 1 of `c` must refuse (422 result-inconsistent, naming `field`, the detail
 * saying `words` when given), changing nothing. */
struct bad_result {
    const char *body, *field, *words;
};

static void results_refused(const struct camp *c, const struct bad_result *bad, size_t n)
{
    long version = camp_version(&api_daemon, c);
    for (size_t i = 0; i < n; i++) {
        struct http_resp *r =
            camp_post(&api_daemon, c, ORGANIZER, "/battles/1/result", bad[i].body);
        assert_problem(r, 422, "result-inconsistent");
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), bad[i].field);
        if (bad[i].words)
            CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), bad[i].words));
        http_free(r);
    }
    CU_ASSERT_EQUAL(camp_version(&api_daemon, c), version);
}

/* The campaign's export with its first result's `what.side` set to `value`, imported into the
 * other daemon (a backup, perhaps made by an earlier version, perhaps forged). */
static struct http_resp *import_with_result(const struct camp *c, const char *what,
                                            const char *side, int value)
{
    struct http_resp *x = camp_get(&api_daemon, c, "/export");
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(x->json, "actions"), i, a)
    {
        if (strcmp(json_string_value(json_object_get(a, "action")), "result") == 0) {
            json_t *detail = json_object_get(a, "detail");
            if (!json_object_get(detail, what))
                json_object_set_new(detail, what, json_pack("{s:i, s:i}", "allies", 0, "axis", 0));
            json_object_set_new(json_object_get(detail, what), side, json_integer(value));
            break;
        }
    }
    char *doc = json_dumps(x->json, JSON_COMPACT);
    http_free(x);
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, doc, NULL);
    free(doc);
    return r;
}

/* RULES.md 2: "undeployed reserves: reserve units a side called up but could not place. Only
 * the winner of the battle gets 1 Reserve Token back for each": no more than the units the side
 * took in that battle's reserve choice that bring a unit (RULES.md 3: star + star brings one for
 * free; a flag brings a sandbag, no unit). */
static void two_units_called_up(struct camp *c)
{
    campaign(c, "standard", 2, 2, NULL, NULL);
    new_battle(c, "A", "allies", NULL);
    reserves(c, 1, "\"infantry\",\"armor\"", "\"flag\",\"flag\"");
    expect_status(camp_post(&api_daemon, c, ALLIES, "/battles/1/reserve-choice",
                            "{\"options\":[{\"id\":\"infantry@0\"},{\"id\":\"armor@1\"}]}"),
                  200, "two units");
    choose_nothing(c, 1, AXIS);
}

static void test_undeployed_are_units_called_up(void)
{
    struct camp c;
    two_units_called_up(&c);
    static const struct bad_result bad[] = {
        {"{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2},"
         "\"undeployed_reserves\":{\"allies\":3,\"axis\":0}}",
         "undeployed_reserves.allies", "The Allies called up 2 reserve units in battle 1"},
        {"{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2},"
         "\"undeployed_reserves\":{\"allies\":0,\"axis\":1}}",
         "undeployed_reserves.axis", "The Axis called up no reserve unit in battle 1"},
    };
    results_refused(&c, bad, sizeof bad / sizeof bad[0]);
    CU_ASSERT_EQUAL(tokens(&c, "allies"), 0);
    /* Both units unplaced, and the Allies won: 0 + 2 tokens back. */
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles/1/result",
                            "{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2},"
                            "\"undeployed_reserves\":{\"allies\":2,\"axis\":0}}"),
                  200, "two undeployed");
    CU_ASSERT_EQUAL(tokens(&c, "allies"), 2);
    /* A backup claiming more than the options the side took (the Axis took none): refused, and
     * nothing is made. */
    struct http_resp *x = import_with_result(&c, "undeployed_reserves", "axis", 1);
    assert_problem(x, 400, "invalid-field");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(x, "detail"),
                                  "The Axis took no reserve option in battle 1, so they "
                                  "cannot have 1 undeployed reserve."));
    http_free(x);
    x = camp_get(&other, &c, "");
    CU_ASSERT_EQUAL(x->status, 404);
    http_free(x);
    /* Star + star: an elite infantry unit for free is a unit too; sandbags are not. */
    struct camp f;
    campaign(&f, "standard", 2, 2, NULL, NULL);
    new_battle(&f, "A", "allies", NULL);
    reserves(&f, 1, "\"star\",\"star\"", "\"flag\",\"flag\"");
    expect_status(
        camp_post(&api_daemon, &f, ALLIES, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"star-star@0+1\",\"grant\":\"elite-infantry\"}]}"),
        200, "a free unit");
    expect_status(camp_post(&api_daemon, &f, AXIS, "/battles/1/reserve-choice",
                            "{\"options\":[{\"id\":\"flag@0\"},{\"id\":\"flag@1\"}]}"),
                  200, "two sandbags");
    static const struct bad_result sandbags[] = {
        {"{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2},"
         "\"undeployed_reserves\":{\"allies\":1,\"axis\":1}}",
         "undeployed_reserves.axis", "The Axis called up no reserve unit in battle 1"},
    };
    results_refused(&f, sandbags, 1);
    expect_status(camp_post(&api_daemon, &f, ORGANIZER, "/battles/1/result",
                            "{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2},"
                            "\"undeployed_reserves\":{\"allies\":1,\"axis\":0}}"),
                  200, "the free unit undeployed");
    CU_ASSERT_EQUAL(tokens(&f, "allies"), 3);
    /* A backup restores what an earlier reading recorded, refused today: it counted the options
     * a side took (here two sandbags), not only those that bring a unit. */
    expect_status(import_with_result(&f, "undeployed_reserves", "axis", 1), 201, "an old backup");
    x = camp_get(&other, &f, "/battles/1");
    CU_ASSERT_EQUAL(http_int(x, "result.undeployed_reserves.axis"), 1);
    http_free(x);
}

/* D12. API.md: a result whose loser reached the medals to win, or whose winner did not, is
 * refused (422 result-inconsistent, with the field), unless it was a sudden death. */
static void test_results_that_cannot_be_right(void)
{
    struct camp c;
    campaign(&c, "standard", 2, 2, NULL, NULL);
    new_battle(&c, "A", "allies", ",\"medals_to_win\":4");
    reserves(&c, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 1, ALLIES);
    choose_nothing(&c, 1, AXIS);
    static const struct bad_result bad[] = {
        {"{\"winner\":\"axis\",\"medals\":{\"allies\":9,\"axis\":0}}", "medals.allies", NULL},
        {"{\"winner\":\"axis\",\"medals\":{\"allies\":4,\"axis\":4}}", "medals.allies",
         "The Allies lost with 4 medals, but 4 win this battle"},
        {"{\"winner\":\"allies\",\"medals\":{\"allies\":3,\"axis\":2}}", "medals.allies", NULL},
        {"{\"winner\":\"allies\",\"medals\":{\"allies\":1,\"axis\":0}}", "medals.allies",
         "The Allies won with 1 medal, but it takes 4 to win this battle"},
    };
    results_refused(&c, bad, sizeof bad / sizeof bad[0]);
    /* A scenario won by its special condition: the medals need not say so. */
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles/1/result",
                            "{\"winner\":\"allies\",\"medals\":{\"allies\":3,\"axis\":2},"
                            "\"sudden_death\":true}"),
                  200, "sudden death");
    struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "result.sudden_death")));
    http_free(r);
    /* On several maps the medals to win are the maps' total (29): the loser may not reach it. */
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                            "{\"scenario\":\"Sword and Juno\",\"first_player\":\"allies\","
                            "\"maps\":[\"Sword\",\"juno\"]}"),
                  201, "maps named in any case");
    victory_events(&c, 2, "\"flag\",\"flag\",\"flag\"", "\"flag\",\"flag\"");
    reserves(&c, 2, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 2, ALLIES);
    choose_nothing(&c, 2, AXIS);
    r = camp_post(&api_daemon, &c, ORGANIZER, "/battles/2/result",
                  "{\"winner\":\"allies\",\"medals\":{\"allies\":31,\"axis\":29}}");
    assert_problem(r, 422, "result-inconsistent");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "medals.axis");
    http_free(r);
    /* The simplified rules roll the medals of the last battle + the battles won (RULES.md 6),
     * and a roll holds at most 128 dice: 128 medals and a first win would be 129, never rolled
     * as fewer without a word. */
    struct camp s;
    campaign(&s, "simplified", 0, 0, NULL, NULL);
    new_battle(&s, "A", "allies", ",\"medals_to_win\":6");
    static const struct bad_result too_many[] = {
        {"{\"winner\":\"allies\",\"medals\":{\"allies\":128,\"axis\":2}}", "medals.allies",
         "With 128 medals in this battle the Allies would roll 129 dice before the next one, and "
         "a roll holds at most 128: check the medals."},
    };
    results_refused(&s, too_many, 1);
    /* A side that won no medal and no battle rolls no victory event dice: it is told so. */
    struct camp z;
    campaign(&z, "simplified", 0, 0, NULL, NULL);
    new_battle(&z, "A", "allies", ",\"medals_to_win\":4");
    result(&z, 1, "allies", 4, 0);
    new_battle(&z, "B", "allies", ",\"medals_to_win\":4");
    r = camp_post(&api_daemon, &z, AXIS, "/battles/2/victory-events", "{}");
    assert_problem(r, 409, "already-done");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "The Axis have no victory event dice in battle 2.");
    http_free(r);
    result(&s, 1, "allies", 127, 2);
    new_battle(&s, "B", "allies", ",\"medals_to_win\":6");
    r = camp_get(&api_daemon, &s, "/battles/2");
    CU_ASSERT_EQUAL(http_int(r, "victory_events.dice.allies"), 128);
    CU_ASSERT_EQUAL(http_int(r, "victory_events.dice.axis"), 2);
    http_free(r);
    /* A backup whose medals would need more dice than a roll holds: refused, nothing made. */
    r = import_with_result(&s, "medals", "allies", 200);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), "would roll 201 dice"));
    http_free(r);
    r = camp_get(&other, &s, "");
    CU_ASSERT_EQUAL(r->status, 404);
    http_free(r);
}

/* A battle on Sword and Juno (`maps` as sent): 29 medals, 12 and 9 cards. */
static void sword_and_juno(const struct camp *c, const char *maps)
{
    char body[200];
    snprintf(body, sizeof body,
             "{\"scenario\":\"Sword and Juno\",\"first_player\":\"allies\",\"maps\":%s}", maps);
    struct http_resp *r = camp_post(&api_daemon, c, ORGANIZER, "/battles", body);
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "medals_to_win"), 29);
    CU_ASSERT_EQUAL(http_int(r, "cards.allies"), 12);
    CU_ASSERT_EQUAL(http_int(r, "cards.axis"), 9);
    http_free(r);
}

/* D13. RULES.md 7 (003: "total the number of Victory Medals found on each map ... Only the total
 * number of medals matters"): Sword + Juno, OverThrough: 29 medals, Commanders-in-Chief 12
 * (Allies) and 9 (Axis) cards; the British Landings 41; all six maps 78. */
static void test_multi_map(void)
{
    struct camp c;
    campaign(&c, "standard", 2, 2, NULL, NULL);
    sword_and_juno(&c, "[\"juno\",\"sword\"]");
    struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "maps.1.name"), "Sword Beach");
    http_free(r);
    reserves(&c, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 1, ALLIES);
    choose_nothing(&c, 1, AXIS);
    result(&c, 1, "allies", 31, 22); /* beyond the total: it counts */
    r = camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                  "{\"scenario\":\"British\",\"first_player\":\"allies\",\"maps\":[\"sword\","
                  "\"juno\",\"gold\"],\"cards\":{\"allies\":6,\"axis\":6}}");
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "medals_to_win"), 41);
    http_free(r);
    /* Refusals, nothing written. */
    struct camp d;
    campaign(&d, "standard", 2, 2, NULL, NULL);
    static const struct {
        const char *body, *code, *field;
    } bad[] = {
        {"{\"scenario\":\"X\",\"first_player\":\"allies\",\"maps\":[\"sword\",\"utah\"]}",
         "invalid-field", "maps"},
        {"{\"scenario\":\"X\",\"first_player\":\"allies\",\"maps\":[\"sword\",\"mars\"]}",
         "invalid-field", "maps[1]"},
        {"{\"scenario\":\"X\",\"first_player\":\"allies\",\"maps\":[\"sword\",\"juno\"],"
         "\"medals_to_win\":20}",
         "invalid-field", "medals_to_win"},
        {"{\"scenario\":\"X\",\"first_player\":\"allies\",\"maps\":[\"omaha\",\"utah\","
         "\"us-airborne\"]}",
         "missing-field", "cards.allies"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = camp_post(&api_daemon, &d, ORGANIZER, "/battles", bad[i].body);
        assert_problem(r, 400, bad[i].code);
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), bad[i].field);
        http_free(r);
    }
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &d), 1);
    /* The simplified rules link "any scenarios" (RULES.md 6): a battle on several maps too. */
    struct camp s;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"simplified maps\",\"ruleset\":\"simplified\","
                                "\"dice\":\"table\"}",
                                &s));
    sword_and_juno(&s, "[\"sword\",\"juno\"]");
    /* It takes the maps from the standard rules and nothing else: no reserve roll, no tokens,
     * no reading of the standard rules' reserves (RULES.md 6). */
    struct http_resp *rs =
        api(&api_daemon, "GET", "/api/v1/rulesets/simplified", NULL, ANYONE, NULL, NULL);
    CU_ASSERT_EQUAL(rs->status, 200);
    const char *absent[] = {"reserve", "grants", "reserve_tokens", "reserve_placement", "what_if"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        CU_ASSERT_PTR_NULL(json_object_get(rs->json, absent[i]));
    json_t *readings = json_object_get(rs->json, "readings");
    CU_ASSERT_EQUAL(json_object_size(readings), 2);
    CU_ASSERT_PTR_NOT_NULL(json_object_get(readings, "winner"));
    CU_ASSERT_PTR_NOT_NULL(json_object_get(readings, "multi_map"));
    CU_ASSERT_PTR_NOT_NULL(json_object_get(json_object_get(rs->json, "maps"), "combinations"));
    http_free(rs);
    /* The D-Day Landings maps are Normandy's and the Political Commissar the Eastern Front's
     * (RULES.md 4, 7): a Pacific, Malayan or Normandy 1944 campaign refuses what it cannot
     * have, in the rules' words, and writes nothing. */
    static const struct {
        const char *ruleset, *extra, *field, *says;
    } elsewhere[] = {
        {"island-hoppers", "\"maps\":[\"sword\",\"juno\"]", "maps",
         "There are no D-Day Landings maps in Island Hoppers: a battle of it is on one map, with "
         "the medals to win its scenario gives."},
        {"bicycle-blitzkrieg", "\"maps\":[\"sword\",\"juno\"]", "maps", NULL},
        {"fall-of-poland", "\"maps\":[\"sword\",\"juno\"]", "maps", NULL},
        {"island-hoppers", "\"medals_to_win\":6,\"commissar\":\"axis\"", "commissar",
         "There is no Political Commissar in Island Hoppers: it is a rule of the Eastern Front."},
        {"bicycle-blitzkrieg", "\"medals_to_win\":6,\"commissar\":\"allies\"", "commissar", NULL},
        {"break-through-normandy", "\"medals_to_win\":6,\"commissar\":\"axis\"", "commissar", NULL},
    };
    for (size_t i = 0; i < sizeof elsewhere / sizeof elsewhere[0]; i++) {
        struct camp e;
        campaign(&e, elsewhere[i].ruleset, 2, 2, NULL, NULL);
        char body[300];
        snprintf(body, sizeof body,
                 "{\"scenario\":\"X\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                 "\"axis\":5},%s}",
                 elsewhere[i].extra);
        r = camp_post(&api_daemon, &e, ORGANIZER, "/battles", body);
        assert_problem(r, 400, "invalid-field");
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), elsewhere[i].field);
        if (elsewhere[i].says)
            CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), elsewhere[i].says);
        http_free(r);
        CU_ASSERT_EQUAL(camp_version(&api_daemon, &e), 1);
    }
    /* Where the rules have them, they stay: the Commissar in Fall of Poland (test_soviet_invasion
     * above) and the standard rules, the maps in Break Through Normandy. */
    struct camp n;
    campaign(&n, "break-through-normandy", 2, 2, NULL, NULL);
    sword_and_juno(&n, "[\"sword\",\"juno\"]");
    campaign(&n, "standard", 2, 2, NULL, NULL);
    new_battle(&n, "Kursk", "axis", ",\"medals_to_win\":6,\"commissar\":\"allies\"");
}

/* RULES.md 9: "Air Power / Air Sortie tokens and Veteran Stars won by reserve rolls are held per
 * side until the organizer marks them used, and shown in the standing", removed at the end. */
static void test_held_tokens(void)
{
    struct camp c;
    campaign(&c, "standard", 2, 2, NULL, NULL);
    new_battle(&c, "A", "allies", NULL);
    reserves(&c, 1, "\"star\",\"star\"", "\"star\",\"star\"");
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice",
                            "{\"options\":[{\"id\":\"star-star@0+1\",\"grant\":\"air-sortie\"}]}"),
                  200, "an air token");
    expect_status(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice",
                            "{\"options\":[{\"id\":\"star-star@0+1\",\"grant\":\"elite-armor\"}]}"),
                  200, "a unit, not kept");
    struct http_resp *r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "sides.allies.held")), 1);
    CU_ASSERT_STRING_EQUAL(http_str(r, "sides.allies.held.0.grant"), "air-sortie");
    CU_ASSERT_EQUAL(http_int(r, "sides.allies.held.0.battle"), 1);
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "sides.axis.held")), 0);
    long id = http_int(r, "sides.allies.held.0.id");
    http_free(r);
    char p[64];
    snprintf(p, sizeof p, "/held/%ld/use", id);
    r = camp_post(&api_daemon, &c, ALLIES, p, "{}");
    assert_problem(r, 403, "forbidden");
    http_free(r);
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, p, "{}"), 200, "used");
    r = camp_post(&api_daemon, &c, ORGANIZER, p, "{}");
    assert_problem(r, 409, "already-done");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), "An Air Sortie / Air Power token (Air Pack "
                                                  "owners) from battle 1, held by the Allies, was "
                                                  "marked used already.");
    http_free(r);
    r = camp_post(&api_daemon, &c, ORGANIZER, "/held/99/use", "{}");
    assert_problem(r, 404, "not-found");
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "sides.allies.held")), 0);
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.what"),
                           "the Allies using an Air Sortie / Air Power token (Air Pack owners)");
    http_free(r);
    /* Another one, then the end: removed. */
    result(&c, 1, "allies", 6, 0);
    new_battle(&c, "B", "allies", NULL);
    victory_events(&c, 2, "\"flag\",\"flag\",\"flag\"", "\"flag\",\"flag\"");
    reserves(&c, 2, "\"star\",\"star\"", "\"flag\",\"flag\"");
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/battles/2/reserve-choice",
                            "{\"options\":[{\"id\":\"star-star@0+1\",\"grant\":\"air-sortie\"}]}"),
                  200, "another air token");
    choose_nothing(&c, 2, AXIS);
    result(&c, 2, "axis", 1, 6);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "sides.allies.held")), 1);
    http_free(r);
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/finish", "{}"), 200, "finish");
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "sides.allies.held")), 0);
    http_free(r);
}

/* 001, Naval Struggle: "in any scenario that involves US Navy Destroyers, the Japanese player
 * rolls 3 dice at the start of the battle; Stars indicate hits along with the normal Grenade
 * hits". Night Attacks: "Axis player may opt to make any one scenario in the campaign a Night
 * Attack". Both recorded, then the campaign survives export and import. */
static void test_naval_struggle_and_night_attacks(void)
{
    struct camp c;
    campaign(&c, "island-hoppers", 2, 2, "star", "grenade"); /* Naval Struggle, Night Attacks */
    new_battle(&c, "Guadalcanal", "allies", ",\"medals_to_win\":6,\"features\":[\"destroyers\"]");
    struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "phase"), "victory_events");
    CU_ASSERT_STRING_EQUAL(http_str(r, "waiting_for.0"), "axis:pre-battle-roll");
    CU_ASSERT_EQUAL(http_int(r, "pre_battle_rolls.0.dice"), 3);
    CU_ASSERT_FALSE(lists(&c, 1, "effects", "night-attacks")); /* not picked yet */
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    json_t *effects = http_json_at(r, "effects");
    for (size_t i = 0; i < json_array_size(effects); i++) {
        json_t *e = json_array_get(effects, i);
        bool night = strcmp(json_string_value(json_object_get(e, "id")), "night-attacks") == 0;
        CU_ASSERT_STRING_EQUAL(night ? json_string_value(json_object_get(e, "picked_by")) : "-",
                               night ? "axis" : "-");
        CU_ASSERT_PTR_NULL(json_object_get(e, "picked_battle"));
    }
    http_free(r);
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/pre-battle-roll",
                  "{\"faces\":[\"star\",\"star\",\"star\"]}");
    assert_problem(r, 422, "rule-violation"); /* the Japanese player rolls */
    http_free(r);
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-roll",
                  "{\"faces\":[\"star\",\"star\"]}");
    assert_problem(r, 409, "wrong-phase"); /* the naval roll comes first */
    http_free(r);
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/pre-battle-roll",
                  "{\"faces\":[\"star\",\"grenade\",\"flag\"]}");
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "hits"), 2);
    CU_ASSERT_STRING_EQUAL(http_str(r, "phase"), "reserves");
    http_free(r);
    r = camp_get(&api_daemon, &c, "/rolls");
    CU_ASSERT_STRING_EQUAL(http_str(r, "2.purpose"), "pre_battle");
    http_free(r);
    /* Night Attacks: the Allies cannot pick, the Axis can, once. */
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/pick", "{\"event\":\"night-attacks\"}");
    assert_problem(r, 403, "forbidden");
    http_free(r);
    expect_status(
        camp_post(&api_daemon, &c, AXIS, "/battles/1/pick", "{\"event\":\"night-attacks\"}"), 200,
        "picked");
    CU_ASSERT_TRUE(lists(&c, 1, "effects", "night-attacks"));
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/pick", "{\"event\":\"night-attacks\"}");
    assert_problem(r, 409, "already-done");
    http_free(r);
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/pick", "{\"event\":\"naval-struggle\"}");
    assert_problem(r, 400, "invalid-field");
    http_free(r);
    reserves(&c, 1, "\"star\",\"star\"", "\"flag\",\"flag\"");
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice",
                            "{\"options\":[{\"id\":\"star-star@0+1\",\"grant\":\"air-sortie\"}]}"),
                  200, "allies air");
    choose_nothing(&c, 1, AXIS);
    result(&c, 1, "axis", 2, 6);
    /* A battle is picked before it starts, never once it is being played or over. */
    struct camp late;
    campaign(&late, "island-hoppers", 2, 2, "infantry", "grenade");
    new_battle(&late, "Guadalcanal", "allies", NULL);
    reserves(&late, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&late, 1, ALLIES);
    choose_nothing(&late, 1, AXIS);
    r = camp_post(&api_daemon, &late, AXIS, "/battles/1/pick", "{\"event\":\"night-attacks\"}");
    assert_problem(r, 409, "wrong-phase");
    http_free(r);
    result(&late, 1, "axis", 2, 6);
    r = camp_post(&api_daemon, &late, AXIS, "/battles/1/pick", "{\"event\":\"night-attacks\"}");
    assert_problem(r, 409, "wrong-phase");
    http_free(r);
    /* A battle without Destroyers: no naval roll. */
    new_battle(&c, "Savo", "allies", NULL);
    r = camp_get(&api_daemon, &c, "/battles/2");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "pre_battle_rolls")), 0);
    http_free(r);
    CU_ASSERT_FALSE(lists(&c, 2, "effects", "night-attacks"));
    /* Everything recorded survives the round trip. */
    camp_copy_to(&other, &c);
    struct http_resp *a = camp_get(&api_daemon, &c, "/battles/1"),
                     *b = camp_get(&other, &c, "/battles/1");
    const char *same[] = {"pre_battle_rolls", "effects", "result", "first_player"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        CU_ASSERT_TRUE(json_equal(http_json_at(a, same[i]), http_json_at(b, same[i])));
    http_free(a);
    http_free(b);
    a = camp_get(&api_daemon, &c, "");
    b = camp_get(&other, &c, "");
    CU_ASSERT_TRUE(json_equal(http_json_at(a, "sides"), http_json_at(b, "sides")));
    http_free(a);
    http_free(b);
}

/* docs/RULESETS.md: "The scope says at which battles the event is in force": an event's
 * changes to the reserve options and its pre-battle roll apply at the battles of its scope only
 * (house_rules above). */
static int axis_air_grants(const struct camp *c, int n)
{
    char p[64];
    snprintf(p, sizeof p, "/battles/%d", n);
    struct http_resp *r = camp_get(at, c, p);
    json_t *opts = http_json_at(r, "reserves.axis.options");
    int air = 0;
    for (size_t i = 0; i < json_array_size(opts); i++) {
        json_t *g = json_object_get(json_array_get(opts, i), "grants");
        for (size_t k = 0; k < json_array_size(g); k++)
            air += strncmp(json_string_value(json_array_get(g, k)), "air-", 4) == 0;
    }
    http_free(r);
    return air;
}

static size_t pre_battle_rolls(const struct camp *c, int n)
{
    char p[64];
    snprintf(p, sizeof p, "/battles/%d", n);
    struct http_resp *r = camp_get(at, c, p);
    size_t k = json_array_size(http_json_at(r, "pre_battle_rolls"));
    http_free(r);
    return k;
}

/* A battle's first player or Commissar ("none" when the rule is lifted), as GET shows it. */
static const char *set_up(const struct camp *c, int n, const char *key)
{
    static char out[16];
    char p[64];
    snprintf(p, sizeof p, "/battles/%d", n);
    struct http_resp *r = camp_get(at, c, p);
    json_t *v = http_json_at(r, key);
    snprintf(out, sizeof out, "%s", json_is_string(v) ? json_string_value(v) : "none");
    http_free(r);
    return out;
}

static void test_scope(void)
{
    at = &other; /* back at the end; the test is registered last in case a fatal check stops it */
    struct camp c;
    campaign(&c, "house-hoppers", 2, 2, "star", "infantry"); /* Allies: Naval Struggle */
    new_battle(&c, "Guadalcanal", "allies", ",\"medals_to_win\":6,\"features\":[\"destroyers\"]");
    CU_ASSERT_EQUAL(pre_battle_rolls(&c, 1), 0);
    reserves(&c, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&c, 1, ALLIES);
    choose_nothing(&c, 1, AXIS);
    result(&c, 1, "axis", 2, 6);
    new_battle(&c, "Savo", "allies", ",\"medals_to_win\":6,\"features\":[\"destroyers\"]");
    CU_ASSERT_EQUAL(pre_battle_rolls(&c, 2), 1);

    struct camp d;
    campaign(&d, "house-hoppers", 2, 2, "grenade", "infantry"); /* Allies: Air Supremacy */
    new_battle(&d, "Guadalcanal", "allies", NULL);
    reserves(&d, 1, "\"star\",\"star\"", "\"star\",\"star\"");
    CU_ASSERT(axis_air_grants(&d, 1) > 0); /* not Tarawa: the Axis keep their air grants */
    choose_nothing(&d, 1, ALLIES);
    choose_nothing(&d, 1, AXIS);
    result(&d, 1, "axis", 2, 6);
    new_battle(&d, "Tarawa", "allies", NULL);
    victory_events(&d, 2, "\"flag\",\"flag\"", "\"flag\",\"flag\",\"flag\"");
    reserves(&d, 2, "\"star\",\"star\"", "\"star\",\"star\"");
    CU_ASSERT_EQUAL(axis_air_grants(&d, 2), 0);

    /* An event that changes a battle's set-up, for the battle a side picks (house_poland):
     * the battle picked only, from the pick on; an undone pick takes it back. */
    struct camp p;
    campaign(&p, "house-poland", 2, 2, "infantry", "flag"); /* Axis: Soviet Invasion */
    new_battle(&p, "Mokra", "allies", ",\"medals_to_win\":6,\"commissar\":\"axis\"");
    CU_ASSERT_STRING_EQUAL(set_up(&p, 1, "first_player"), "allies"); /* nothing picked yet */
    reserves(&p, 1, "\"flag\",\"flag\"", "\"flag\",\"flag\"");
    choose_nothing(&p, 1, ALLIES);
    choose_nothing(&p, 1, AXIS);
    result(&p, 1, "allies", 6, 1);
    new_battle(&p, "Szack", "allies", ",\"medals_to_win\":6,\"commissar\":\"axis\"");
    CU_ASSERT_STRING_EQUAL(set_up(&p, 2, "first_player"), "allies"); /* not picked: as set up */
    CU_ASSERT_STRING_EQUAL(set_up(&p, 2, "commissar"), "axis");
    expect_status(camp_post(at, &p, AXIS, "/battles/2/pick", "{\"event\":\"soviet-invasion\"}"),
                  200, "pick");
    CU_ASSERT_STRING_EQUAL(set_up(&p, 2, "first_player"), "axis");
    CU_ASSERT_STRING_EQUAL(set_up(&p, 2, "commissar"), "none");
    CU_ASSERT_STRING_EQUAL(set_up(&p, 1, "first_player"), "allies"); /* played as set up */
    expect_status(camp_post(at, &p, AXIS, "/undo", "{}"), 200, "undo the pick");
    CU_ASSERT_STRING_EQUAL(set_up(&p, 2, "first_player"), "allies");
    CU_ASSERT_STRING_EQUAL(set_up(&p, 2, "commissar"), "axis");
    at = &api_daemon;
}

/* Undo of a token marked used, whose text is as long as a ruleset's text may be and ends in
 * two-byte letters: offered and logged whole, undone once (the next undo offered is the choice
 * before it), and refused by a server that has not loaded the campaign's ruleset (its battle
 * left as it was). */
static void test_undo_long_token_text(void)
{
    CU_ASSERT_EQUAL_FATAL(strlen(long_token), 319);
    at = &other; /* back at the end */
    struct camp c;
    campaign(&c, "house-long", 2, 2, NULL, NULL);
    new_battle(&c, "A", "allies", NULL);
    reserves(&c, 1, "\"star\",\"star\"", "\"flag\",\"flag\"");
    expect_status(camp_post(at, &c, ALLIES, "/battles/1/reserve-choice",
                            "{\"options\":[{\"id\":\"star-star@0+1\",\"grant\":\"air-sortie\"}]}"),
                  200, "the long token");
    choose_nothing(&c, 1, AXIS);
    struct http_resp *r = camp_get(at, &c, "");
    char use[64], want[400];
    snprintf(use, sizeof use, "/held/%ld/use", (long)http_int(r, "sides.allies.held.0.id"));
    http_free(r);
    expect_status(camp_post(at, &c, ORGANIZER, use, "{}"), 200, "used");
    snprintf(want, sizeof want, "the Allies using %s", long_token);
    r = camp_get(at, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.what"), want);
    http_free(r);
    /* A server without the ruleset: the undo is refused, nothing changes. */
    struct daemon bare;
    CU_ASSERT_FATAL(daemon_start(&bare, other_db, NULL));
    static const char no_rules[] =
        "This server does not have this campaign's rules, so the campaign cannot go on here.";
    r = camp_get(&bare, &c, ""); /* not offered to anyone, and said why */
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "undo.who")), 0);
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.why_not"), no_rules);
    http_free(r);
    r = camp_post(&bare, &c, ORGANIZER, "/undo", "{}");
    assert_problem(r, 409, "ruleset-unavailable");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), no_rules);
    http_free(r);
    /* Any other write is refused in players' words too: no ruleset id, no option name. */
    r = camp_post(&bare, &c, ORGANIZER, "/battles/1/result",
                  "{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2}}");
    assert_problem(r, 409, "ruleset-unavailable");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), no_rules);
    http_free(r);
    daemon_stop(&bare, SIGTERM, 10);
    char *log = tk_slurp(bare.log); /* the operator learns which rules to load */
    CU_ASSERT_PTR_NOT_NULL(log && strstr(log, "plays the ruleset \"house-long\", which this server "
                                              "has not loaded (see --rulesets-dir)"));
    free(log);
    r = camp_get(at, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.what"), want);
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "sides.allies.held")), 0);
    http_free(r);
    CU_ASSERT_STRING_EQUAL(set_up(&c, 1, "phase"), "ready");
    /* Undone here: the reply offers the Axis' choice next, and the log has what was undone. */
    r = camp_post(at, &c, ORGANIZER, "/undo", "{}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "undone.what"), want);
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.action"), "reserve_choice");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.by"), "axis");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "sides.allies.held")), 1);
    http_free(r);
    r = camp_get(at, &c, "/log");
    json_t *last = json_array_get(r->json, json_array_size(r->json) - 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(last, "action")), "undo");
    CU_ASSERT_STRING_EQUAL(
        json_string_value(json_object_get(json_object_get(last, "detail"), "action")), "held_used");
    http_free(r);
    expect_status(camp_post(at, &c, AXIS, "/undo", "{}"), 200, "the Axis' choice undone");
    r = camp_get(at, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.action"), "reserve_choice");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.by"), "allies");
    http_free(r);
    /* Its backup, brought to a server without the house rules: refused as such (409). */
    r = camp_get(at, &c, "/export");
    struct http_resp *imp =
        api(&api_daemon, "POST", "/api/v1/campaigns/import", NULL, ANYONE, r->body, NULL);
    assert_problem(imp, 409, "ruleset-unavailable");
    CU_ASSERT_STRING_EQUAL(http_str(imp, "field"), "actions[0].detail.ruleset");
    CU_ASSERT_STRING_EQUAL(http_str(imp, "detail"),
                           "This campaign's rules (house-long) are not loaded on this server.");
    http_free(imp);
    http_free(r);
    at = &api_daemon;
}

/* A campaign of a grand campaign whose rules have no reserve roll has no Reserve Tokens: the
 * standing offers none, and giving any is refused; nothing starts (RULES.md 6). */
static void test_grand_without_reserves(void)
{
    struct http_resp *r = api(&other, "POST", "/api/v1/grand-campaigns", NULL, ANYONE,
                              "{\"name\":\"House\",\"grand_ruleset\":\"house-grand\"}", NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp g = {0};
    snprintf(g.id, sizeof g.id, "%s", http_str(r, "id"));
    snprintf(g.key[ORGANIZER], sizeof g.key[0], "%s", http_str(r, "organizer_key"));
    http_free(r);
    char path[128], next[160];
    snprintf(path, sizeof path, "/api/v1/grand-campaigns/%s", g.id);
    snprintf(next, sizeof next, "%s/next", path);
    r = api(&other, "GET", path, NULL, ANYONE, NULL, NULL);
    CU_ASSERT_STRING_EQUAL(http_str(r, "next.name"), "Opening");
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "next.reserve_tokens")));
    long long version = http_int(r, "version");
    http_free(r);
    r = api(&other, "POST", next, &g, ORGANIZER, "{\"reserve_tokens\":{\"allies\":1,\"axis\":0}}",
            NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "reserve_tokens");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "Opening has no reserve roll, so no Reserve Tokens.");
    http_free(r);
    r = api(&other, "GET", path, NULL, ANYONE, NULL, NULL);
    CU_ASSERT_EQUAL(http_int(r, "version"), version);
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "campaigns.0.id")));
    http_free(r);
    /* None given, or none: it starts. */
    r = api(&other, "POST", next, &g, ORGANIZER, "{\"reserve_tokens\":{\"allies\":0,\"axis\":0}}",
            NULL);
    CU_ASSERT_EQUAL(r->status, 201);
    struct camp c = g;
    snprintf(c.id, sizeof c.id, "%s", http_str(r, "id"));
    http_free(r);
    r = camp_get(&other, &c, "");
    CU_ASSERT_EQUAL(http_int(r, "sides.allies.reserve_tokens"), 0);
    CU_ASSERT_EQUAL(http_int(r, "sides.axis.reserve_tokens"), 0);
    http_free(r);
}

void register_rules_tests(void)
{
    CU_pSuite s = CU_add_suite("rules fidelity (RULES.md 7-9)", suite_init, suite_clean);
    CU_add_test(s, "D1 an option's alternatives cost differently", test_cost_per_alternative);
    CU_add_test(s, "D2 Defensive Works: battle 1's result and battle 2", test_defensive_works);
    CU_add_test(s, "D3 Allied Air Supremacy takes the Axis air grants", test_air_supremacy);
    CU_add_test(s, "D4 Forward Command: one more What-if roll", test_forward_command);
    CU_add_test(s, "D5 Soviet Invasion at Szack", test_soviet_invasion);
    CU_add_test(s, "D6 scenario names match whole names", test_whole_names);
    CU_add_test(s, "D7 CB1 victory points decide; D8 its two stars", test_cb1_winner_and_two_stars);
    CU_add_test(s, "D9-D11 readings shown", test_readings_shown);
    CU_add_test(s, "D12 results that cannot be right", test_results_that_cannot_be_right);
    CU_add_test(s, "undeployed reserves are units called up in the battle",
                test_undeployed_are_units_called_up);
    CU_add_test(s, "D13 multi-map battles", test_multi_map);
    CU_add_test(s, "granted tokens kept, used, removed", test_held_tokens);
    CU_add_test(s, "undo of a token with a long text; refused without the ruleset",
                test_undo_long_token_text);
    CU_add_test(s, "Naval Struggle's roll, Night Attacks' battle, and the round trip",
                test_naval_struggle_and_night_attacks);
    CU_add_test(s, "an event's effects apply at the battles of its scope only", test_scope);
    CU_add_test(s, "a grand campaign's campaign without reserve roll has no tokens",
                test_grand_without_reserves);
}
