/*
 * Every error class: status, problem+json body (naming the field), and nothing changed (the
 * campaign's version and the number of rows are the same after a refused request).
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct camp srv, tbl, done, poor, simple, isl;

/* Rows a refused request must not add. */
static long rows(void)
{
    return sql_long("SELECT (SELECT count(*) FROM campaigns) + (SELECT count(*) FROM rolls) + "
                    "(SELECT count(*) FROM battles) + (SELECT count(*) FROM reserve_choices) + "
                    "(SELECT count(*) FROM event_log) + (SELECT count(*) FROM token_ledger) + "
                    "(SELECT count(*) FROM idempotency) + (SELECT count(*) FROM effects) + "
                    "(SELECT count(*) FROM grand_campaigns)");
}

static void ok(struct http_resp *r, long status)
{
    if (r->status != status)
        fprintf(stderr, "\nexpected %ld, got %ld %s\n", status, r->status, r->body);
    CU_ASSERT_EQUAL(r->status, status);
    http_free(r);
}

/* A campaign made with `create`, and its battle 1 set up (scenario "A", the Allies first, then
 * `more` fields, if any): the battle's status, 0 when the campaign was not made. */
static long with_battle(const char *create, struct camp *c, const char *more)
{
    if (!camp_create(&api_daemon, create, c))
        return 0;
    char body[256];
    snprintf(body, sizeof body,
             "{\"scenario\":\"A\",\"first_player\":\"allies\",\"cards\":{\"allies\":4,"
             "\"axis\":4},\"medals_to_win\":4%s}",
             more ? more : "");
    struct http_resp *r = camp_post(&api_daemon, c, ORGANIZER, "/battles", body);
    long st = r->status;
    http_free(r);
    return st;
}

static int suite_init(void)
{
    /* A server-dice campaign with battle 1 in reserves and the Allies' roll made. */
    if (!camp_create(&api_daemon,
                     "{\"name\":\"errors\",\"ruleset\":\"standard\",\"reserve_tokens\":"
                     "{\"allies\":0,\"axis\":1}}",
                     &srv))
        return 1;
    struct http_resp *r = camp_post(&api_daemon, &srv, ORGANIZER, "/battles",
                                    "{\"scenario\":\"Pegasus Bridge\",\"first_player\":"
                                    "\"axis\",\"cards\":{\"allies\":4,\"axis\":5},"
                                    "\"medals_to_win\":4}");
    long st = r->status;
    http_free(r);
    r = camp_post(&api_daemon, &srv, ALLIES, "/battles/1/reserve-roll", "{}");
    st += r->status;
    http_free(r);
    /* A table-dice campaign, to choose the faces. */
    st += with_battle("{\"name\":\"table\",\"ruleset\":\"standard\",\"dice\":\"table\","
                      "\"reserve_tokens\":{\"allies\":1,\"axis\":0}}",
                      &tbl, NULL);
    /* A finished campaign. */
    if (!camp_create(&api_daemon, "{\"name\":\"done\",\"ruleset\":\"simplified\"}", &done))
        return 1;
    r = camp_post(&api_daemon, &done, ORGANIZER, "/finish", NULL);
    st += r->status;
    http_free(r);
    /* Table dice chosen so that the Allies' roll offers an option they cannot pay for. */
    st += with_battle("{\"name\":\"poor\",\"ruleset\":\"standard\",\"dice\":\"table\","
                      "\"reserve_tokens\":{\"allies\":0,\"axis\":0}}",
                      &poor, NULL);
    r = camp_post(&api_daemon, &poor, ALLIES, "/battles/1/reserve-roll",
                  "{\"faces\":[\"infantry\",\"armor\"]}");
    st += r->status;
    http_free(r);
    /* Rules without a reserve roll, a battle being played. */
    st += with_battle("{\"name\":\"simple\",\"ruleset\":\"simplified\"}", &simple, NULL);
    /* What-if rolls still to come before battle 1 (one may call for a pre-battle roll). */
    st += with_battle("{\"name\":\"isl\",\"ruleset\":\"island-hoppers\",\"what_if\":true,"
                      "\"dice\":\"table\"}",
                      &isl, ",\"features\":[\"destroyers\"]");
    return st == 201 + 201 + 201 + 200 + 201 + 201 + 201 + 201 ? 0 : 1;
}

struct create_case {
    const char *body;
    long status;
    const char *code, *field;
};

