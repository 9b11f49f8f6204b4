/* Export, bin/m44 verify, and import (the backup): round trip, refusals, unfinished. */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct daemon other; /* a second m44d on its own database */
static char *other_db;

static int suite_init(void)
{
    return other_daemon_start(&other, &other_db, "api_import");
}

static int suite_clean(void)
{
    return other_daemon_stop(&other, &other_db);
}

static void must(struct http_resp *r, long status)
{
    if (r->status != status)
        fprintf(stderr, "\nexpected %ld: %ld %s\n", status, r->status, r->body);
    CU_ASSERT_EQUAL(r->status, status);
    http_free(r);
}

/* Two battles with dice from both sources; finished unless `finish` is false. */
static void play(struct camp *c, bool finish)
{
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"export me\",\"ruleset\":\"fall-of-poland\","
                                "\"what_if\":true,\"dice\":\"either\",\"reserve_tokens\":"
                                "{\"allies\":2,\"axis\":2},\"players\":{\"allies\":\"Ann\","
                                "\"axis\":\"Bob\"}}",
                                c));
    must(camp_post(&api_daemon, c, ALLIES, "/what-if", "{\"faces\":[\"grenade\"]}"), 201);
    must(camp_post(&api_daemon, c, AXIS, "/what-if", "{\"faces\":[\"armor\"]}"), 201);
    for (int n = 1; n <= 2; n++) {
        char p[64];
        must(camp_post(&api_daemon, c, ORGANIZER, "/battles",
                       n == 1 ? "{\"scenario\":\"Mokra\",\"first_player\":\"axis\",\"cards\":"
                                "{\"allies\":4,\"axis\":5},\"medals_to_win\":5}"
                              : "{\"scenario\":\"Hel\",\"first_player\":\"allies\",\"cards\":"
                                "{\"allies\":5,\"axis\":5},\"medals_to_win\":5}"),
             201);
        if (n == 2) {
            snprintf(p, sizeof p, "/battles/%d/victory-events", n);
            must(camp_post(&api_daemon, c, ALLIES, p, "{\"client_seed\":\"ve\"}"), 201);
            must(camp_post(&api_daemon, c, AXIS, p, "{\"faces\":[\"star\",\"star\",\"grenade\"]}"),
                 201);
        }
        snprintf(p, sizeof p, "/battles/%d/reserve-roll", n);
        must(camp_post(&api_daemon, c, ALLIES, p, "{\"faces\":[\"star\",\"infantry\"]}"), 201);
        must(camp_post(&api_daemon, c, AXIS, p, "{\"client_seed\":\"rr\"}"), 201);
        snprintf(p, sizeof p, "/battles/%d/reserve-choice", n);
        must(camp_post(&api_daemon, c, ALLIES, p,
                       "{\"options\":[{\"id\":\"star-infantry-dragoons@0+1\"}]}"),
             200);
        must(camp_post(&api_daemon, c, AXIS, p, "{\"options\":[]}"), 200);
        snprintf(p, sizeof p, "/battles/%d/result", n);
        must(camp_post(&api_daemon, c, ORGANIZER, p,
                       "{\"winner\":\"axis\",\"medals\":{\"allies\":2,\"axis\":5},"
                       "\"undeployed_reserves\":{\"allies\":1,\"axis\":0},"
                       "\"objective_medals\":{\"allies\":1,\"axis\":2}}"),
             200);
    }
    if (finish)
        must(camp_post(&api_daemon, c, ORGANIZER, "/finish", NULL), 200);
}

static char *export_of(const struct daemon *d, const struct camp *c, const char *file)
{
    struct http_resp *r = camp_get(d, c, "/export");
    CU_ASSERT_EQUAL(r->status, 200);
    char disp[200];
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "Content-Disposition", disp, sizeof disp));
    static char path[512];
    tk_out_path(file, path, sizeof path);
    FILE *f = fopen(path, "w");
    fwrite(r->body, 1, r->len, f);
    fclose(f);
    char *body = strdup(r->body);
    http_free(r);
    return body;
}

