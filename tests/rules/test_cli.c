/* bin/m44: explain, events, rulesets, verify; bad arguments exit 2. */
#include "tests/common/testkit.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs bin/m44 with `args` (shell words); returns the exit status, output in *out. */
static int m44(const char *args, char **out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s/m44' %s 2>&1", tk_env("M44_TEST_BIN"), args);
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                break;
            buf = nb;
        }
    }
    buf[n] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_rulesets(void)
{
    char *out;
    CU_ASSERT_EQUAL(m44("rulesets --json", &out), 0);
    json_t *j = json_loads(out, 0, NULL);
    CU_ASSERT_EQUAL(json_array_size(j), 11 + 2); /* the rulesets, then the grand rulesets */
    bool found = false, grand = false;
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e)
    {
        CU_ASSERT_EQUAL(json_object_size(e), 3);
        const char *id = json_string_value(json_object_get(e, "id"));
        if (strcmp(id, "fall-of-poland") == 0) {
            found = true;
            CU_ASSERT_TRUE(json_is_true(json_object_get(e, "what_if")));
        }
        if (strcmp(id, "cb1-normandy-grand") == 0) {
            /* Campaign Book 1's five Normandy campaigns, in book order. */
            const char *book[] = {"cb1-flanking-caen", "cb1-the-breakout", "cb1-taking-caen",
                                  "cb1-early-falaise", "cb1-falaise"};
            json_t *c = json_object_get(e, "campaigns");
            grand = json_array_size(c) == 5;
            for (size_t k = 0; grand && k < 5; k++)
                grand = strcmp(json_string_value(json_array_get(c, k)), book[k]) == 0;
        }
    }
    CU_ASSERT_TRUE(found);
    CU_ASSERT_TRUE(grand);
    json_decref(j);
    free(out);
    /* A broken grand ruleset in --rulesets-dir is named, with its path and reason. */
    char dir[] = "/tmp/m44-cli-grand.XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    char file[128], args[256];
    snprintf(file, sizeof file, "%s/ours.json", dir);
    FILE *f = fopen(file, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("{\"id\":\"ours\",\"name\":\"Ours\",\"description\":\"x\",\"campaigns\":[{\"ruleset\":"
          "\"nope\",\"name\":\"A\"}],\"grades\":[{\"name\":\"Minor\",\"min_ratio\":0,"
          "\"points\":1}]}",
          f);
    fclose(f);
    snprintf(args, sizeof args, "rulesets --rulesets-dir %s", dir);
    CU_ASSERT_EQUAL(m44(args, &out), 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(out, "ours.json: $.campaigns[0].ruleset: \"nope\" is not a ruleset"));
    free(out);
    unlink(file);
    rmdir(dir);
}