static const struct create_case create_cases[] = {
    {"{", 400, "malformed-json", NULL},
    {"[1,2]", 400, "malformed-json", NULL},
    {"\"text\"", 400, "malformed-json", NULL},
    {"{\"name\":\"a\",\"name\":\"b\",\"ruleset\":\"standard\"}", 400, "malformed-json", NULL},
    {"{\"name\":\"a\\u0000b\",\"ruleset\":\"standard\"}", 400, "malformed-json", NULL},
    {"{\"name\":\"\xff\xfe\",\"ruleset\":\"standard\"}", 400, "malformed-json", NULL},
    {"{\"name\":5,\"ruleset\":\"standard\"}", 400, "invalid-field", "name"},
    {"{\"ruleset\":\"standard\"}", 400, "missing-field", "name"},
    /* A name players read is not only spaces (an empty player name means none). */
    {"{\"name\":\" \\t \",\"ruleset\":\"standard\"}", 400, "invalid-field", "name"},
    {"{\"name\":\"\\u00a0\\u3000\\u200b\",\"ruleset\":\"standard\"}", 400, "invalid-field", "name"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"players\":{\"allies\":\"Ann\",\"axis\":\"  \"}}",
     400, "invalid-field", "players.axis"},
    {"{\"name\":\"x\"}", 400, "missing-field", "ruleset"},
    {"{\"name\":null,\"ruleset\":\"standard\"}", 400, "invalid-field", "name"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"colour\":\"red\"}", 400, "unknown-field",
     "colour"},
    {"{\"name\":\"\",\"ruleset\":\"standard\"}", 400, "invalid-field", "name"},
    {"{\"name\":\"x\",\"ruleset\":\"nope\"}", 400, "invalid-field", "ruleset"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"what_if\":true}", 400, "invalid-field", "what_if"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"what_if\":\"yes\"}", 400, "invalid-field",
     "what_if"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"dice\":\"loaded\"}", 400, "invalid-field", "dice"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":100,\"axis\":1}}",
     400, "invalid-field", "reserve_tokens.allies"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":-1,\"axis\":1}}", 400,
     "invalid-field", "reserve_tokens.allies"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":1.5,\"axis\":1}}",
     400, "invalid-field", "reserve_tokens.allies"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":\"2\",\"axis\":1}}",
     400, "invalid-field", "reserve_tokens.allies"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":2}}", 400,
     "missing-field", "reserve_tokens.axis"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":2,\"axis\":2,"
     "\"neutral\":1}}",
     400, "unknown-field", "reserve_tokens.neutral"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":"
     "99999999999999999999999,\"axis\":1}}",
     400, "malformed-json", NULL},
    {"{\"name\":\"x\",\"ruleset\":\"simplified\",\"reserve_tokens\":{\"allies\":1,\"axis\":1}}",
     400, "invalid-field", "reserve_tokens"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"players\":\"Ann\"}", 400, "invalid-field",
     "players"},
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"scenarios\":{\"start\":\"A\",\"list\":[],"
     "\"branches\":{}}}",
     400, "invalid-field", "scenarios.list"},
    /* A scenario of the list named only with spaces (here U+3000). */
    {"{\"name\":\"x\",\"ruleset\":\"standard\",\"scenarios\":{\"start\":\"\\u3000\",\"list\":"
     "[{\"name\":\"\\u3000\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,\"axis\":5},"
     "\"medals_to_win\":4}],\"branches\":{\"\\u3000\":{\"allies\":\"END\",\"axis\":\"END\"}}}}",
     400, "invalid-field", "scenarios"},
};