static int verify(const char *file, char **out)
{
    char path[512], cmd[1200];
    tk_out_path(file, path, sizeof path);
    snprintf(cmd, sizeof cmd, "'%s/m44' verify '%s' 2>&1", tk_env("M44_TEST_BIN"), path);
    FILE *p = popen(cmd, "r");
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_round_trip(void)
{
    struct camp c;
    play(&c, true);
    char *doc = export_of(&api_daemon, &c, "export-finished.json");
    char *out;
    CU_ASSERT_EQUAL(verify("export-finished.json", &out), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "0 mismatch(es), 0 not verifiable"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "VERIFIED: every server roll matches"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "entered from the table"));
    /* Restored on another server: same standing, same rolls, new keys. */
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, doc, NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp copy = c;
    snprintf(copy.key[ORGANIZER], sizeof copy.key[0], "%s", http_str(r, "organizer_key"));
    CU_ASSERT_STRING_EQUAL(http_str(r, "id"), c.id);
    CU_ASSERT_STRING_NOT_EQUAL(http_str(r, "organizer_key"), c.key[ORGANIZER]);
    CU_ASSERT_STRING_EQUAL(http_str(r, "status"), "finished");
    http_free(r);
    struct http_resp *a = camp_get(&api_daemon, &c, ""), *b = camp_get(&other, &c, "");
    const char *same[] = {"name",        "ruleset",         "status",    "sides",
                          "battles",     "effects",         "outcome",   "what_if_rolls",
                          "server_seed", "seed_commitment", "seed_epoch"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        bool eq = json_equal(http_json_at(a, same[i]), http_json_at(b, same[i]));
        if (!eq)
            fprintf(stderr, "\nimport differs in %s\n", same[i]);
        CU_ASSERT_TRUE(eq);
    }
    for (size_t i = 0; i < json_array_size(http_json_at(a, "seeds")); i++) {
        json_t *x = json_array_get(http_json_at(a, "seeds"), i);
        json_t *y = json_array_get(http_json_at(b, "seeds"), i);
        CU_ASSERT_TRUE(
            json_equal(json_object_get(x, "commitment"), json_object_get(y, "commitment")));
        CU_ASSERT_TRUE(
            json_equal(json_object_get(x, "server_seed"), json_object_get(y, "server_seed")));
    }
    http_free(a);
    http_free(b);
    a = camp_get(&api_daemon, &c, "/rolls");
    b = camp_get(&other, &c, "/rolls");
    CU_ASSERT_EQUAL(json_array_size(a->json), json_array_size(b->json));
    for (size_t i = 0; i < json_array_size(a->json); i++) {
        json_t *x = json_array_get(a->json, i), *y = json_array_get(b->json, i);
        const char *keys[] = {"n",      "side",        "purpose",    "battle",
                              "source", "client_seed", "seed_epoch", "faces"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            CU_ASSERT_TRUE(json_equal(json_object_get(x, keys[k]), json_object_get(y, keys[k])));
    }
    http_free(a);
    http_free(b);
    /* The restored copy is consistent, but its rolls were not witnessed there: its seeds came
     * in the document, so m44 verify says "not verified here" and names the reason. */
    free(export_of(&other, &c, "export-restored.json"));
    CU_ASSERT_EQUAL(verify("export-restored.json", &out), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "came with an import"));
    CU_ASSERT_PTR_NULL(strstr(out, "MISMATCH"));
    /* Importing it again there: the id is taken. */
    r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, doc, NULL);
    assert_problem(r, 409, "campaign-exists");
    http_free(r);
    free(doc);
}

/* A restored campaign keeps its times: each row takes the time of the action that wrote it
 * (here times written into the document, an hour apart, long before the import). */
