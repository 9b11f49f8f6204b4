/*
 * A whole campaign of every ruleset through HTTP: What-if rolls, battles, victory events,
 * reserve rolls and choices, results, carry-over (battles won, medals, tokens), finish. The
 * test keeps its own account of the standing and checks the daemon's against it, then
 * re-derives every roll from the revealed seed with its own HMAC code (RULES.md 1.2).
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const SIDES[2] = {"allies", "axis"};

/* Token effects of What-if events, from RULES.md 5 (the test's own table). */
static const struct {
    const char *id;
    int side; /* 0 allies, 1 axis, 2 the roller */
    char op;  /* '+' add, '=' set */
    int amount;
    int after_battle;
    bool stacks;
} token_events[] = {
    {"relief", 0, '+', 2, 0, false},
    {"reinforcements", 1, '+', 1, 0, false},
    {"juggernaut", 1, '+', 2, 0, false},
    {"force-z", 1, '=', 0, 0, false},
    {"german-partisans", 0, '+', -2, 0, false},
    {"western-allies", 1, '=', 0, 1, false},
    {"reserves", 2, '+', 1, 0, true},
    {"resistance", 1, '+', -1, 0, false},
};

static void apply_event(const char *id, int roller, bool already, int after, int tokens[2])
{
    for (size_t i = 0; i < sizeof token_events / sizeof token_events[0]; i++) {
        if (strcmp(token_events[i].id, id) != 0 || token_events[i].after_battle != after)
            continue;
        if (already && !token_events[i].stacks)
            return;
        int s = token_events[i].side == 2 ? roller : token_events[i].side;
        int v =
            token_events[i].op == '=' ? token_events[i].amount : tokens[s] + token_events[i].amount;
        tokens[s] = v < 0 ? 0 : v;
    }
}

struct model {
    int tokens[2], won[2], medals[2], last_medals[2];
    char events[2][48];
    long rolls;
};

static void check_standing(const struct camp *c, const struct model *m, const char *where)
{
    struct http_resp *r = camp_get(&api_daemon, c, "");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    for (int s = 0; s < 2; s++) {
        char p[64];
        snprintf(p, sizeof p, "sides.%s.reserve_tokens", SIDES[s]);
        if (http_int(r, p) != m->tokens[s])
            fprintf(stderr, "\n%s: %s tokens %lld, expected %d\n", where, SIDES[s], http_int(r, p),
                    m->tokens[s]);
        CU_ASSERT_EQUAL(http_int(r, p), m->tokens[s]);
        snprintf(p, sizeof p, "sides.%s.battles_won", SIDES[s]);
        CU_ASSERT_EQUAL(http_int(r, p), m->won[s]);
        snprintf(p, sizeof p, "sides.%s.medals", SIDES[s]);
        CU_ASSERT_EQUAL(http_int(r, p), m->medals[s]);
    }
    http_free(r);
}

/* Rolls one roll request; returns the response (status checked). */
static struct http_resp *roll(const struct camp *c, int side, const char *suffix, struct model *m)
{
    char seed[80], body[128];
    snprintf(seed, sizeof seed, "client \"seed\" %ld ✓", m->rolls);
    json_t *b = json_pack("{s:s}", "client_seed", seed);
    char *s = jstr(b);
    snprintf(body, sizeof body, "%s", s);
    free(s);
    json_decref(b);
    struct http_resp *r = camp_post(&api_daemon, c, side == 0 ? ALLIES : AXIS, suffix, body);
    if (r->status != 201)
        fprintf(stderr, "\n%s as %s: %ld %s\n", suffix, SIDES[side], r->status, r->body);
    CU_ASSERT_EQUAL(r->status, 201);
    m->rolls++;
    CU_ASSERT_EQUAL(http_int(r, "roll"), m->rolls);
    return r;
}

/* Greedy choice: each offered option in order, with its first alternative, if its dice are free
 * and that alternative is affordable (an option's alternatives may cost differently, RULES.md
 * 9: "cost" is the cheapest, "costs" each one's). */