static void test_create_refusals(void)
{
    long before = rows();
    for (size_t i = 0; i < sizeof create_cases / sizeof create_cases[0]; i++) {
        const struct create_case *c = &create_cases[i];
        struct http_resp *r =
            api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, c->body, NULL);
        assert_problem(r, c->status, c->code);
        /* Said in words, never in the JSON library's own terms (its option names). */
        CU_ASSERT_PTR_NULL(strstr(http_str(r, "detail"), "JSON_"));
        if (c->field) {
            if (strcmp(http_str(r, "field"), c->field) != 0)
                fprintf(stderr, "\ncase %zu: field \"%s\", want \"%s\"\n", i, http_str(r, "field"),
                        c->field);
            CU_ASSERT_STRING_EQUAL(http_str(r, "field"), c->field);
        }
        http_free(r);
    }
    /* A ruleset without What-if events or reserve rolls is named as players know it (RULES: the
     * simplified rules have no reserve roll), not by its id. */
    struct http_resp *w = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE,
                              "{\"name\":\"x\",\"ruleset\":\"simplified\",\"reserve_tokens\":"
                              "{\"allies\":1,\"axis\":0}}",
                              NULL);
    CU_ASSERT_STRING_EQUAL(http_str(w, "detail"), "There is no reserve roll in Simplified campaign "
                                                  "rules, so no Reserve Tokens.");
    http_free(w);
    w = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE,
            "{\"name\":\"x\",\"ruleset\":\"standard\",\"what_if\":true}", NULL);
    CU_ASSERT_STRING_EQUAL(http_str(w, "detail"),
                           "There are no What-if events in Standard campaign rules.");
    http_free(w);
    /* Over-long strings, counted in bytes. */
    char body[1024], name[260];
    memset(name, 'n', 201);
    name[201] = '\0';
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"ruleset\":\"standard\"}", name);
    struct http_resp *r = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "name");
    http_free(r);
    memset(name, 'p', 101);
    name[101] = '\0';
    snprintf(body, sizeof body,
             "{\"name\":\"x\",\"ruleset\":\"standard\",\"players\":{\"allies\":\"%s\"}}", name);
    r = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "players.allies");
    http_free(r);
    /* 26 dice emoji are 104 bytes: the refusal says why they do not fit, in words. */
    char dice[26 * 4 + 1] = "";
    for (int i = 0; i < 26; i++)
        strcat(dice, "\xf0\x9f\x8e\xb2");
    snprintf(body, sizeof body,
             "{\"name\":\"x\",\"ruleset\":\"standard\",\"players\":{\"axis\":\"%s\"}}", dice);
    r = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "players.axis is too long: it takes 104 bytes, and 100 fit (a plain "
                           "letter takes 1, an accented letter 2, an emoji up to 4).");
    http_free(r);
    /* An unknown field's long name, ending in an accented letter that falls across the end of
     * what is quoted (the field at 127 bytes, the detail's quote at 159): still named, its cut
     * name ending on a whole letter, and the detail in words, not the generic title. */
    for (int len = 126; len <= 158; len += 32) {
        char key[200];
        memset(key, 'k', (size_t)len);
        strcpy(key + len, "\xc3\xa9");
        snprintf(body, sizeof body, "{\"name\":\"x\",\"ruleset\":\"standard\",\"%s\":1}", key);
        r = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, NULL);
        assert_problem(r, 400, "unknown-field");
        key[len < 127 ? len : 127] = '\0'; /* the field: the letter cut, or 127 bytes of k */
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), key);
        CU_ASSERT_EQUAL(strncmp(http_str(r, "detail"), "Unknown field \"kkkk", 18), 0);
        http_free(r);
    }
    CU_ASSERT_EQUAL(rows(), before);
    /* A battle's scenario: not only spaces, Unicode ones included. */
    struct camp sc;
    CU_ASSERT_FATAL(
        camp_create(&api_daemon, "{\"name\":\"scenario names\",\"ruleset\":\"standard\"}", &sc));
    before = rows(); /* with the campaign just made: the refusals add nothing */
    static const char *const blank_scenarios[] = {"   ", "\\u00a0\\u3000", "\\u200b"};
    for (size_t i = 0; i < 3; i++) {
        char b[200];
        snprintf(b, sizeof b,
                 "{\"scenario\":\"%s\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                 "\"axis\":5},\"medals_to_win\":4}",
                 blank_scenarios[i]);
        r = camp_post(&api_daemon, &sc, ORGANIZER, "/battles", b);
        assert_problem(r, 400, "invalid-field");
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "scenario");
        http_free(r);
    }
    /* The same for a grand campaign. */
    r = api(&api_daemon, "POST", "/api/v1/grand-campaigns", NULL, ANYONE,
            "{\"name\":\"\\n\",\"grand_ruleset\":\"island-hoppers-grand\"}", NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "name");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), "name is only spaces: give a name.");
    http_free(r);
    r = api(&api_daemon, "POST", "/api/v1/grand-campaigns", NULL, ANYONE,
            "{\"name\":\"g\",\"grand_ruleset\":\"island-hoppers-grand\","
            "\"players\":{\"allies\":\" \"}}",
            NULL);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "players.allies");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "players.allies is only spaces: give a name, or leave it empty.");
    http_free(r);
    /* A count is "a whole number", as players say it (the page puts the field in words). */
    static const struct {
        const char *tokens, *says;
    } counts[] = {
        {"1.5", "reserve_tokens.allies must be a whole number."},
        {"100", "reserve_tokens.allies must be a whole number from 0 to 99."},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        snprintf(body, sizeof body,
                 "{\"name\":\"t\",\"ruleset\":\"standard\",\"reserve_tokens\":{\"allies\":%s,"
                 "\"axis\":2}}",
                 counts[i].tokens);
        r = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, NULL);
        assert_problem(r, 400, "invalid-field");
        CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), counts[i].says);
        http_free(r);
    }
    CU_ASSERT_EQUAL(rows(), before);
}

struct action_case {
    const char *name;
    struct camp *c;
    enum who who;
    const char *suffix, *body;
    const char *header;
    long status;
    const char *code, *field, *phase;
    const char *detail; /* in players' words: sides and phases as the pages name them */
};