static void test_explain_json_is_the_api_shape(void)
{
    char *out;
    CU_ASSERT_EQUAL(
        m44("explain --ruleset standard --side allies --faces star,infantry --json", &out), 0);
    json_t *j = json_loads(out, 0, NULL);
    CU_ASSERT_EQUAL_FATAL(json_array_size(j), 2);
    json_t *o = json_array_get(j, 1);
    /* id, dice, cost, grants, costs (one per grant), text: nothing else */
    CU_ASSERT_EQUAL(json_object_size(o), 6);
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(o, "costs"), 0)), 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "id")), "star-infantry@0+1");
    CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(o, "dice"), 1)), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(o, "cost")), 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(o, "grants"), 0)),
                           "elite-infantry");
    CU_ASSERT(json_is_string(json_object_get(o, "text")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(j, 0), "id")),
                           "infantry@1");
    json_decref(j);
    free(out);
    CU_ASSERT_EQUAL(
        m44("explain --ruleset standard --side axis --faces armor,flag --tokens 0", &out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "armor@0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "armor (1 token, you have 0)"));
    free(out);
    /* RULES.md 9, cost per alternative. 001: "FLAG + STAR ... Choose one of the following
     * elements: German elite infantry unit ... or Air Power / Air Sortie token". */
    CU_ASSERT_EQUAL(
        m44("explain --ruleset fall-of-poland --side axis --faces flag,star --tokens 1", &out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "elite-infantry (1 token) | air-sortie (free)"));
    free(out);
}

static void test_events(void)
{
    char *out;
    CU_ASSERT_EQUAL(m44("events --ruleset standard --first axis --allies-faces grenade,star "
                        "--axis-faces infantry,star,star --cards 2,5 --commissar allies --json",
                        &out),
                    0);
    json_t *j = json_loads(out, 0, NULL);
    json_t *ins = json_object_get(j, "instructions");
    CU_ASSERT_EQUAL_FATAL(json_array_size(ins), 5);
    const char *order[5][2] = {{"axis", "infantry"},
                               {"axis", "star"},
                               {"axis", "star"},
                               {"allies", "star"},
                               {"allies", "grenade"}};
    for (size_t i = 0; i < 5; i++) {
        json_t *in = json_array_get(ins, i);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(in, "roller")), order[i][0]);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(in, "face")), order[i][1]);
    }
    json_t *hand = json_object_get(j, "starting_hand");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(hand, "allies")), 1);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(hand, "axis")), 4);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "notes")), 1);
    json_decref(j);
    free(out);
}

/* 001, Soviet Invasion: "The Soviet side gets to move first at the battle of Szack and they may
 * ignore the Commissar rule." The Allies set up to move first, the Axis hold the Commissar. */
static void test_events_szack(void)
{
    const char *args =
        "events --ruleset fall-of-poland --first allies --allies-faces star,infantry "
        "--axis-faces flag --cards 5,5 --commissar axis --effects soviet-invasion";
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "%s --scenario ' szack ' --json", args);
    CU_ASSERT_EQUAL(m44(cmd, &out), 0);
    json_t *j = json_loads(out, 0, NULL);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "first_player")), "axis");
    CU_ASSERT_TRUE(json_is_null(json_object_get(j, "commissar")));
    json_t *first = json_array_get(json_object_get(j, "instructions"), 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(first, "roller")), "axis");
    json_decref(j);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --scenario Szack", args);
    CU_ASSERT_EQUAL(m44(cmd, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "the Axis move first at Szack"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "lifts the Political Commissar rule"));
    free(out);
    /* Elsewhere the set-up stands. */
    snprintf(cmd, sizeof cmd, "%s --scenario Hel --json", args);
    CU_ASSERT_EQUAL(m44(cmd, &out), 0);
    j = json_loads(out, 0, NULL);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "first_player")), "allies");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "commissar")), "axis");
    json_decref(j);
    free(out);
}

/* 003: "OverThrough Map Combinations ... Sword + Juno 9 12 29 ... Gold + Omaha 10 12 28 ...
 * Utah + American Airborne 9 12 21" (Axis cards, Allies cards, medals); RULES.md 7: the three
 * British beaches 41, all six maps 78. */
static void test_maps(void)
{
    char *out;
    CU_ASSERT_EQUAL(m44("maps --json", &out), 0);
    json_t *j = json_loads(out, 0, NULL);
    CU_ASSERT_EQUAL(json_array_size(j), 8);
    static const struct {
        const char *maps;
        int medals, allies, axis;
    } want[] = {
        {"sword juno", 29, 12, 9},
        {"juno gold", 25, 12, 9},
        {"gold omaha", 28, 12, 10},
        {"omaha utah", 28, 12, 9},
        {"utah us-airborne", 21, 12, 9},
        {"sword juno gold", 41, 0, 0},
        {"sword juno gold omaha utah us-airborne", 78, 0, 0},
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        json_t *hit = NULL;
        for (size_t i = 0; i < json_array_size(j); i++) {
            json_t *c = json_array_get(j, i), *m = json_object_get(c, "maps");
            char names[128] = "";
            for (size_t k = 0; k < json_array_size(m); k++) {
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", k ? " " : "",
                         json_string_value(json_array_get(m, k)));
            }
            if (strcmp(names, want[w].maps) == 0)
                hit = c;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(hit, "medals_to_win")), want[w].medals);
        json_t *cards = json_object_get(hit, "cards");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(cards, "allies")), want[w].allies);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(cards, "axis")), want[w].axis);
    }
    json_decref(j);
    free(out);
    CU_ASSERT_EQUAL(m44("maps --ruleset cb1-falaise", &out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "OverThrough: Sword Beach + Juno Beach\n  29 medals to win; "
                                       "Commander-in-Chief command cards: Allies 12, Axis 9"));
    free(out);
}