static int choose(const struct camp *c, int side, int battle, json_t *options, int tokens,
                  int *spent)
{
    json_t *chosen = json_array();
    bool used[8] = {false};
    int cost = 0;
    size_t i;
    json_t *o;
    json_array_foreach(options, i, o)
    {
        json_t *dice = json_object_get(o, "dice");
        bool free_dice = true;
        for (size_t k = 0; k < json_array_size(dice); k++)
            free_dice &= !used[json_integer_value(json_array_get(dice, k))];
        int oc = (int)json_integer_value(json_array_get(json_object_get(o, "costs"), 0));
        if (!free_dice || cost + oc > tokens)
            continue;
        for (size_t k = 0; k < json_array_size(dice); k++)
            used[json_integer_value(json_array_get(dice, k))] = true;
        cost += oc;
        json_array_append_new(chosen,
                              json_pack("{s:O, s:O}", "id", json_object_get(o, "id"), "grant",
                                        json_array_get(json_object_get(o, "grants"), 0)));
    }
    json_t *body = json_pack("{s:o}", "options", chosen);
    char *text = jstr(body);
    json_decref(body);
    char suffix[64];
    snprintf(suffix, sizeof suffix, "/battles/%d/reserve-choice", battle);
    struct http_resp *r = camp_post(&api_daemon, c, side == 0 ? ALLIES : AXIS, suffix, text);
    free(text);
    if (r->status != 200)
        fprintf(stderr, "\nchoice: %ld %s\n", r->status, r->body);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(http_int(r, "cost"), cost);
    CU_ASSERT_EQUAL(http_int(r, "reserve_tokens"), tokens - cost);
    http_free(r);
    *spent = cost;
    return cost;
}

/* "{roller}" and "{opponent}" in an instruction template, the test's own substitution. */
static void fill_template(const char *tmpl, int roller, char *out, size_t len)
{
    static const char *const titles[2] = {"Allied", "Axis"}; /* "the Allied player" (book) */
    size_t o = 0;
    for (const char *p = tmpl; *p && o + 1 < len;) {
        const char *word = NULL;
        if (strncmp(p, "{roller}", 8) == 0)
            word = titles[roller], p += 8;
        else if (strncmp(p, "{opponent}", 10) == 0)
            word = titles[1 - roller], p += 10;
        if (word)
            o += (size_t)snprintf(out + o, len - o, "%s", word);
        else
            out[o++] = *p++;
    }
    out[o < len ? o : len - 1] = '\0';
}

/*
 * The battle's whole ordered instruction list against RULES.md 4, worked out here: the side
 * that moves first, its infantry, armor, star, flag; then the other side's; then all grenades,
 * the first side's before the other's. Texts are the ruleset's templates.
 */
static void check_instructions(json_t *got, json_t *faces[2], int first, json_t *templates)
{
    static const char *const per_side[] = {"infantry", "armor", "star", "flag"};
    json_t *want = json_array();
    int order[2] = {first, 1 - first};
    for (int k = 0; k < 2; k++)
        for (size_t f = 0; f < 4; f++)
            for (size_t i = 0; i < json_array_size(faces[order[k]]); i++)
                if (strcmp(json_string_value(json_array_get(faces[order[k]], i)), per_side[f]) == 0)
                    json_array_append_new(want, json_pack("{s:s, s:s}", "roller", SIDES[order[k]],
                                                          "face", per_side[f]));
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < json_array_size(faces[order[k]]); i++)
            if (strcmp(json_string_value(json_array_get(faces[order[k]], i)), "grenade") == 0)
                json_array_append_new(
                    want, json_pack("{s:s, s:s}", "roller", SIDES[order[k]], "face", "grenade"));
    CU_ASSERT_EQUAL(json_array_size(got), json_array_size(want));
    size_t i;
    json_t *w;
    json_array_foreach(want, i, w)
    {
        json_t *g = json_array_get(got, i);
        const char *roller = json_string_value(json_object_get(w, "roller"));
        const char *face = json_string_value(json_object_get(w, "face"));
        char text[1024];
        fill_template(json_string_value(json_object_get(templates, face)),
                      strcmp(roller, "axis") == 0, text, sizeof text);
        bool same = g && json_is_string(json_object_get(g, "roller")) &&
                    strcmp(json_string_value(json_object_get(g, "roller")), roller) == 0 &&
                    json_is_string(json_object_get(g, "face")) &&
                    strcmp(json_string_value(json_object_get(g, "face")), face) == 0 &&
                    json_is_string(json_object_get(g, "text")) &&
                    strcmp(json_string_value(json_object_get(g, "text")), text) == 0;
        if (!same) {
            char *gs = g ? json_dumps(g, JSON_COMPACT) : NULL;
            fprintf(stderr, "\ninstruction %zu: expected %s %s \"%s\", got %s\n", i, roller, face,
                    text, gs ? gs : "nothing");
            free(gs);
        }
        CU_ASSERT_TRUE(same);
    }
    json_decref(want);
}