static struct action_case action_cases[] = {
    {"no key", &srv, ANYONE, "/battles/1/reserve-roll", "{}", NULL, 401, "unauthorized"},
    {"organizer for a side", &srv, ORGANIZER, "/battles/1/reserve-roll", "{}", NULL, 403,
     "forbidden"},
    {"side for the organizer", &srv, AXIS, "/battles/1/result",
     "{\"winner\":\"axis\",\"medals\":{\"allies\":1,\"axis\":4}}", NULL, 403, "forbidden", NULL,
     NULL, "Only the organizer may do this; this is the Axis key."},
    {"side sets up a battle", &srv, ALLIES, "/battles", "{}", NULL, 403, "forbidden"},
    {"Axis key rolling for the Allies", &srv, AXIS, "/battles/1/reserve-roll",
     "{\"side\":\"allies\"}", NULL, 403, "forbidden"},
    {"Allies key choosing for the Axis", &srv, ALLIES, "/battles/1/reserve-choice",
     "{\"side\":\"axis\",\"options\":[]}", NULL, 403, "forbidden"},
    {"Allies key rolling What-if for the Axis", &srv, ALLIES, "/what-if", "{\"side\":\"axis\"}",
     NULL, 403, "forbidden"},
    {"organizer naming a side", &srv, ORGANIZER, "/battles/1/reserve-roll", "{\"side\":\"axis\"}",
     NULL, 403, "forbidden"},
    {"side not a side", &srv, AXIS, "/battles/1/reserve-roll", "{\"side\":\"both\"}", NULL, 400,
     "invalid-field", "side"},
    {"battle 99", &srv, AXIS, "/battles/99/reserve-roll", "{}", NULL, 404, "not-found"},
    {"battle 0", &srv, AXIS, "/battles/0/reserve-roll", "{}", NULL, 404, "not-found"},
    {"battle abc", &srv, AXIS, "/battles/abc/reserve-roll", "{}", NULL, 404, "not-found"},
    /* Steps the battle never has are said so, not waited for (a phase they would never come in). */
    {"no victory events in battle 1", &srv, AXIS, "/battles/1/victory-events", "{}", NULL, 409,
     "already-done", NULL, NULL, "The Axis have no victory event dice in battle 1."},
    {"no reserve roll in the simplified rules", &simple, ALLIES, "/battles/1/reserve-roll", "{}",
     NULL, 422, "rule-violation", NULL, NULL,
     "There is no reserve roll in Simplified campaign rules."},
    {"no reserve choice in the simplified rules", &simple, ALLIES, "/battles/1/reserve-choice",
     "{\"options\":[]}", NULL, 422, "rule-violation", NULL, NULL,
     "There is no reserve roll in Simplified campaign rules."},
    {"no pre-battle roll without an effect", &srv, AXIS, "/battles/1/pre-battle-roll", "{}", NULL,
     422, "rule-violation", NULL, NULL,
     "No effect in force calls for a roll by the Axis before battle 1."},
    /* ... but before the What-if rolls one may still come: the phase is said. */
    {"pre-battle roll before the What-if rolls", &isl, AXIS, "/battles/1/pre-battle-roll",
     "{\"faces\":[\"star\",\"grenade\",\"flag\"]}", NULL, 409, "wrong-phase", NULL,
     "victory_events"},
    /* Rules without a reserve roll: a battle not there is still not found. */
    {"no reserve roll, no battle", &done, ALLIES, "/battles/1/reserve-roll", "{}", NULL, 404,
     "not-found"},
    {"wrong phase: result before ready", &srv, ORGANIZER, "/battles/1/result",
     "{\"winner\":\"axis\",\"medals\":{\"allies\":1,\"axis\":4}}", NULL, 409, "wrong-phase", NULL,
     "ready", "Battle 1 is at its reserve rolls; this can only be done when it is being played."},
    {"wrong phase: next battle too early", &srv, ORGANIZER, "/battles",
     "{\"scenario\":\"B\",\"first_player\":\"axis\",\"cards\":{\"allies\":4,\"axis\":5},"
     "\"medals_to_win\":4}",
     NULL, 409, "wrong-phase", NULL, "finished",
     "Battle 1 is at its reserve rolls; record its result before the next battle."},
    {"rolled already", &srv, ALLIES, "/battles/1/reserve-roll", "{}", NULL, 409, "already-done",
     NULL, NULL, "The Allies already made their reserve roll for battle 1."},
    {"choice before rolling", &srv, AXIS, "/battles/1/reserve-choice", "{\"options\":[]}", NULL,
     409, "wrong-phase", NULL, "reserves",
     "The Axis have not made their reserve roll for battle 1 yet."},
    {"not enough tokens", &poor, ALLIES, "/battles/1/reserve-choice",
     "{\"options\":[{\"id\":\"armor@1\"}]}", NULL, 422, "not-enough-tokens", "options[0].id"},
    {"stale If-Match", &srv, AXIS, "/battles/1/reserve-roll", "{}", "If-Match: \"1\"", 412,
     "precondition-failed"},
    {"faces in a server campaign", &srv, AXIS, "/battles/1/reserve-roll",
     "{\"faces\":[\"star\",\"star\"]}", NULL, 422, "dice-not-allowed", "faces"},
    {"client seed too long", &srv, AXIS, "/battles/1/reserve-roll",
     "{\"client_seed\":\"12345678901234567890123456789012345678901234567890123456789012345\"}",
     NULL, 400, "invalid-field", "client_seed"},
    {"client seed and faces", &srv, AXIS, "/battles/1/reserve-roll",
     "{\"client_seed\":\"a\",\"faces\":[\"star\",\"star\"]}", NULL, 400, "invalid-field", "faces"},
    {"unknown body field", &srv, AXIS, "/battles/1/reserve-roll", "{\"seed\":\"a\"}", NULL, 400,
     "unknown-field", "seed"},
    {"what-if without What-if", &srv, AXIS, "/what-if", "{}", NULL, 422, "rule-violation"},
    {"Idempotency-Key too long", &srv, AXIS, "/battles/1/reserve-roll", "{}",
     "Idempotency-Key: "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
     400, "invalid-parameter", "Idempotency-Key"},
    {"options not a list", &srv, ALLIES, "/battles/1/reserve-choice", "{\"options\":{}}", NULL, 400,
     "invalid-field", "options"},
    {"option not an object", &srv, ALLIES, "/battles/1/reserve-choice", "{\"options\":[1]}", NULL,
     400, "invalid-field", "options[0]"},
    {"option with unknown field", &srv, ALLIES, "/battles/1/reserve-choice",
     "{\"options\":[{\"id\":\"x@0\",\"price\":1}]}", NULL, 400, "unknown-field",
     "options[0].price"},
    {"choice without options", &srv, ALLIES, "/battles/1/reserve-choice", "{}", NULL, 400,
     "missing-field", "options"},
    {"table: no faces", &tbl, ALLIES, "/battles/1/reserve-roll", "{}", NULL, 422,
     "dice-not-allowed", "faces"},
    {"table: three faces", &tbl, ALLIES, "/battles/1/reserve-roll",
     "{\"faces\":[\"star\",\"star\",\"flag\"]}", NULL, 400, "invalid-faces", "faces"},
    {"table: unknown face", &tbl, ALLIES, "/battles/1/reserve-roll",
     "{\"faces\":[\"tank\",\"star\"]}", NULL, 400, "invalid-faces", "faces[0]"},
    {"table: faces not strings", &tbl, ALLIES, "/battles/1/reserve-roll", "{\"faces\":[1,2]}", NULL,
     400, "invalid-faces", "faces[0]"},
    {"finished: roll", &done, ALLIES, "/battles", "{}", NULL, 403, "forbidden"},
    {"finished: battle", &done, ORGANIZER, "/battles", "{}", NULL, 409, "campaign-finished"},
    {"finished: finish again", &done, ORGANIZER, "/finish", "{}", NULL, 409, "campaign-finished"},
    {"finish with a body", &srv, ORGANIZER, "/finish", "{\"now\":true}", NULL, 400, "unknown-field",
     "now"},
    {"finish mid-battle", &srv, ORGANIZER, "/finish", "{}", NULL, 409, "wrong-phase", NULL,
     "finished",
     "Battle 1 is at its reserve rolls; record its result before finishing the campaign."},
    {"result: winner both", &srv, ORGANIZER, "/battles/1/result",
     "{\"winner\":\"both\",\"medals\":{\"allies\":1,\"axis\":4}}", NULL, 400, "invalid-field",
     "winner"},
    {"result: medals missing", &srv, ORGANIZER, "/battles/1/result",
     "{\"winner\":\"axis\",\"medals\":{\"allies\":1}}", NULL, 400, "missing-field", "medals.axis"},
    {"result: negative medals", &srv, ORGANIZER, "/battles/1/result",
     "{\"winner\":\"axis\",\"medals\":{\"allies\":-1,\"axis\":4}}", NULL, 400, "invalid-field",
     "medals.allies"},
};