static void test_bad_arguments(void)
{
    const char *bad[] = {
        "",
        "roll",
        "explain --ruleset standard --side allies",
        "explain --ruleset standard --side allies --faces star,tank",
        "explain --ruleset standard --side nobody --faces star,star",
        "explain --ruleset nope --side allies --faces star,star",
        "explain --ruleset standard --side allies --faces star,star --tokens -1",
        "explain --ruleset standard --side allies --faces star,star --bogus",
        "events --ruleset standard --first allies --allies-faces star --axis-faces flag",
        "events --ruleset standard --first allies --allies-faces star --axis-faces flag "
        "--cards 0,5",
        "events --ruleset standard --first nobody --allies-faces star --axis-faces flag "
        "--cards 5,5",
        "verify",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out;
        int st = m44(bad[i], &out);
        if (st != 2)
            fprintf(stderr, "\n\"m44 %s\" exited %d\n", bad[i], st);
        CU_ASSERT_EQUAL(st, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, "usage:"));
        free(out);
    }
}

/* ---- verify ---- */

#define SEED   "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define COMMIT "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"

/*
 * An export as GET .../export writes it: a standard campaign with dice "either", battle 1, and
 * the given rolls as its actions; a roll of battle 2 comes after battle 1's result (an Axis
 * win, so the Axis roll 2 + 1 victory event dice there, RULES.md 4).
 */
static char *export_file(const char *seeds, const char *rolls, const char *ruleset,
                         const char *status)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/m44-export-%d.json", (int)getpid());
    json_t *seeds_json = json_loads(seeds, 0, NULL), *rolls_json = json_loads(rolls, 0, NULL);
    if (!seeds_json || !rolls_json) { /* not JSON: the file is not either */
        FILE *f = fopen(path, "w");
        fprintf(f, "{\"seeds\":%s,\"rolls\":%s}", seeds, rolls);
        fclose(f);
        json_decref(seeds_json);
        json_decref(rolls_json);
        return path;
    }
    json_t *doc = json_pack(
        "{s:s, s:i, s:{s:s}, s:o, s:o, s:[{s:s, s:{s:s, s:s, s:b, s:s, s:{s:i, s:i}, s:{s:s, s:s}, "
        "s:n}}, {s:s, s:{s:i, s:s, s:s, s:{s:i, s:i}, s:i, s:n}}]}",
        "format", "m44d-campaign-export", "format_version", 1, "campaign", "id",
        "11111111-2222-3333-4444-555555555555", "seeds", seeds_json, "rolls", rolls_json, "actions",
        "action", "campaign_created", "detail", "name", "v", "ruleset", ruleset, "what_if", 0,
        "dice", "either", "reserve_tokens", "allies", 0, "axis", 0, "players", "allies", "", "axis",
        "", "scenarios", "action", "battle_created", "detail", "number", 1, "scenario", "A",
        "first_player", "allies", "cards", "allies", 5, "axis", 5, "medals_to_win", 6, "commissar");
    if (status)
        json_object_set_new(json_object_get(doc, "campaign"), "status", json_string(status));
    json_t *actions = json_object_get(doc, "actions"), *list = json_object_get(doc, "rolls");
    bool second = false;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *r = json_array_get(list, i);
        if (json_integer_value(json_object_get(r, "battle")) == 2 && !second) {
            second = true;
            json_array_append_new(actions, json_pack("{s:s, s:{s:i, s:s, s:{s:i, s:i}}}", "action",
                                                     "result", "detail", "battle", 1, "winner",
                                                     "axis", "medals", "allies", 2, "axis", 6));
            json_array_append_new(
                actions, json_pack("{s:s, s:{s:i, s:s, s:s, s:{s:i, s:i}, s:i, s:n}}", "action",
                                   "battle_created", "detail", "number", 2, "scenario", "B",
                                   "first_player", "allies", "cards", "allies", 5, "axis", 5,
                                   "medals_to_win", 6, "commissar"));
        }
        json_array_append_new(actions, json_pack("{s:s, s:O}", "action", "roll", "detail", r));
    }
    json_dump_file(doc, path, 0);
    json_decref(doc);
    return path;
}