static const char *at_of(json_t *actions, const char *action, const char *key, long value)
{
    for (size_t i = 0; i < json_array_size(actions); i++) {
        json_t *a = json_array_get(actions, i);
        json_t *d = json_object_get(a, "detail");
        if (strcmp(json_string_value(json_object_get(a, "action")), action) == 0 &&
            (!key || json_integer_value(json_object_get(d, key)) == value))
            return json_string_value(json_object_get(a, "at"));
    }
    return "(none)";
}

static void test_times_restored(void)
{
    struct camp c;
    play(&c, true);
    char *text = export_of(&api_daemon, &c, "export-times.json");
    json_t *doc = json_loads(text, 0, NULL);
    free(text);
    json_t *actions = json_object_get(doc, "actions");
    for (size_t i = 0; i < json_array_size(actions); i++) {
        char at[80];
        int k = (int)i % 1000;
        snprintf(at, sizeof at, "2025-%02d-%02dT%02d:00:00.%03dZ", 1 + k / 100, 1 + k % 28, k % 24,
                 k);
        json_object_set_new(json_array_get(actions, i), "at", json_string(at));
    }
    /* A name a creation would now refuse (only spaces) is restored as recorded. */
    json_object_set_new(json_object_get(json_array_get(actions, 0), "detail"), "name",
                        json_string("\xc2\xa0 "));
    const char *finished = at_of(actions, "finished", NULL, 0);
    json_object_set_new(json_array_get(json_object_get(doc, "seeds"), 0), "revealed_at",
                        json_string(finished));
    char *body = jstr(doc);
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, body, NULL);
    free(body);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp copy = c;
    snprintf(copy.id, sizeof copy.id, "%s", http_str(r, "id"));
    http_free(r);
    /* The log: every action at its time; the import's own line now. */
    struct http_resp *log = camp_get(&other, &copy, "/log");
    json_t *lines = json_is_array(log->json) ? log->json : http_json_at(log, "entries");
    CU_ASSERT_EQUAL_FATAL(json_array_size(lines), json_array_size(actions) + 1);
    for (size_t i = 0; i < json_array_size(actions); i++) {
        json_t *want = json_array_get(actions, i), *got = json_array_get(lines, i);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(got, "action")),
                               json_string_value(json_object_get(want, "action")));
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(got, "at")),
                               json_string_value(json_object_get(want, "at")));
    }
    const char *imported =
        json_string_value(json_object_get(json_array_get(lines, json_array_size(actions)), "at"));
    CU_ASSERT_STRING_NOT_EQUAL(imported, finished);
    CU_ASSERT(strncmp(imported, "2025-", 5) != 0);
    http_free(log);
    /* Rolls, the campaign, its seed, its battles and its Reserve Tokens. */
    struct http_resp *rolls = camp_get(&other, &copy, "/rolls");
    CU_ASSERT(json_array_size(rolls->json) > 0);
    for (size_t i = 0; i < json_array_size(rolls->json); i++) {
        json_t *ro = json_array_get(rolls->json, i);
        CU_ASSERT_STRING_EQUAL(
            json_string_value(json_object_get(ro, "at")),
            at_of(actions, "roll", "n", json_integer_value(json_object_get(ro, "n"))));
    }
    http_free(rolls);
    struct http_resp *st = camp_get(&other, &copy, "");
    CU_ASSERT_STRING_EQUAL(http_str(st, "name"), "\xc2\xa0 ");
    CU_ASSERT_STRING_EQUAL(http_str(st, "created_at"), at_of(actions, "campaign_created", NULL, 0));
    CU_ASSERT_STRING_EQUAL(http_str(st, "finished_at"), finished);
    CU_ASSERT_STRING_EQUAL(http_str(st, "seeds.0.revealed_at"), finished);
    json_t *tokens = http_json_at(st, "token_history");
    CU_ASSERT(json_array_size(tokens) > 2);
    for (size_t i = 0; i < json_array_size(tokens); i++) {
        const char *at = json_string_value(json_object_get(json_array_get(tokens, i), "at"));
        bool known = false;
        for (size_t k = 0; k < json_array_size(actions); k++)
            known |=
                strcmp(at, json_string_value(json_object_get(json_array_get(actions, k), "at"))) ==
                0;
        if (!known)
            fprintf(stderr, "\ntoken change at %s: no action then\n", at);
        CU_ASSERT_TRUE(known);
    }
    http_free(st);
    for (int n = 1; n <= 2; n++) {
        char p[32];
        snprintf(p, sizeof p, "/battles/%d", n);
        struct http_resp *b = camp_get(&other, &copy, p);
        CU_ASSERT_STRING_EQUAL(http_str(b, "created_at"),
                               at_of(actions, "battle_created", "number", n));
        CU_ASSERT_STRING_EQUAL(http_str(b, "finished_at"), at_of(actions, "result", "battle", n));
        http_free(b);
    }
    json_decref(doc);
}