static void test_action_refusals(void)
{
    for (size_t k = 0; k < sizeof action_cases / sizeof action_cases[0]; k++) {
        struct action_case *c = &action_cases[k];
        char body[512];
        snprintf(body, sizeof body, "%s", c->body);
        long before = rows(), version = camp_version(&api_daemon, c->c);
        char path[256];
        snprintf(path, sizeof path, "/api/v1/campaigns/%s%s", c->c->id, c->suffix);
        const char *headers[] = {c->header, NULL};
        struct http_resp *r = api(&api_daemon, "POST", path, c->c, c->who, body, headers);
        if (r->status != c->status)
            fprintf(stderr, "\ncase \"%s\"\n", c->name);
        assert_problem(r, c->status, c->code);
        if (c->field)
            CU_ASSERT_STRING_EQUAL(http_str(r, "field"), c->field);
        if (c->phase)
            CU_ASSERT_STRING_EQUAL(http_str(r, "phase"), c->phase);
        if (c->detail)
            CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), c->detail);
        http_free(r);
        CU_ASSERT_EQUAL(camp_version(&api_daemon, c->c), version);
        CU_ASSERT_EQUAL(rows(), before);
    }
}

static void test_keys(void)
{
    long version = camp_version(&api_daemon, &srv);
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/reserve-roll", srv.id);
    const char *bad[] = {"Authorization: Bearer nope",
                         "Authorization: Bearer aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                         "Authorization: Basic dXNlcjpwYXNz", "Authorization: Bearer ", NULL};
    for (int i = 0; bad[i]; i++) {
        const char *h[] = {bad[i], NULL};
        struct http_resp *r = api(&api_daemon, "POST", path, NULL, ANYONE, "{}", h);
        assert_problem(r, 401, "unauthorized");
        http_free(r);
    }
    /* Another campaign's key is no key here. */
    struct camp other = srv;
    memcpy(other.key[AXIS], tbl.key[AXIS], sizeof other.key[AXIS]);
    struct http_resp *r = camp_post(&api_daemon, &other, AXIS, "/battles/1/reserve-roll", "{}");
    assert_problem(r, 401, "unauthorized");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "This link's key is not one of this campaign's: ask the organizer for "
                           "a link.");
    http_free(r);
    /* A key in the query string is ignored. */
    char q[512];
    snprintf(q, sizeof q, "%s?key=%s&access_token=%s", path, srv.key[AXIS], srv.key[AXIS]);
    r = api(&api_daemon, "POST", q, NULL, ANYONE, "{}", NULL);
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &srv), version);
    /* The role endpoint says whose key it is, and reading needs no key. */
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/role", srv.id);
    r = api(&api_daemon, "GET", path, &srv, AXIS, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "role"), "axis");
    http_free(r);
    r = camp_get(&api_daemon, &srv, "");
    CU_ASSERT_EQUAL(r->status, 200);
    /* and never shows keys or the unrevealed seed */
    for (int k = 0; k < 3; k++)
        CU_ASSERT_PTR_NULL(strstr(r->body, srv.key[k]));
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "seeds.0.server_seed")));
    CU_ASSERT_PTR_NULL(http_json_at(r, "server_seed"));
    http_free(r);
}