static json_t *ruleset_doc(const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/v1/rulesets/%s", id);
    struct http_resp *r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    json_t *j = json_incref(r->json);
    http_free(r);
    return j;
}

static void play(const char *ruleset)
{
    json_t *doc = ruleset_doc(ruleset);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    bool what_if = json_object_get(doc, "what_if") != NULL;
    bool reserve = json_object_get(doc, "reserve") != NULL;
    json_t *ve = json_object_get(doc, "victory_events");
    bool simplified = json_is_true(json_object_get(json_object_get(ve, "dice"), "previous_medals"));
    json_t *scen = json_object_get(doc, "scenarios");
    struct model m = {0};
    char body[512];
    /* CB1 rulesets start with their own tokens; the others are given some. */
    if (scen) {
        json_t *t = json_object_get(doc, "reserve_tokens");
        for (int s = 0; s < 2; s++)
            m.tokens[s] = (int)json_integer_value(json_object_get(t, SIDES[s]));
        snprintf(body, sizeof body,
                 "{\"name\":\"%s campaign\",\"ruleset\":\"%s\",\"players\":{\"allies\":\"Ann\","
                 "\"axis\":\"Bob\"}}",
                 ruleset, ruleset);
    } else {
        m.tokens[0] = reserve ? 3 : 0;
        m.tokens[1] = reserve ? 2 : 0;
        snprintf(body, sizeof body,
                 "{\"name\":\"%s campaign\",\"ruleset\":\"%s\",\"what_if\":%s,\"dice\":\"either\","
                 "\"reserve_tokens\":{\"allies\":%d,\"axis\":%d}}",
                 ruleset, ruleset, what_if ? "true" : "false", m.tokens[0], m.tokens[1]);
    }
    struct camp c;
    if (!camp_create(&api_daemon, body, &c)) {
        json_decref(doc);
        return;
    }
    check_standing(&c, &m, "start");
    if (what_if) {
        for (int s = 0; s < 2; s++) {
            struct http_resp *r = roll(&c, s, "/what-if", &m);
            const char *ev = http_str(r, "event.id");
            snprintf(m.events[s], sizeof m.events[s], "%s", ev);
            bool already = s == 1 && strcmp(m.events[0], ev) == 0;
            apply_event(ev, s, already, 0, m.tokens);
            CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "faces")), 1);
            http_free(r);
        }
        check_standing(&c, &m, "after What-if");
    }
    const int winners[5] = {0, 1, 0, 0, 1};
    const char *scenario = NULL;
    int cur_scen = -1;
    json_t *list = json_object_get(scen, "list"), *branches = json_object_get(scen, "branches");
    for (int n = 1; n <= 5; n++) {
        int first = n % 2, cards[2] = {4 + n % 2, 5 - n % 2}, medals_to_win = 6;
        if (scen) {
            scenario = n == 1 ? json_string_value(json_object_get(scen, "start")) : scenario;
            if (!scenario || strcmp(scenario, "END") == 0)
                break;
            for (size_t i = 0; i < json_array_size(list); i++)
                if (strcmp(json_string_value(json_object_get(json_array_get(list, i), "name")),
                           scenario) == 0)
                    cur_scen = (int)i;
            json_t *def = json_array_get(list, (size_t)cur_scen);
            first = strcmp(json_string_value(json_object_get(def, "first_player")), "axis") == 0;
            for (int s = 0; s < 2; s++) {
                cards[s] = (int)json_integer_value(
                    json_object_get(json_object_get(def, "cards"), SIDES[s]));
                m.tokens[s] += (int)json_integer_value(
                    json_object_get(json_object_get(def, "reserve_tokens_added"), SIDES[s]));
            }
            medals_to_win = (int)json_integer_value(json_object_get(def, "medals_to_win"));
            snprintf(body, sizeof body, "{}");
        } else {
            snprintf(body, sizeof body,
                     "{\"scenario\":\"Battle %d\",\"first_player\":\"%s\",\"cards\":{\"allies\":"
                     "%d,\"axis\":%d},\"medals_to_win\":%d}",
                     n, SIDES[first], cards[0], cards[1], medals_to_win);
        }
        struct http_resp *r = camp_post(&api_daemon, &c, ORGANIZER, "/battles", body);
        CU_ASSERT_EQUAL_FATAL(r->status, 201);
        CU_ASSERT_EQUAL(http_int(r, "number"), n);
        if (scenario) {
            CU_ASSERT_STRING_EQUAL(http_str(r, "scenario"), scenario);
        }
        http_free(r);
        char suffix[64];
        /* Victory events: 2 + battles won (simplified: medals last battle + battles won). */
        int dice[2] = {0, 0}, stars[2] = {0, 0};
        json_t *ve_faces[2] = {json_array(), json_array()};
        for (int s = 0; s < 2 && n >= 2; s++) {
            dice[s] = simplified ? m.last_medals[s] + m.won[s] : 2 + m.won[s];
            snprintf(suffix, sizeof suffix, "/battles/%d/victory-events", n);
            if (dice[s] == 0) {
                r = camp_post(&api_daemon, &c, s == 0 ? ALLIES : AXIS, suffix, "{}");
                assert_problem(r, 409, "already-done");
                http_free(r);
                continue;
            }
            r = roll(&c, s, suffix, &m);
            CU_ASSERT_EQUAL(http_int(r, "dice"), dice[s]);
            json_t *faces = http_json_at(r, "faces");
            CU_ASSERT_EQUAL(json_array_size(faces), (size_t)dice[s]);
            for (size_t k = 0; k < json_array_size(faces); k++)
                stars[s] += strcmp(json_string_value(json_array_get(faces, k)), "star") == 0;
            json_array_extend(ve_faces[s], faces);
            http_free(r);
        }
        snprintf(suffix, sizeof suffix, "/battles/%d", n);
        r = camp_get(&api_daemon, &c, suffix);
        CU_ASSERT_EQUAL(r->status, 200);
        if (n >= 2 && ve) {
            CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "victory_events.instructions")),
                            (size_t)(dice[0] + dice[1]));
            check_instructions(http_json_at(r, "victory_events.instructions"), ve_faces, first,
                               json_object_get(ve, "instructions"));
            for (int s = 0; s < 2; s++) {
                char p[64];
                int want = cards[s] - stars[1 - s];
                snprintf(p, sizeof p, "starting_hand.%s", SIDES[s]);
                CU_ASSERT_EQUAL(http_int(r, p), want < 1 ? 1 : want);
            }
        }
        CU_ASSERT_STRING_EQUAL(http_str(r, "phase"), reserve ? "reserves" : "ready");
        http_free(r);
        json_decref(ve_faces[0]);
        json_decref(ve_faces[1]);
        int undeployed[2] = {0, 0};
        for (int s = 0; s < 2 && reserve; s++) {
            snprintf(suffix, sizeof suffix, "/battles/%d/reserve-roll", n);
            r = roll(&c, s, suffix, &m);
            CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "faces")), 2);
            int spent = 0;
            choose(&c, s, n, http_json_at(r, "options"), m.tokens[s], &spent);
            m.tokens[s] -= spent;
            /* A side that paid for a unit (so called one up) could not place it, every other
             * battle. */
            undeployed[s] = n % 2 && spent > 0 ? 1 : 0;
            http_free(r);
        }
        int w = winners[n - 1];
        int medals[2];
        medals[w] = medals_to_win;
        medals[1 - w] = n % 4;
        snprintf(body, sizeof body,
                 "{\"winner\":\"%s\",\"medals\":{\"allies\":%d,\"axis\":%d},"
                 "\"undeployed_reserves\":{\"allies\":%d,\"axis\":%d}}",
                 SIDES[w], medals[0], medals[1], undeployed[0], undeployed[1]);
        snprintf(suffix, sizeof suffix, "/battles/%d/result", n);
        r = camp_post(&api_daemon, &c, ORGANIZER, suffix, body);
        CU_ASSERT_EQUAL(r->status, 200);
        http_free(r);
        m.won[w]++;
        for (int s = 0; s < 2; s++) {
            m.medals[s] += medals[s];
            m.last_medals[s] = medals[s];
        }
        m.tokens[w] += undeployed[w]; /* only the winner gets its undeployed reserves back */
        for (int s = 0; s < 2 && what_if; s++)
            apply_event(m.events[s], s, s == 1 && strcmp(m.events[0], m.events[1]) == 0, n,
                        m.tokens);
        char where[64];
        snprintf(where, sizeof where, "%s after battle %d", ruleset, n);
        check_standing(&c, &m, where);
        if (scen) {
            json_t *b = json_object_get(branches, scenario);
            scenario = json_string_value(json_object_get(b, SIDES[w]));
        }
    }
    if (scen) {
        /* The list has ended: no more battles. */
        struct http_resp *r = camp_post(&api_daemon, &c, ORGANIZER, "/battles", "{}");
        assert_problem(r, 409, "already-done");
        http_free(r);
    }
    struct http_resp *r = camp_post(&api_daemon, &c, ORGANIZER, "/finish", NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    char hex[80];
    snprintf(hex, sizeof hex, "%s", http_str(r, "server_seed"));
    uint8_t seed[32], h[32];
    size_t len = 0;
    CU_ASSERT_EQUAL(sodium_hex2bin(seed, 32, hex, strlen(hex), NULL, &len, NULL), 0);
    CU_ASSERT_EQUAL(len, 32);
    crypto_hash_sha256(h, seed, 32);
    char hh[65];
    sodium_bin2hex(hh, sizeof hh, h, 32);
    CU_ASSERT_STRING_EQUAL(hh, c.commitment);
    /* RULES.md 2: more battles won, then more medals; RULES.md 9, Campaign Book 1: more victory
     * points (medals + the objective track's bonus, here for no objective medal), then more
     * battles won. */
    int want_winner = m.won[0] != m.won[1]         ? (m.won[1] > m.won[0])
                      : m.medals[0] != m.medals[1] ? (m.medals[1] > m.medals[0])
                                                   : -1;
    if (strncmp(ruleset, "cb1-", 4) == 0) {
        json_t *track = json_object_get(json_object_get(doc, "outcome"), "objective_track");
        int vp[2];
        for (int s = 0; s < 2; s++)
            vp[s] = m.medals[s] +
                    (int)json_integer_value(json_array_get(json_object_get(track, SIDES[s]), 0));
        want_winner = vp[0] != vp[1]         ? (vp[1] > vp[0])
                      : m.won[0] != m.won[1] ? (m.won[1] > m.won[0])
                                             : -1;
    }
    if (want_winner >= 0) {
        CU_ASSERT_STRING_EQUAL(http_str(r, "winner"), SIDES[want_winner]);
    } else {
        CU_ASSERT_TRUE(json_is_null(http_json_at(r, "winner")));
    }
    http_free(r);
    /* Every roll, numbered 1..N, re-derived from the revealed seed. */
    r = camp_get(&api_daemon, &c, "/rolls");
    CU_ASSERT_EQUAL(json_array_size(r->json), (size_t)m.rolls);
    size_t i;
    json_t *ro;
    int mismatches = 0;
    json_array_foreach(r->json, i, ro)
    {
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(ro, "n")), (json_int_t)i + 1);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(ro, "source")), "server");
        json_t *faces = json_object_get(ro, "faces");
        const char *want[128];
        derive_faces(seed, c.id, (long)i + 1, json_string_value(json_object_get(ro, "client_seed")),
                     (int)json_array_size(faces), want);
        for (size_t k = 0; k < json_array_size(faces); k++)
            mismatches += strcmp(json_string_value(json_array_get(faces, k)), want[k]) != 0;
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "status"), "finished");
    CU_ASSERT_STRING_EQUAL(http_str(r, "server_seed"), hex);
    http_free(r);
    json_decref(doc);
}