static void test_tampered(void)
{
    struct camp c;
    play(&c, true);
    char *text = export_of(&api_daemon, &c, "export-tampered.json");
    json_t *doc = json_loads(text, 0, NULL);
    free(text);
    /* A changed face: m44 verify catches it. */
    json_t *rolls = json_object_get(doc, "rolls");
    for (size_t i = 0; i < json_array_size(rolls); i++) {
        json_t *ro = json_array_get(rolls, i);
        if (strcmp(json_string_value(json_object_get(ro, "source")), "server") == 0) {
            json_t *f = json_object_get(ro, "faces");
            const char *f0 = json_string_value(json_array_get(f, 0));
            json_array_set_new(f, 0, json_string(strcmp(f0, "star") ? "star" : "flag"));
            break;
        }
    }
    char path[512];
    tk_out_path("export-tampered.json", path, sizeof path);
    json_dump_file(doc, path, 0);
    char *out;
    CU_ASSERT_EQUAL(verify("export-tampered.json", &out), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "MISMATCH"));
    json_decref(doc);
}

/* Rows in every table of the other daemon's database, where imports go. */
static long imported_rows(void)
{
    return sql_long_on(other_db,
                       "SELECT (SELECT count(*) FROM campaigns) + (SELECT count(*) FROM rolls) + "
                       "(SELECT count(*) FROM battles) + (SELECT count(*) FROM reserve_choices) + "
                       "(SELECT count(*) FROM event_log) + (SELECT count(*) FROM token_ledger) + "
                       "(SELECT count(*) FROM idempotency) + (SELECT count(*) FROM effects) + "
                       "(SELECT count(*) FROM seeds)");
}