/* With faces chosen at the table, every reserve-choice refusal of RULES.md 3. */
static void test_choice_refusals(void)
{
    struct http_resp *r = camp_post(&api_daemon, &tbl, ALLIES, "/battles/1/reserve-roll",
                                    "{\"faces\":[\"star\",\"grenade\"]}");
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    http_free(r);
    /* Each detail names options and units as the rule book does (RULES.md 3: star + grenade
     * gives an elite infantry or armor unit, a grenade is wild), never by a request's ids. */
    static const struct {
        const char *body, *code, *field, *says;
    } cases[] = {
        {"{\"options\":[{\"id\":\"tiger@0\"}]}", "unknown-option", "options[0].id",
         "That is not an option of this roll. It offers: Grenade (wild), Star + grenade."},
        {"{\"options\":[{\"id\":\"grenade@1\",\"grant\":\"tiger\"}]}", "invalid-grant",
         "options[0].grant",
         "Grenade (wild) gives an infantry unit, an armor unit or an artillery unit, not a Tiger."},
        {"{\"options\":[{\"id\":\"star-grenade@0+1\",\"grant\":\"artillery\"}]}", "invalid-grant",
         "options[0].grant",
         "Star + grenade gives an Elite infantry unit or an Elite armor unit, not an artillery "
         "unit."},
        {"{\"options\":[{\"id\":\"grenade@1\",\"grant\":\"no-such-unit\"}]}", "invalid-grant",
         "options[0].grant",
         "Grenade (wild) gives an infantry unit, an armor unit or an artillery unit, nothing "
         "else."},
        {"{\"options\":[{\"id\":\"grenade@1\"}]}", "grant-required", "options[0].grant",
         "Grenade (wild) offers a choice: an infantry unit, an armor unit or an artillery unit. "
         "Say which one."},
        {"{\"options\":[{\"id\":\"grenade@1\",\"grant\":\"armor\"},{\"id\":\"star-grenade@0+1\","
         "\"grant\":\"elite-armor\"}]}",
         "die-used-twice", "options[1].id",
         "Star + grenade uses a die that Grenade (wild) already uses: each die serves one "
         "option."},
        {"{\"options\":[{\"id\":\"grenade@1\",\"grant\":\"armor\"},{\"id\":\"grenade@1\","
         "\"grant\":\"armor\"}]}",
         "option-chosen-twice", "options[1].id", "Grenade (wild) is chosen twice."},
        {"{\"options\":[{\"id\":\"grenade@1\",\"grant\":\"armor\"},{\"id\":\"star@0\"}]}",
         "unknown-option", "options[1].id",
         "That is not an option of this roll. It offers: Grenade (wild), Star + grenade."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long before = rows(), version = camp_version(&api_daemon, &tbl);
        r = camp_post(&api_daemon, &tbl, ALLIES, "/battles/1/reserve-choice", cases[i].body);
        assert_problem(r, 422, cases[i].code);
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), cases[i].field);
        CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), cases[i].says);
        http_free(r);
        CU_ASSERT_EQUAL(camp_version(&api_daemon, &tbl), version);
        CU_ASSERT_EQUAL(rows(), before);
    }
    /* The Axis has no token: a unit is refused, the free options are not. */
    r = camp_post(&api_daemon, &tbl, AXIS, "/battles/1/reserve-roll",
                  "{\"faces\":[\"infantry\",\"flag\"]}");
    http_free(r);
    r = camp_post(&api_daemon, &tbl, AXIS, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"flag@1\"},{\"id\":\"infantry@0\"}]}");
    assert_problem(r, 422, "not-enough-tokens");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "options[1].id");
    http_free(r);
    /* A valid choice debits exactly its cost: one token for the elite unit. */
    r = camp_post(&api_daemon, &tbl, ALLIES, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"star-grenade@0+1\",\"grant\":\"elite-infantry\"}]}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(http_int(r, "cost"), 1);
    CU_ASSERT_EQUAL(http_int(r, "reserve_tokens"), 0);
    CU_ASSERT_STRING_EQUAL(http_str(r, "chosen.0.grant"), "elite-infantry");
    http_free(r);
    r = camp_post(&api_daemon, &tbl, ALLIES, "/battles/1/reserve-choice", "{\"options\":[]}");
    assert_problem(r, 409, "already-done");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "The Allies already chose their reserves for battle 1.");
    http_free(r);
    ok(camp_post(&api_daemon, &tbl, AXIS, "/battles/1/reserve-choice",
                 "{\"options\":[{\"id\":\"flag@1\"}]}"),
       200);
    /* Objective medals are part of the medals. */
    r = camp_post(&api_daemon, &tbl, ORGANIZER, "/battles/1/result",
                  "{\"winner\":\"axis\",\"medals\":{\"allies\":1,\"axis\":4},"
                  "\"objective_medals\":{\"allies\":2,\"axis\":0}}");
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "objective_medals.allies");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "Objective medals are part of the medals won: the Allies won 1 medal, "
                           "not 2 objective medals.");
    http_free(r);
}

/* Two grenades rolled offer the same option twice, once for each die: a refusal says which
 * die; an alternative is named as the book names it, without its details ("a sandbag"). */