#define RULESET_TEST(name, id)                                                                     \
    static void name(void)                                                                         \
    {                                                                                              \
        play(id);                                                                                  \
    }
RULESET_TEST(t_standard, "standard")
RULESET_TEST(t_island_hoppers, "island-hoppers")
RULESET_TEST(t_bicycle_blitzkrieg, "bicycle-blitzkrieg")
RULESET_TEST(t_fall_of_poland, "fall-of-poland")
RULESET_TEST(t_break_through_normandy, "break-through-normandy")
RULESET_TEST(t_simplified, "simplified")
RULESET_TEST(t_cb1_flanking_caen, "cb1-flanking-caen")
RULESET_TEST(t_cb1_the_breakout, "cb1-the-breakout")
RULESET_TEST(t_cb1_taking_caen, "cb1-taking-caen")
RULESET_TEST(t_cb1_early_falaise, "cb1-early-falaise")
RULESET_TEST(t_cb1_falaise, "cb1-falaise")

void register_flow_tests(void)
{
    CU_pSuite s = CU_add_suite("full campaigns", NULL, NULL);
    CU_add_test(s, "standard", t_standard);
    CU_add_test(s, "island-hoppers (What-if)", t_island_hoppers);
    CU_add_test(s, "bicycle-blitzkrieg (What-if)", t_bicycle_blitzkrieg);
    CU_add_test(s, "fall-of-poland (What-if)", t_fall_of_poland);
    CU_add_test(s, "break-through-normandy (What-if)", t_break_through_normandy);
    CU_add_test(s, "simplified", t_simplified);
    CU_add_test(s, "cb1-flanking-caen (scenario list)", t_cb1_flanking_caen);
    CU_add_test(s, "cb1-the-breakout (scenario list)", t_cb1_the_breakout);
    CU_add_test(s, "cb1-taking-caen (scenario list)", t_cb1_taking_caen);
    CU_add_test(s, "cb1-early-falaise (scenario list)", t_cb1_early_falaise);
    CU_add_test(s, "cb1-falaise (scenario list)", t_cb1_falaise);
}