static void test_import_refusals(void)
{
    struct camp c;
    play(&c, true);
    char *text = export_of(&api_daemon, &c, "export-base.json");
    long before = 0;
    struct http_resp *r;
    static const struct {
        const char *what, *field;
    } cases[] = {
        {"format", "format"},          {"seed", "seeds[0]"},
        {"gap", "actions[%d]"},        {"battle", "actions[%d]"},
        {"first", "actions[0]"},       {"no such day", "actions[%d]"},
        {"not a time", "actions[%d]"}, {"seed time", "seeds[0]"},
        {"not leap", "actions[%d]"},   {"offset", "actions[%d]"},
        {"year 10000", "actions[%d]"}, {"seed no rotation started", "seeds"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *doc = json_loads(text, 0, NULL);
        json_t *actions = json_object_get(doc, "actions");
        int idx = -1;
        if (strcmp(cases[i].what, "format") == 0) {
            json_object_set_new(doc, "format", json_string("something-else"));
        } else if (strcmp(cases[i].what, "seed") == 0) {
            json_object_set_new(json_array_get(json_object_get(doc, "seeds"), 0), "server_seed",
                                json_string("00000000000000000000000000000000000000000000000000"
                                            "00000000000000"));
        } else if (strcmp(cases[i].what, "gap") == 0) {
            /* Drop one roll: the next one no longer has the next number. */
            for (size_t k = 0; k < json_array_size(actions) && idx < 0; k++)
                if (strcmp(json_string_value(json_object_get(json_array_get(actions, k), "action")),
                           "roll") == 0)
                    idx = (int)k;
            json_array_remove(actions, (size_t)idx);
        } else if (strcmp(cases[i].what, "battle") == 0) {
            for (size_t k = 0; k < json_array_size(actions) && idx < 0; k++)
                if (strcmp(json_string_value(json_object_get(json_array_get(actions, k), "action")),
                           "result") == 0)
                    idx = (int)k;
            json_object_set_new(json_object_get(json_array_get(actions, (size_t)idx), "detail"),
                                "battle", json_integer(7));
        } else if (strcmp(cases[i].what, "no such day") == 0) {
            idx = 2;
            json_object_set_new(json_array_get(actions, 2), "at",
                                json_string("2026-04-31T10:00:00.000Z"));
        } else if (strcmp(cases[i].what, "offset") == 0) {
            idx = 5; /* PostgreSQL takes offsets up to 15:59, the world's reach to 14:00 */
            json_object_set_new(json_array_get(actions, 5), "at",
                                json_string("2026-11-24T02:12:00+16:00"));
        } else if (strcmp(cases[i].what, "year 10000") == 0) {
            idx = 6; /* in UTC, what an export would write back */
            json_object_set_new(json_array_get(actions, 6), "at",
                                json_string("9999-12-31T23:59:59.999999-14:00"));
        } else if (strcmp(cases[i].what, "not leap") == 0) {
            idx = 4;
            json_object_set_new(json_array_get(actions, 4), "at",
                                json_string("2026-02-29T10:00:00+02:00"));
        } else if (strcmp(cases[i].what, "not a time") == 0) {
            idx = 3;
            json_object_set_new(json_array_get(actions, 3), "at", json_string("yesterday"));
        } else if (strcmp(cases[i].what, "seed no rotation started") == 0) {
            /* A copy of the first seed as a second one, which no action started. */
            json_t *seeds = json_object_get(doc, "seeds");
            json_t *copy = json_deep_copy(json_array_get(seeds, json_array_size(seeds) - 1));
            json_object_set_new(copy, "epoch",
                                json_integer((json_int_t)json_array_size(seeds) + 1));
            json_array_append_new(seeds, copy);
        } else if (strcmp(cases[i].what, "seed time") == 0) {
            json_object_set_new(json_array_get(json_object_get(doc, "seeds"), 0), "revealed_at",
                                json_string("2026-11-24T24:00:00Z"));
        } else {
            json_array_remove(actions, 0);
        }
        char *body = jstr(doc);
        json_decref(doc);
        /* Every table of the database the import goes to (the other daemon's). */
        before = imported_rows();
        r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, body, NULL);
        free(body);
        CU_ASSERT(r->status == 400);
        char field[32];
        snprintf(field, sizeof field, "%s", cases[i].field);
        if (strstr(field, "%d"))
            snprintf(field, sizeof field, "actions[%d]", idx);
        if (strcmp(http_str(r, "field"), field) != 0)
            fprintf(stderr, "\nimport case %s: %s\n", cases[i].what, r->body);
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), field);
        http_free(r);
        CU_ASSERT_EQUAL(imported_rows(), before);
    }
    r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, "[]", NULL);
    assert_problem(r, 400, "malformed-json");
    http_free(r);
    free(text);
}

/* Choices that name one of several alternatives (a grenade taken as artillery) survive the
 * round trip: the restored battle shows the same choices, grants included. */