static void test_choice_refusals_twins(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"twins\",\"ruleset\":\"standard\",\"dice\":\"table\"}", &c));
    ok(camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                 "{\"scenario\":\"A\",\"first_player\":\"allies\",\"cards\":{\"allies\":4,"
                 "\"axis\":4},\"medals_to_win\":4}"),
       201);
    ok(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                 "{\"faces\":[\"grenade\",\"grenade\"]}"),
       201);
    static const struct {
        const char *body, *says;
    } cases[] = {
        {"{\"options\":[{\"id\":\"tiger@0\"}]}",
         "That is not an option of this roll. It offers: Grenade (wild) on die 1, Grenade (wild) "
         "on die 2."},
        {"{\"options\":[{\"id\":\"grenade@1\",\"grant\":\"armor\"},{\"id\":\"grenade@1\","
         "\"grant\":\"armor\"}]}",
         "Grenade (wild) on die 2 is chosen twice."},
        {"{\"options\":[{\"id\":\"grenade@0\",\"grant\":\"sandbag\"}]}",
         "Grenade (wild) on die 1 gives an infantry unit, an armor unit or an artillery unit, not "
         "a sandbag."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct http_resp *r =
            camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice", cases[i].body);
        CU_ASSERT_EQUAL(r->status, 422);
        CU_ASSERT_STRING_EQUAL(http_str(r, "detail"), cases[i].says);
        http_free(r);
    }
    /* Both grenades, one each: allowed (two dice, two options). */
    ok(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice",
                 "{\"options\":[{\"id\":\"grenade@0\",\"grant\":\"armor\"},{\"id\":"
                 "\"grenade@1\",\"grant\":\"infantry\"}]}"),
       200);
}

static void test_if_match(void)
{
    long long v = camp_version(&api_daemon, &tbl);
    char h[64], path[256];
    snprintf(h, sizeof h, "If-Match: \"%lld\"", v);
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/result", tbl.id);
    const char *headers[] = {h, NULL};
    struct http_resp *r =
        api(&api_daemon, "POST", path, &tbl, ORGANIZER,
            "{\"winner\":\"axis\",\"medals\":{\"allies\":1,\"axis\":4}}", headers);
    CU_ASSERT_EQUAL(r->status, 200);
    char etag[64];
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "ETag", etag, sizeof etag));
    char want[64];
    snprintf(want, sizeof want, "\"%lld\"", v + 1);
    CU_ASSERT_STRING_EQUAL(etag, want);
    http_free(r);
    /* The same If-Match again is stale now. */
    r = api(&api_daemon, "POST", path, &tbl, ORGANIZER,
            "{\"winner\":\"axis\",\"medals\":{\"allies\":1,\"axis\":4}}", headers);
    assert_problem(r, 412, "precondition-failed");
    http_free(r);
    /* GET gives the ETag; If-None-Match with it is 304. */
    snprintf(path, sizeof path, "/api/v1/campaigns/%s", tbl.id);
    r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "ETag", etag, sizeof etag));
    CU_ASSERT_STRING_EQUAL(etag, want);
    http_free(r);
    char inm[80];
    snprintf(inm, sizeof inm, "If-None-Match: %s", want);
    const char *h2[] = {inm, NULL};
    r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, h2);
    CU_ASSERT_EQUAL(r->status, 304);
    CU_ASSERT_EQUAL(r->len, 0);
    http_free(r);
    /* A battle, the roll log and the event log have the campaign's version as their ETag too:
     * 304 with it, the whole answer with an older one; a battle that is not there is 404 all the
     * same. */
    char older[80];
    snprintf(older, sizeof older, "If-None-Match: \"%lld\"", v);
    const char *h3[] = {older, NULL};
    static const char *const parts[] = {"/battles/1", "/rolls", "/log"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "/api/v1/campaigns/%s%s", tbl.id, parts[i]);
        r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, NULL);
        CU_ASSERT_EQUAL(r->status, 200);
        CU_ASSERT_PTR_NOT_NULL(http_header(r, "ETag", etag, sizeof etag));
        CU_ASSERT_STRING_EQUAL(etag, want);
        http_free(r);
        r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, h2);
        CU_ASSERT_EQUAL(r->status, 304);
        CU_ASSERT_EQUAL(r->len, 0);
        CU_ASSERT_PTR_NOT_NULL(http_header(r, "ETag", etag, sizeof etag));
        CU_ASSERT_STRING_EQUAL(etag, want);
        http_free(r);
        r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, h3);
        CU_ASSERT_EQUAL(r->status, 200);
        CU_ASSERT(r->len > 0);
        http_free(r);
    }
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/9", tbl.id);
    r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, h2);
    assert_problem(r, 404, "not-found");
    http_free(r);
}