/* The README's walkthrough (scripts/walkthrough.sh): curl alone, every ruleset, verified. */
static void test_walkthrough(void)
{
    const char *const *ids = tk_rulesets;
    for (int i = 0; i < tk_nrulesets; i++) {
        char cmd[1024], log[512], name[64];
        snprintf(name, sizeof name, "walkthrough-%s.log", ids[i]);
        tk_out_path(name, log, sizeof log);
        snprintf(cmd, sizeof cmd, "'%s/scripts/walkthrough.sh' '%s' '%s' 2>'%s'",
                 tk_env("M44_ROOT"), api_daemon.base, ids[i], log);
        FILE *p = popen(cmd, "r");
        char id[64] = "";
        if (!fgets(id, sizeof id, p))
            id[0] = '\0';
        int st = pclose(p);
        id[strcspn(id, "\n")] = '\0';
        if (st != 0)
            fprintf(stderr, "\nwalkthrough %s failed: see %s\n", ids[i], log);
        CU_ASSERT_EQUAL(st, 0);
        CU_ASSERT_EQUAL(strlen(id), 36);
        snprintf(cmd, sizeof cmd, "'%s/m44' verify /tmp/m44-walkthrough-%s.json >/dev/null",
                 tk_env("M44_TEST_BIN"), id);
        CU_ASSERT_EQUAL(system(cmd), 0);
        snprintf(cmd, sizeof cmd, "/tmp/m44-walkthrough-%s.json", id);
        unlink(cmd);
    }
}

void register_walkthrough_tests(void)
{
    CU_pSuite s = CU_add_suite("README walkthrough", NULL, NULL);
    CU_add_test(s, "scripts/walkthrough.sh, every ruleset, m44 verify", test_walkthrough);
}