static void test_grants_round_trip(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"grants\",\"ruleset\":\"standard\",\"dice\":\"table\","
                                "\"reserve_tokens\":{\"allies\":2,\"axis\":2}}",
                                &c));
    must(camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                   "{\"scenario\":\"Sainte-Mère-Église\",\"first_player\":\"allies\","
                   "\"cards\":{\"allies\":5,\"axis\":4},\"medals_to_win\":4}"),
         201);
    must(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                   "{\"faces\":[\"grenade\",\"flag\"]}"),
         201);
    must(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-roll",
                   "{\"faces\":[\"grenade\",\"star\"]}"),
         201);
    must(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice",
                   "{\"options\":[{\"id\":\"grenade@0\",\"grant\":\"artillery\"},"
                   "{\"id\":\"flag@1\"}]}"),
         200);
    must(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice",
                   "{\"options\":[{\"id\":\"star-grenade@0+1\",\"grant\":\"elite-armor\"}]}"),
         200);
    char *doc = export_of(&api_daemon, &c, "export-grants.json");
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, doc, NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    http_free(r);
    free(doc);
    struct http_resp *a = camp_get(&api_daemon, &c, "/battles/1"),
                     *b = camp_get(&other, &c, "/battles/1");
    for (int s = 0; s < 2; s++) {
        char path[64];
        snprintf(path, sizeof path, "reserves.%s.chosen", s ? "axis" : "allies");
        bool eq = json_equal(http_json_at(a, path), http_json_at(b, path));
        if (!eq)
            fprintf(stderr, "\nimport changed %s: %s / %s\n", path, a->body, b->body);
        CU_ASSERT_TRUE(eq);
    }
    CU_ASSERT_STRING_EQUAL(http_str(b, "reserves.allies.chosen.0.grant"), "artillery");
    CU_ASSERT_STRING_EQUAL(http_str(b, "reserves.axis.chosen.0.grant"), "elite-armor");
    CU_ASSERT_EQUAL(http_int(b, "reserves.axis.tokens_after"), 1);
    http_free(a);
    http_free(b);
}

/* An export taken mid-campaign carries no secret seed: the import starts a new one. */
static void test_unfinished(void)
{
    struct camp c;
    play(&c, false);
    char *doc = export_of(&api_daemon, &c, "export-unfinished.json");
    char *out;
    /* Not a failure, but not a success either: nothing can be checked before the reveal. */
    CU_ASSERT_EQUAL(verify("export-unfinished.json", &out), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "NOT VERIFIED: seed 1 is not revealed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "NOT VERIFIED: "));
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, doc, NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    CU_ASSERT_STRING_NOT_EQUAL(http_str(r, "seed_commitment"), c.commitment);
    struct camp copy = c;
    snprintf(copy.key[ORGANIZER], sizeof copy.key[0], "%s", http_str(r, "organizer_key"));
    snprintf(copy.key[ALLIES], sizeof copy.key[0], "%s", http_str(r, "allies_key"));
    http_free(r);
    free(doc);
    /* The old keys are no keys there; the new ones play on. */
    r = camp_post(&other, &c, ORGANIZER, "/battles",
                  "{\"scenario\":\"Kupa\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                  "\"axis\":5},\"medals_to_win\":5}");
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    must(camp_post(&other, &copy, ORGANIZER, "/battles",
                   "{\"scenario\":\"Kupa\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                   "\"axis\":5},\"medals_to_win\":5}"),
         201);
    r = camp_post(&other, &copy, ALLIES, "/battles/3/victory-events", "{}");
    CU_ASSERT_EQUAL(r->status, 201);
    r->status == 201 ? (void)0 : (void)fprintf(stderr, "\n%s\n", r->body);
    http_free(r);
    r = camp_get(&other, &copy, "");
    CU_ASSERT_EQUAL(http_int(r, "seed_epoch"), 2);
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "seeds")), 2);
    CU_ASSERT_STRING_EQUAL(http_str(r, "seeds.0.origin"), "import");
    CU_ASSERT_STRING_EQUAL(http_str(r, "seeds.1.origin"), "server");
    http_free(r);
    /* The log says who did what: the server went on with its own seed, and did not reveal the
     * first, whose value stayed with the server the export came from. */
    r = camp_get(&other, &copy, "/log");
    json_t *rotated = NULL, *imported = NULL;
    for (size_t i = 0; i < json_array_size(r->json); i++) {
        json_t *e = json_array_get(r->json, i);
        const char *action = json_string_value(json_object_get(e, "action"));
        if (strcmp(action, "seed_rotated") == 0)
            rotated = e;
        if (strcmp(action, "imported") == 0)
            imported = e;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(rotated);
    CU_ASSERT_PTR_NOT_NULL_FATAL(imported);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(rotated, "actor")), "system");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(imported, "actor")), "system");
    CU_ASSERT_TRUE(
        json_is_null(json_object_get(json_object_get(rotated, "detail"), "revealed_epoch")));
    CU_ASSERT_EQUAL(
        json_integer_value(json_object_get(json_object_get(rotated, "detail"), "epoch")), 2);
    http_free(r);
}