/* The faces below come from tests/rules/vectors/dice_vectors.txt (openssl); a roll of fewer
 * dice is the start of the same stream (RULES.md 1.2). */
#define ROLL1                                                                                      \
    "{\"n\":1,\"side\":\"allies\",\"purpose\":\"reserve\",\"battle\":1,\"source\":\"server\","     \
    "\"client_seed\":\"\",\"seed_epoch\":1,\"faces\":[\"star\",\"flag\"]}"
#define ROLL2                                                                                      \
    "{\"n\":2,\"side\":\"axis\",\"purpose\":\"reserve\",\"battle\":1,\"source\":\"server\","       \
    "\"client_seed\":\"\",\"seed_epoch\":1,\"faces\":[\"infantry\",\"flag\"]}"
#define ROLL3_WITH(faces)                                                                          \
    "{\"n\":3,\"side\":\"axis\",\"purpose\":\"victory_events\",\"battle\":2,\"source\":"           \
    "\"server\",\"client_seed\":\"table talk\",\"seed_epoch\":1,\"faces\":[" faces "]}"
#define ROLL3 ROLL3_WITH("\"star\",\"infantry\",\"infantry\"")
#define TABLE3                                                                                     \
    "{\"n\":3,\"side\":\"axis\",\"purpose\":\"victory_events\",\"battle\":2,\"source\":\"table\"," \
    "\"client_seed\":null,\"seed_epoch\":null,\"faces\":[\"grenade\",\"grenade\",\"grenade\"]}"

