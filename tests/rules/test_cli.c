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
    CU_ASSERT_EQUAL(json_array_size(j), 11);
    bool found = false;
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e)
    {
        CU_ASSERT_EQUAL(json_object_size(e), 3);
        if (strcmp(json_string_value(json_object_get(e, "id")), "fall-of-poland") == 0) {
            found = true;
            CU_ASSERT_TRUE(json_is_true(json_object_get(e, "what_if")));
        }
    }
    CU_ASSERT_TRUE(found);
    json_decref(j);
    free(out);
}

static void test_explain_json_is_the_api_shape(void)
{
    char *out;
    CU_ASSERT_EQUAL(
        m44("explain --ruleset standard --side allies --faces star,infantry --json", &out), 0);
    json_t *j = json_loads(out, 0, NULL);
    CU_ASSERT_EQUAL_FATAL(json_array_size(j), 2);
    json_t *o = json_array_get(j, 1);
    CU_ASSERT_EQUAL(json_object_size(o), 5); /* id, dice, cost, grants, text: nothing else */
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
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "needs 1 token, you have 0"));
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

static char *export_file(const char *seeds, const char *rolls)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/m44-export-%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    fprintf(f,
            "{\"format\":\"m44d-campaign-export\",\"campaign\":{\"id\":"
            "\"11111111-2222-3333-4444-555555555555\"},\"seeds\":%s,\"rolls\":%s}",
            seeds, rolls);
    fclose(f);
    return path;
}

/* The faces below come from tests/rules/vectors/dice_vectors.txt (openssl). */
#define ROLL1                                                                                      \
    "{\"n\":1,\"side\":\"allies\",\"purpose\":\"reserve\",\"source\":\"server\",\"client_seed\":"  \
    "\"\",\"seed_epoch\":1,\"faces\":[\"star\",\"flag\"]}"
#define ROLL2                                                                                      \
    "{\"n\":2,\"side\":\"axis\",\"purpose\":\"reserve\",\"source\":\"server\",\"client_seed\":"    \
    "\"\",\"seed_epoch\":1,\"faces\":[\"infantry\",\"flag\"]}"
#define ROLL3                                                                                      \
    "{\"n\":3,\"side\":\"axis\",\"purpose\":\"victory_events\",\"source\":\"server\",\"client_"    \
    "seed\":\"table "                                                                              \
    "talk\",\"seed_epoch\":1,\"faces\":[\"star\",\"infantry\",\"infantry\",\"infantry\",\"star\"]" \
    "}"
#define TABLE3                                                                                     \
    "{\"n\":3,\"side\":\"axis\",\"purpose\":\"reserve\",\"source\":\"table\",\"client_seed\":"     \
    "null,\"seed_epoch\":null,\"faces\":[\"grenade\",\"grenade\"]}"

static void test_verify(void)
{
    static const struct {
        const char *seeds, *rolls;
        int status;
        const char *must;
    } cases[] = {
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," ROLL3 "]", 0, "3 server roll(s) verified, 0 mismatch(es)"},
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," TABLE3 "]", 0, "roll 3 (axis, reserve, table): grenade,grenade"},
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
         "NOT VERIFIED: 1 server roll(s) cannot be checked"},
        {"[{\"epoch\":1,\"commitment\":\"" COMMIT "\",\"server_seed\":\"" SEED "\"}]",
         "[" ROLL1 "," ROLL2 "," ROLL3 "]", 0, "VERIFIED: every server roll matches"},
        {"{}", "[]", 2, "not a campaign export"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = export_file(cases[i].seeds, cases[i].rolls);
        char args[512], *out;
        snprintf(args, sizeof args, "verify '%s'", path);
        int st = m44(args, &out);
        if (st != cases[i].status || !strstr(out, cases[i].must))
            fprintf(stderr, "\nverify case %zu: exit %d\n%s\n", i, st, out);
        CU_ASSERT_EQUAL(st, cases[i].status);
        CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].must));
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
    CU_add_test(s, "bad arguments: usage, exit 2", test_bad_arguments);
    CU_add_test(s, "verify an export", test_verify);
}