/* A side that rolls from the table and undoes it, a thousand times over, leaves a log longer
 * than play ever makes (2,002 actions): its export still imports, and the restored campaign goes
 * on numbering its rolls after the last one voided (RULES: an undone roll keeps its number). */
static void test_long_log_imports(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"second thoughts\",\"ruleset\":\"standard\","
                                "\"what_if\":false,\"dice\":\"table\",\"reserve_tokens\":"
                                "{\"allies\":3,\"axis\":3},\"players\":{\"allies\":\"Ann\","
                                "\"axis\":\"Bob\"}}",
                                &c));
    must(camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                   "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"allies\",\"cards\":"
                   "{\"allies\":5,\"axis\":5},\"medals_to_win\":6}"),
         201);
    enum { CYCLES = 1000 };
    int bad = 0;
    for (int i = 0; i < CYCLES; i++) {
        struct http_resp *r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                                        "{\"faces\":[\"star\",\"flag\"]}");
        bad += r->status != 201;
        http_free(r);
        r = camp_post(&api_daemon, &c, ALLIES, "/undo", "{}");
        bad += r->status != 200;
        http_free(r);
    }
    CU_ASSERT_EQUAL(bad, 0);
    char *doc = export_of(&api_daemon, &c, "export-long-log.json");
    json_t *parsed = json_loads(doc, 0, NULL);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(parsed, "actions")), 2 + 2 * CYCLES);
    json_decref(parsed);
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, doc, NULL);
    free(doc);
    if (r->status != 201)
        fprintf(stderr, "\nimport of a long log: %s\n", r->body);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp copy = c;
    snprintf(copy.key[ALLIES], sizeof copy.key[0], "%s", http_str(r, "allies_key"));
    http_free(r);
    r = camp_post(&other, &copy, ALLIES, "/battles/1/reserve-roll",
                  "{\"faces\":[\"infantry\",\"armor\"]}");
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "roll"), CYCLES + 1);
    if (r->status != 201 || http_int(r, "roll") != CYCLES + 1)
        fprintf(stderr, "\nroll after the import: %s\n", r->body);
    http_free(r);
}

void register_export_tests(void)
{
    CU_pSuite s = CU_add_suite("export, verify, import", suite_init, suite_clean);
    CU_add_test(s, "export, m44 verify, import elsewhere: the same campaign", test_round_trip);
    CU_add_test(s, "a tampered export fails m44 verify", test_tampered);
    CU_add_test(s, "a restored campaign keeps the times of its actions", test_times_restored);
    CU_add_test(s, "broken exports are refused; nothing written", test_import_refusals);
    CU_add_test(s, "choices with a named grant survive export and import", test_grants_round_trip);
    CU_add_test(s, "an unfinished campaign continues with a new seed", test_unfinished);
    CU_add_test(s, "a log of a thousand rolls undone imports, numbering on", test_long_log_imports);
}