static void test_verify(void)
{
    static const struct {
        const char *seeds, *rolls;
        int status;
        const char *must, *also, *ruleset, *state;
    } cases[] = {
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," ROLL3 "]", 0, "3 server roll(s) verified, 0 mismatch(es)"},
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," TABLE3 "]", 0,
         "roll 3 (axis, victory_events, table): grenade,grenade,grenade"},
        /* A face changed after the fact. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 ",{\"n\":2,\"side\":\"axis\",\"purpose\":\"reserve\",\"source\":\"server\","
         "\"client_seed\":\"\",\"seed_epoch\":1,\"faces\":[\"star\",\"flag\"]}]",
         1, "roll 2 (axis, reserve, server): star,flag MISMATCH: the seed gives infantry,flag"},
        /* A roll missing from the log. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL3 "]", 1, "expected roll number 2"},
        /* A seed that is not the one committed to. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\".replace}]", "[]",
         2, "line 1"},
        {"[{\"epoch\":1,\"commitment\":\"00" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "]", 1, "MISMATCH: SHA-256(server_seed)"},
        /* Not revealed yet: nothing wrong, but not verified either (exit 3). */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":null}]", "[" ROLL1 "]", 3,
         "NOT VERIFIED: 1 server roll(s) cannot be checked until their seed is revealed",
         "seed 1: not revealed yet"},
        /* A finished campaign without its seed (brought in from a backup that lacked it):
         * never to be revealed, and not said to be waiting for it. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":null}]", "[" ROLL1 "]", 3,
         "NOT VERIFIED: 1 server roll(s) can never be checked: their campaign is finished",
         "seed 1: not in this record, though the campaign is finished", NULL, "finished"},
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," ROLL3 "]", 0, "VERIFIED: every server roll matches"},
        {"{}", "[]", 2, "not a campaign export"},
        /* Every die the seed gave, but more than the Axis roll there (RULES.md 4: 2 + 1 won). */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2
         "," ROLL3_WITH("\"star\",\"infantry\",\"infantry\",\"infantry\",\"star\"") "]",
         1, "this victory_events roll is 3 dice, not 5"},
        /* The start of what the seed gave, a die left out: each face matches, the count does
         * not. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," ROLL3_WITH("\"star\",\"infantry\"") "]", 1,
         "this victory_events roll is 3 dice, not 2"},
        /* The Allies' reserve roll made again (entered from the table this time): each roll on
         * its own is fine, the record is not. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2
         ",{\"n\":3,\"side\":\"allies\",\"purpose\":\"reserve\",\"battle\":1,\"source\":"
         "\"table\",\"client_seed\":null,\"seed_epoch\":null,\"faces\":[\"star\",\"star\"]}]",
         1, "made this roll for battle 1 already: a roll is never made twice",
         "FAILED: the record is not one m44d would have made (the \"record:\" line above)"},
        /* A seed that came to the exporting server in an import: consistent, not witnessed. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED
         "\",\"origin\":\"import\"}]",
         "[" ROLL1 "," ROLL2 "," ROLL3 "]", 3, "NOT VERIFIED: 3 server roll(s) were made before"},
        /* A house ruleset this m44 does not have: every roll is checked, the record cannot be. */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," ROLL3 "]", 3,
         "record: CANNOT CHECK: This campaign's rules (my-house-rules) are not loaded",
         "NOT VERIFIED: the ruleset of this campaign is not known to this m44", "my-house-rules"},
        /* Only dice from the table: nothing a server rolled, so nothing to verify (not "verified").
         */
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[{\"n\":1,\"side\":\"allies\",\"purpose\":\"reserve\",\"battle\":1,\"source\":"
         "\"table\",\"client_seed\":null,\"seed_epoch\":null,\"faces\":[\"star\",\"star\"]}]",
         0,
         "NOTHING TO VERIFY: every roll (1) was entered from the table; no server roll to check"},
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]", "[]", 0,
         "NOTHING TO VERIFY: no dice were rolled"},
        /* A seed not what its commitment says: said as such, not as a roll. */
        {"[{\"epoch\":1,\"commitment\":\"00" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "]", 1,
         "FAILED: 2 mismatch(es) in the seeds and rolls (the MISMATCH lines above)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = export_file(cases[i].seeds, cases[i].rolls,
                                 cases[i].ruleset ? cases[i].ruleset : "standard", cases[i].state);
        char args[512], *out;
        snprintf(args, sizeof args, "verify '%s'", path);
        int st = m44(args, &out);
        bool also = !cases[i].also || strstr(out, cases[i].also);
        if (st != cases[i].status || !strstr(out, cases[i].must) || !also)
            fprintf(stderr, "\nverify case %zu: exit %d\n%s\n", i, st, out);
        CU_ASSERT_EQUAL(st, cases[i].status);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].must));
        CU_ASSERT_TRUE(also);
        free(out);
        unlink(path);
    }
}

void register_cli_tests(void)
{
    CU_pSuite s = CU_add_suite("bin/m44", NULL, NULL);
    CU_add_test(s, "rulesets --json", test_rulesets);
    CU_add_test(s, "explain --json is the API option shape", test_explain_json_is_the_api_shape);
    CU_add_test(s, "events", test_events);
    CU_add_test(s, "events with Soviet Invasion at Szack", test_events_szack);
    CU_add_test(s, "maps: the D-Day Landings tables", test_maps);
    CU_add_test(s, "bad arguments: usage, exit 2", test_bad_arguments);
    CU_add_test(s, "verify an export", test_verify);
}