static void test_read_refusals(void)
{
    static const struct {
        const char *path;
        long status;
        const char *code;
    } cases[] = {
        {"/api/v1/campaigns/00000000-0000-4000-8000-000000000000", 404, "not-found"},
        {"/api/v1/campaigns/not-a-uuid", 404, "not-found"},
        {"/api/v1/campaigns/00000000-0000-4000-8000-000000000000/battles/1", 404, "not-found"},
        {"/api/v1/campaigns/00000000-0000-4000-8000-000000000000/rolls", 404, "not-found"},
        {"/api/v1/campaigns?limit=0", 400, "invalid-parameter"},
        {"/api/v1/campaigns?limit=101", 400, "invalid-parameter"},
        {"/api/v1/campaigns?limit=ten", 400, "invalid-parameter"},
        {"/api/v1/campaigns?cursor=abc", 400, "invalid-parameter"},
        {"/api/v1/rulesets/nope", 404, "not-found"},
        {"/assets/nope.js", 404, "not-found"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct http_resp *r = api(&api_daemon, "GET", cases[i].path, NULL, ANYONE, NULL, NULL);
        assert_problem(r, cases[i].status, cases[i].code);
        http_free(r);
    }
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s?wait=-1", srv.id);
    struct http_resp *r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, NULL);
    assert_problem(r, 400, "invalid-parameter");
    http_free(r);
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/7", srv.id);
    r = api(&api_daemon, "GET", path, NULL, ANYONE, NULL, NULL);
    assert_problem(r, 404, "not-found");
    http_free(r);
}

/* Strings are stored and returned exactly: quotes, SQL, emoji, control characters. */
static void test_strings_exact(void)
{
    const char *name = "\"Quoted\" '; DROP TABLE campaigns; -- \\ 🎲 ✠ Überfall \x01\x1f\t\n end";
    const char *player = "O'Brien <script>alert(1)</script> %s %n";
    const char *scenario = "Hill 112 \"Überall\" 💥 '); DELETE FROM rolls; --";
    json_t *body = json_pack("{s:s, s:s, s:{s:s, s:s}}", "name", name, "ruleset", "standard",
                             "players", "allies", player, "axis", "");
    char *text = jstr(body);
    json_decref(body);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon, text, &c));
    free(text);
    body = json_pack("{s:s, s:s, s:{s:i, s:i}, s:i}", "scenario", scenario, "first_player",
                     "allies", "cards", "allies", 5, "axis", 5, "medals_to_win", 6);
    text = jstr(body);
    json_decref(body);
    ok(camp_post(&api_daemon, &c, ORGANIZER, "/battles", text), 201);
    free(text);
    struct http_resp *r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "name"), name);
    CU_ASSERT_STRING_EQUAL(http_str(r, "sides.allies.player"), player);
    CU_ASSERT_STRING_EQUAL(http_str(r, "sides.axis.player"), "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "battles.0.scenario"), scenario);
    http_free(r);
    r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "scenario"), scenario);
    http_free(r);
    CU_ASSERT(sql_long("SELECT count(*) FROM campaigns") > 0); /* still there */
}

static void test_body_too_large(void)
{
    long before = rows();
    size_t n = 2u << 20;
    char *big = malloc(n + 64);
    int h = snprintf(big, 64, "{\"name\":\"");
    memset(big + h, 'x', n);
    snprintf(big + h + n, 64, "\",\"ruleset\":\"standard\"}");
    struct http_resp *r = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, big, NULL);
    assert_problem(r, 413, "body-too-large");
    http_free(r);
    free(big);
    CU_ASSERT_EQUAL(rows(), before);
}

/* A body may name the side it acts for: its own side's key works as without it. */
static void test_body_names_own_side(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon, "{\"name\":\"side\",\"ruleset\":\"standard\"}", &c));
    struct http_resp *r = camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                                    "{\"scenario\":\"A\",\"first_player\":\"axis\",\"cards\":"
                                    "{\"allies\":4,\"axis\":5},\"medals_to_win\":4}");
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-roll", "{\"side\":\"axis\"}");
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_STRING_EQUAL(http_str(r, "side"), "axis");
    http_free(r);
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice",
                  "{\"side\":\"axis\",\"options\":[]}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "side"), "axis");
    http_free(r);
    r = camp_get(&api_daemon, &c, "/battles/1");
    /* Chose nothing: an empty list, not "not chosen yet" (null). */
    CU_ASSERT_TRUE(json_is_array(http_json_at(r, "reserves.axis.chosen")));
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "reserves.axis.chosen")), 0);
    CU_ASSERT_STRING_EQUAL(http_str(r, "phase"), "reserves"); /* the Allies have not chosen */
    http_free(r);
    r = camp_get(&api_daemon, &c, "/rolls"); /* one roll, the Axis's */
    CU_ASSERT_EQUAL(json_array_size(r->json), 1);
    CU_ASSERT_STRING_EQUAL(http_str(r, "0.side"), "axis");
    http_free(r);
}

void register_error_tests(void)
{
    CU_pSuite s = CU_add_suite("errors", suite_init, NULL);
    CU_add_test(s, "create: every bad input is a 400 naming the field", test_create_refusals);
    CU_add_test(s, "actions: 401/403/404/409/412/422/400, nothing changed", test_action_refusals);
    CU_add_test(s, "keys: wrong, other campaign's, in the query string", test_keys);
    CU_add_test(s, "a body may name its own side", test_body_names_own_side);
    CU_add_test(s, "reserve choice refusals and exact debit", test_choice_refusals);
    CU_add_test(s, "reserve choice refusals name which die", test_choice_refusals_twins);
    CU_add_test(s, "If-Match / ETag / 304 (standing, battle, roll log, event log)", test_if_match);
    CU_add_test(s, "read refusals", test_read_refusals);
    CU_add_test(s, "strings stored and returned exactly", test_strings_exact);
    CU_add_test(s, "body over the cap", test_body_too_large);
}
