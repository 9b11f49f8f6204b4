/*
 * Dice integrity and keys at rest (API.md, "Dice integrity"): nobody can plant a seed through
 * an import, forge a server roll, pass an unverifiable campaign off as verified, or read a key
 * from the database. Each finding of the security review is played here as it was reproduced,
 * and must now be refused or harmless.
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static struct daemon other; /* a second m44d on its own database, where imports go */
static char *other_db;

static int suite_init(void)
{
    return other_daemon_start(&other, &other_db, "api_integrity");
}

static int suite_clean(void)
{
    return other_daemon_stop(&other, &other_db);
}

/* Rows in every table of a database. */
static long all_rows(const char *conninfo)
{
    return sql_long_on(conninfo,
                       "SELECT (SELECT count(*) FROM campaigns) + (SELECT count(*) FROM rolls) + "
                       "(SELECT count(*) FROM battles) + (SELECT count(*) FROM reserve_choices) + "
                       "(SELECT count(*) FROM event_log) + (SELECT count(*) FROM token_ledger) + "
                       "(SELECT count(*) FROM idempotency) + (SELECT count(*) FROM effects) + "
                       "(SELECT count(*) FROM seeds)");
}

static char *hex_of(const uint8_t *b, size_t n)
{
    char *h = malloc(2 * n + 1);
    sodium_bin2hex(h, 2 * n + 1, b, n);
    return h;
}

static void sha256_hex(const uint8_t *b, size_t n, char out[65])
{
    uint8_t h[32];
    crypto_hash_sha256(h, b, n);
    sodium_bin2hex(out, 65, h, 32);
}

/* A new campaign id the tests choose (imports keep the exported one). */
static void fresh_id(char out[40])
{
    uint8_t b[16];
    randombytes_buf(b, sizeof b);
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

static json_t *created(const char *ruleset, const char *dice)
{
    return json_pack("{s:s, s:{s:s, s:s, s:b, s:s, s:{s:i, s:i}, s:{s:s, s:s}, s:n}}", "action",
                     "campaign_created", "detail", "name", "crafted", "ruleset", ruleset, "what_if",
                     0, "dice", dice, "reserve_tokens", "allies", 2, "axis", 2, "players", "allies",
                     "Mallory", "axis", "Eve", "scenarios");
}

static json_t *battle_action(int n)
{
    return json_pack("{s:s, s:{s:i, s:s, s:s, s:{s:i, s:i}, s:i, s:n}}", "action", "battle_created",
                     "detail", "number", n, "scenario", "Crafted", "first_player", "allies",
                     "cards", "allies", 5, "axis", 5, "medals_to_win", 6, "commissar");
}

static json_t *roll_action(long n, const char *side, int battle, const char *source,
                           const char *client_seed, int epoch, const char *f0, const char *f1)
{
    json_t *d =
        json_pack("{s:I, s:s, s:s, s:i, s:s, s:[s,s]}", "n", (json_int_t)n, "side", side, "purpose",
                  "reserve", "battle", battle, "source", source, "faces", f0, f1);
    json_object_set_new(d, "client_seed", client_seed ? json_string(client_seed) : json_null());
    json_object_set_new(d, "seed_epoch", epoch ? json_integer(epoch) : json_null());
    return json_pack("{s:s, s:o}", "action", "roll", "detail", d);
}

/* An export document around `actions` (stolen), with one seed and the rolls of the actions. */
static json_t *document(const char *id, json_t *seed, json_t *actions)
{
    json_t *rolls = json_array();
    size_t i;
    json_t *a;
    json_array_foreach(actions, i,
                       a) if (strcmp(json_string_value(json_object_get(a, "action")), "roll") == 0)
        json_array_append(rolls, json_object_get(a, "detail"));
    return json_pack("{s:s, s:i, s:{s:s}, s:[o], s:o, s:o}", "format", "m44d-campaign-export",
                     "format_version", 1, "campaign", "id", id, "seeds", seed, "rolls", rolls,
                     "actions", actions);
}

static struct http_resp *import(json_t *doc)
{
    char *body = jstr(doc);
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, body, NULL);
    free(body);
    return r;
}

static void take_keys(const struct http_resp *r, struct camp *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", http_str(r, "id"));
    snprintf(c->key[ORGANIZER], sizeof c->key[0], "%s", http_str(r, "organizer_key"));
    snprintf(c->key[ALLIES], sizeof c->key[0], "%s", http_str(r, "allies_key"));
    snprintf(c->key[AXIS], sizeof c->key[0], "%s", http_str(r, "axis_key"));
    snprintf(c->commitment, sizeof c->commitment, "%s", http_str(r, "seed_commitment"));
}

static long status_of(struct http_resp *r)
{
    long s = r->status;
    if (s >= 400)
        fprintf(stderr, "\n%ld %s\n", s, r->body);
    http_free(r);
    return s;
}

/*
 * Finding 1 (high): an import planting a public seed S. The campaign must go on with a new
 * secret seed drawn by the server, and a roll after the import must verify against that seed,
 * not against S.
 */
static void test_planted_seed(void)
{
    uint8_t s[32];
    memset(s, 0x44, sizeof s); /* public: anyone reading this test knows it */
    char commitment[65], id[40];
    sha256_hex(s, sizeof s, commitment);
    char *hex = hex_of(s, sizeof s);
    fresh_id(id);
    json_t *seed =
        json_pack("{s:i, s:s, s:s}", "epoch", 1, "commitment", commitment, "server_seed", hex);
    json_t *doc = document(id, seed, json_pack("[o]", created("standard", "server")));
    struct http_resp *r = import(doc);
    json_decref(doc);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp c;
    take_keys(r, &c);
    http_free(r);
    CU_ASSERT_STRING_NOT_EQUAL(c.commitment, commitment);
    r = camp_get(&other, &c, "");
    CU_ASSERT_EQUAL(http_int(r, "seed_epoch"), 2);
    CU_ASSERT_STRING_EQUAL(http_str(r, "seed_commitment"), c.commitment);
    http_free(r);
    r = camp_get(&other, &c, "/log");
    bool logged = false;
    for (size_t i = 0; i < json_array_size(r->json); i++) {
        json_t *e = json_array_get(r->json, i);
        if (strcmp(json_string_value(json_object_get(e, "action")), "seed_rotated") == 0)
            logged = strcmp(json_string_value(
                                json_object_get(json_object_get(e, "detail"), "seed_commitment")),
                            c.commitment) == 0;
    }
    CU_ASSERT_TRUE(logged); /* the new commitment is in the log */
    http_free(r);
    /* A roll now, then the end: the roll verifies against the new seed, revealed at the end. */
    CU_ASSERT_EQUAL(
        status_of(camp_post(&other, &c, ORGANIZER, "/battles",
                            "{\"scenario\":\"After\",\"first_player\":\"allies\","
                            "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":6}")),
        201);
    r = camp_post(&other, &c, ALLIES, "/battles/1/reserve-roll", "{\"client_seed\":\"grind\"}");
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    const char *got[2] = {http_str(r, "faces.0"), http_str(r, "faces.1")};
    char f0[16], f1[16];
    snprintf(f0, sizeof f0, "%s", got[0]);
    snprintf(f1, sizeof f1, "%s", got[1]);
    long n = http_int(r, "roll");
    http_free(r);
    CU_ASSERT_EQUAL(status_of(camp_post(&other, &c, AXIS, "/battles/1/reserve-roll", "{}")), 201);
    CU_ASSERT_EQUAL(
        status_of(camp_post(&other, &c, ALLIES, "/battles/1/reserve-choice", "{\"options\":[]}")),
        200);
    CU_ASSERT_EQUAL(
        status_of(camp_post(&other, &c, AXIS, "/battles/1/reserve-choice", "{\"options\":[]}")),
        200);
    CU_ASSERT_EQUAL(status_of(camp_post(&other, &c, ORGANIZER, "/battles/1/result",
                                        "{\"winner\":\"allies\",\"medals\":{\"allies\":6,"
                                        "\"axis\":2}}")),
                    200);
    r = camp_post(&other, &c, ORGANIZER, "/finish", "{}");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    http_free(r);
    r = camp_get(&other, &c, "");
    json_t *seeds = http_json_at(r, "seeds");
    CU_ASSERT_EQUAL(json_array_size(seeds), 2);
    const char *new_hex =
        json_string_value(json_object_get(json_array_get(seeds, 1), "server_seed"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(new_hex);
    uint8_t fresh[32];
    size_t len = 0;
    CU_ASSERT_EQUAL(sodium_hex2bin(fresh, 32, new_hex, strlen(new_hex), NULL, &len, NULL), 0);
    char fresh_commitment[65];
    sha256_hex(fresh, 32, fresh_commitment);
    CU_ASSERT_STRING_EQUAL(fresh_commitment, c.commitment);
    const char *want[2];
    derive_faces(fresh, c.id, n, "grind", 2, want);
    CU_ASSERT_STRING_EQUAL(want[0], f0);
    CU_ASSERT_STRING_EQUAL(want[1], f1);
    http_free(r);
    free(hex);
}

/* Defence in depth: the roll path itself refuses a seed that is not a secret it holds, however
 * the campaign came to have one. Each case is set up in SQL; the roll gets 409, nothing
 * written. */
static void test_roll_refuses_public_seed(void)
{
    static const char *const spoil[] = {
        "revealed_at = now()",
        "origin = 'import'",
        "seed = NULL, origin = 'import'",
    };
    for (size_t k = 0; k < sizeof spoil / sizeof spoil[0]; k++) {
        struct camp c;
        CU_ASSERT_FATAL(camp_create(&api_daemon,
                                    "{\"name\":\"spoilt seed\",\"ruleset\":\"standard\","
                                    "\"dice\":\"either\"}",
                                    &c));
        CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                                            "{\"scenario\":\"A\",\"first_player\":\"allies\","
                                            "\"cards\":{\"allies\":5,\"axis\":5},"
                                            "\"medals_to_win\":6}")),
                        201);
        /* With the version moved, as every change to a campaign moves it: a daemon holding
         * the campaign in memory reads it again. */
        char sql[384];
        snprintf(sql, sizeof sql,
                 "UPDATE seeds SET %s WHERE campaign_id = '%s'; "
                 "UPDATE campaigns SET version = version + 1 WHERE id = '%s'",
                 spoil[k], c.id, c.id);
        CU_ASSERT_TRUE(sql_exec_on(api_conninfo, sql));
        long before = all_rows(api_conninfo), version = camp_version(&api_daemon, &c);
        struct http_resp *r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll", "{}");
        assert_problem(r, 409, "seed-not-secret");
        http_free(r);
        CU_ASSERT_EQUAL(all_rows(api_conninfo), before);
        CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), version);
        /* Dice rolled at the table need no seed. */
        CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                                            "{\"faces\":[\"star\",\"flag\"]}")),
                        201);
        /* A rotation draws a new secret seed, and the server rolls again. */
        CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, &c, ORGANIZER, "/rotate-seed", "{}")),
                        200);
        CU_ASSERT_EQUAL(
            status_of(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-roll", "{}")), 201);
    }
}

/* A real finished export, to be tampered with. */
static char *finished_export(struct camp *c)
{
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"to forge\",\"ruleset\":\"standard\",\"dice\":"
                                "\"either\",\"reserve_tokens\":{\"allies\":2,\"axis\":2}}",
                                c));
    CU_ASSERT_EQUAL(
        status_of(camp_post(&api_daemon, c, ORGANIZER, "/battles",
                            "{\"scenario\":\"A\",\"first_player\":\"allies\","
                            "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":6}")),
        201);
    CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, c, ALLIES, "/battles/1/reserve-roll",
                                        "{\"client_seed\":\"x\"}")),
                    201);
    CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, c, AXIS, "/battles/1/reserve-roll",
                                        "{\"faces\":[\"flag\",\"flag\"]}")),
                    201);
    CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, c, ALLIES, "/battles/1/reserve-choice",
                                        "{\"options\":[]}")),
                    200);
    CU_ASSERT_EQUAL(
        status_of(camp_post(&api_daemon, c, AXIS, "/battles/1/reserve-choice", "{\"options\":[]}")),
        200);
    CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, c, ORGANIZER, "/battles/1/result",
                                        "{\"winner\":\"axis\",\"medals\":{\"allies\":2,"
                                        "\"axis\":6}}")),
                    200);
    CU_ASSERT_EQUAL(status_of(camp_post(&api_daemon, c, ORGANIZER, "/finish", "{}")), 200);
    struct http_resp *r = camp_get(&api_daemon, c, "/export");
    char *text = strdup(r->body);
    http_free(r);
    return text;
}

/* The index, in "actions", of the first roll with this source. */
static int action_of_roll(json_t *doc, const char *source)
{
    json_t *actions = json_object_get(doc, "actions");
    for (size_t i = 0; i < json_array_size(actions); i++) {
        json_t *a = json_array_get(actions, i);
        json_t *d = json_object_get(a, "detail");
        if (strcmp(json_string_value(json_object_get(a, "action")), "roll") == 0 &&
            strcmp(json_string_value(json_object_get(d, "source")), source) == 0)
            return (int)i;
    }
    return -1;
}

static void set_everywhere(json_t *doc, int action, const char *key, json_t *value)
{
    json_t *d =
        json_object_get(json_array_get(json_object_get(doc, "actions"), (size_t)action), "detail");
    long n = (long)json_integer_value(json_object_get(d, "n"));
    json_object_set(d, key, value);
    json_t *roll = json_array_get(json_object_get(doc, "rolls"), (size_t)n - 1);
    json_object_set(roll, key, value);
    json_decref(value);
}

/* Refused with 400 and the field, nothing written in the database the import went to. */
static void refused(json_t *doc, const char *field, const char *why)
{
    long before = all_rows(other_db);
    struct http_resp *r = import(doc);
    if (r->status != 400 || strcmp(http_str(r, "field"), field) != 0)
        fprintf(stderr, "\n%s: expected 400 naming %s, got %ld %s\n", why, field, r->status,
                r->body);
    assert_problem(r, 400, "invalid-field");
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), field);
    http_free(r);
    CU_ASSERT_EQUAL(all_rows(other_db), before);
}

/* Finding 2 (medium): forged history. */
static void test_forged_rolls(void)
{
    struct camp c;
    char *text = finished_export(&c);
    char field[32];
    /* A server roll whose faces contradict the revealed seed. */
    json_t *doc = json_loads(text, 0, NULL);
    int a = action_of_roll(doc, "server");
    CU_ASSERT_FATAL(a > 0);
    json_t *d =
        json_object_get(json_array_get(json_object_get(doc, "actions"), (size_t)a), "detail");
    const char *f0 = json_string_value(json_array_get(json_object_get(d, "faces"), 0));
    set_everywhere(doc, a, "faces",
                   json_pack("[s,s]", strcmp(f0, "star") ? "star" : "flag", "star"));
    snprintf(field, sizeof field, "actions[%d]", a);
    refused(doc, field, "a forged server roll");
    json_decref(doc);
    /* A server roll with a die left out: its faces are the start of what the seed gives, so
     * each matches; the number of dice does not (RULES.md 3: two). */
    doc = json_loads(text, 0, NULL);
    d = json_object_get(json_array_get(json_object_get(doc, "actions"), (size_t)a), "detail");
    set_everywhere(doc, a, "faces",
                   json_pack("[O]", json_array_get(json_object_get(d, "faces"), 0)));
    refused(doc, field, "a server roll with a die left out");
    json_decref(doc);
    /* A roll claiming a seed the campaign has not reached. */
    doc = json_loads(text, 0, NULL);
    set_everywhere(doc, a, "seed_epoch", json_integer(2));
    refused(doc, field, "a future seed epoch");
    json_decref(doc);
    /* "server" rolls in a table campaign, and table rolls in a server campaign. */
    doc = json_loads(text, 0, NULL);
    json_object_set_new(
        json_object_get(json_array_get(json_object_get(doc, "actions"), 0), "detail"), "dice",
        json_string("table"));
    refused(doc, field, "a server roll in a table campaign");
    json_object_set_new(
        json_object_get(json_array_get(json_object_get(doc, "actions"), 0), "detail"), "dice",
        json_string("server"));
    snprintf(field, sizeof field, "actions[%d]", action_of_roll(doc, "table"));
    refused(doc, field, "a table roll in a server campaign");
    json_decref(doc);
    /* Anything after the end. */
    doc = json_loads(text, 0, NULL);
    json_t *actions = json_object_get(doc, "actions");
    size_t last = json_array_size(actions);
    json_array_append_new(actions, json_pack("{s:s, s:{s:i, s:i}}", "action", "seed_rotated",
                                             "detail", "revealed_epoch", 1, "epoch", 2));
    snprintf(field, sizeof field, "actions[%zu]", last);
    refused(doc, field, "an action after finished");
    json_decref(doc);
    /* The rolls m44 verify reads must be the rolls the actions replay. */
    doc = json_loads(text, 0, NULL);
    json_t *roll0 = json_array_get(json_object_get(doc, "rolls"), 0);
    json_object_set_new(roll0, "client_seed", json_string("not the one used"));
    refused(doc, "rolls[0]", "rolls that differ from the actions");
    json_decref(doc);
    doc = json_loads(text, 0, NULL);
    json_t *rolls = json_object_get(doc, "rolls");
    size_t nrolls = json_array_size(rolls);
    json_array_append_new(rolls, json_deep_copy(json_array_get(rolls, nrolls - 1)));
    snprintf(field, sizeof field, "rolls[%zu]", nrolls);
    refused(doc, field, "a roll listed that no action made");
    json_decref(doc);
    /* An unfinished campaign goes on with a seed of its own: a list that leaves no room for it
     * is refused, not cut short. */
    char id[40];
    fresh_id(id);
    json_t *seeds = json_array();
    for (int i = 1; i <= 32; i++) {
        uint8_t s[32];
        char commitment[65];
        randombytes_buf(s, sizeof s);
        sha256_hex(s, sizeof s, commitment);
        json_array_append_new(seeds, json_pack("{s:i, s:s, s:n}", "epoch", i, "commitment",
                                               commitment, "server_seed"));
    }
    doc = document(id, json_array_get(seeds, 0),
                   json_pack("[o, o]", created("standard", "server"), battle_action(1)));
    json_incref(json_array_get(seeds, 0));
    json_object_set_new(doc, "seeds", seeds);
    refused(doc, "seeds", "32 seeds and no room for a new one");
    json_decref(doc);
    /* The campaign's id must be a UUID; a UUID in capitals is the same campaign. */
    doc = json_loads(text, 0, NULL);
    json_object_set_new(json_object_get(doc, "campaign"), "id",
                        json_string("not-a-uuid-not-a-uuid-not-a-uuid-123"));
    refused(doc, "campaign.id", "an id that is no UUID");
    json_decref(doc);
    doc = json_loads(text, 0, NULL);
    char upper[40];
    snprintf(upper, sizeof upper, "%s", c.id);
    for (char *p = upper; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'f' ? *p - 'a' + 'A' : *p);
    json_object_set_new(json_object_get(doc, "campaign"), "id", json_string(upper));
    struct http_resp *r = import(doc);
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_STRING_EQUAL(http_str(r, "id"), c.id);
    char want[128];
    snprintf(want, sizeof want, "/c/%s#key=", c.id);
    CU_ASSERT_NSTRING_EQUAL(http_str(r, "links.allies"), want, strlen(want));
    http_free(r);
    r = camp_get(&other, &c, ""); /* its links work */
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    json_decref(doc);
    free(text);
}

/* Fields the import does not understand are not stored. */
static void test_only_known_fields_stored(void)
{
    struct camp c;
    char *text = finished_export(&c);
    json_t *doc = json_loads(text, 0, NULL);
    free(text);
    json_t *actions = json_object_get(doc, "actions");
    for (size_t i = 0; i < json_array_size(actions); i++)
        json_object_set_new(json_object_get(json_array_get(actions, i), "detail"), "smuggled",
                            json_string("<script>payload</script>"));
    struct http_resp *r = import(doc);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    json_decref(doc);
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM event_log WHERE campaign_id = '%s' AND detail::text LIKE "
             "'%%smuggled%%'",
             c.id);
    CU_ASSERT_EQUAL(sql_long_on(other_db, sql), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM event_log WHERE campaign_id = '%s'", c.id);
    CU_ASSERT(sql_long_on(other_db, sql) > 5);
}

/*
 * Finding 2, second half: a seed with an arbitrary commitment and no value, and "server" rolls
 * with chosen faces. They cannot be checked, so they are taken; but nothing may call them
 * verified: m44 verify exits non-zero and says so, and the finished campaign never shows that
 * seed as revealed.
 */
static void test_unverifiable_is_not_verified(void)
{
    char id[40];
    fresh_id(id);
    json_t *seed = json_pack("{s:i, s:s}", "epoch", 1, "commitment",
                             "1111111111111111111111111111111111111111111111111111111111111111");
    json_t *actions = json_pack(
        "[o, o, o, o, {s:s, s:{s:i, s:s, s:[]}}, {s:s, s:{s:i, s:s, s:[]}}, "
        "{s:s, s:{s:i, s:s, s:{s:i, s:i}}}]",
        created("standard", "server"), battle_action(1),
        roll_action(1, "allies", 1, "server", "", 1, "star", "star"),
        roll_action(2, "axis", 1, "server", "", 1, "flag", "flag"), "action", "reserve_choice",
        "detail", "battle", 1, "side", "allies", "options", "action", "reserve_choice", "detail",
        "battle", 1, "side", "axis", "options", "action", "result", "detail", "battle", 1, "winner",
        "allies", "medals", "allies", 6, "axis", 0);
    json_t *doc = document(id, seed, actions);
    struct http_resp *r = import(doc);
    json_decref(doc);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp c;
    take_keys(r, &c);
    http_free(r);
    CU_ASSERT_EQUAL(status_of(camp_post(&other, &c, ORGANIZER, "/finish", "{}")), 200);
    r = camp_get(&other, &c, "");
    json_t *s0 = json_array_get(http_json_at(r, "seeds"), 0);
    CU_ASSERT_TRUE(json_is_null(json_object_get(s0, "revealed_at")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(s0, "server_seed")));
    http_free(r);
    r = camp_get(&other, &c, "/export");
    char *out;
    int st = m44_verify(r->body, &out);
    http_free(r);
    CU_ASSERT_EQUAL(st, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "NOT VERIFIED"));
    CU_ASSERT_PTR_NULL(strstr(out, "VERIFIED: every"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "0 server roll(s) verified"));
}

/* Finding 3 (medium): keys in plain text. After creations and an import with Idempotency-Keys
 * (and their replays), no column of any table holds a key, in any spelling. */
static void test_no_key_at_rest(void)
{
    char keys[12][64];
    int nkeys = 0;
    for (int i = 0; i < 2; i++) {
        char idem[128];
        snprintf(idem, sizeof idem, "Idempotency-Key: create-%d-%ld-%032d", i,
                 (long)randombytes_random(), 0);
        const char *h[] = {idem, NULL};
        const char *body = "{\"name\":\"keys at rest\",\"ruleset\":\"standard\"}";
        struct http_resp *a = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
        struct http_resp *b = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
        CU_ASSERT_EQUAL(a->status, 201);
        CU_ASSERT_EQUAL(b->status, 201);
        /* The replay is the first response, byte for byte, keys and all. */
        CU_ASSERT_EQUAL(a->len, b->len);
        CU_ASSERT(a->body && b->body && memcmp(a->body, b->body, a->len) == 0);
        char replayed[16];
        CU_ASSERT_PTR_NOT_NULL(http_header(b, "Idempotent-Replayed", replayed, sizeof replayed));
        for (int k = 0; k < 3; k++)
            snprintf(keys[nkeys++], sizeof keys[0], "%s",
                     http_str(a, k == 0   ? "organizer_key"
                                 : k == 1 ? "allies_key"
                                          : "axis_key"));
        http_free(a);
        http_free(b);
    }
    /* An import with a key: its new keys must not be kept either. */
    struct camp c;
    char *text = finished_export(&c);
    const char *h[] = {"Idempotency-Key: import-key-at-rest-0123456789abcdef", NULL};
    struct http_resp *r = api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, text, h);
    CU_ASSERT_EQUAL(r->status, 201);
    for (int k = 0; k < 3; k++)
        snprintf(keys[nkeys++], sizeof keys[0], "%s",
                 http_str(r, k == 0   ? "organizer_key"
                             : k == 1 ? "allies_key"
                                      : "axis_key"));
    http_free(r);
    free(text);
    CU_ASSERT_EQUAL(sql_long_on(other_db, "SELECT count(*) FROM idempotency"), 1);
    /* Every column of every table, as text; bytea columns also as the hex of the key's text
     * and of its 32 raw bytes. */
    const char *dbs[2] = {api_conninfo, other_db};
    for (int d = 0; d < 2; d++) {
        PGconn *conn = PQconnectdb(dbs[d]);
        PGresult *cols =
            PQexec(conn, "SELECT table_name, column_name FROM information_schema.columns "
                         "WHERE table_schema = 'public'");
        CU_ASSERT_EQUAL_FATAL(PQresultStatus(cols), PGRES_TUPLES_OK);
        CU_ASSERT(PQntuples(cols) > 40);
        for (int k = 0; k < nkeys; k++) {
            CU_ASSERT_EQUAL_FATAL(strlen(keys[k]), 43);
            uint8_t raw[32];
            size_t len = 0;
            CU_ASSERT_EQUAL(sodium_base642bin(raw, sizeof raw, keys[k], strlen(keys[k]), NULL, &len,
                                              NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING),
                            0);
            char raw_hex[65], text_hex[87];
            sodium_bin2hex(raw_hex, sizeof raw_hex, raw, 32);
            sodium_bin2hex(text_hex, sizeof text_hex, (const unsigned char *)keys[k], 43);
            for (int i = 0; i < PQntuples(cols); i++) {
                char sql[512];
                snprintf(sql, sizeof sql,
                         "SELECT count(*) FROM \"%s\" WHERE position($1 in \"%s\"::text) > 0 OR "
                         "position($2 in \"%s\"::text) > 0 OR position($3 in \"%s\"::text) > 0",
                         PQgetvalue(cols, i, 0), PQgetvalue(cols, i, 1), PQgetvalue(cols, i, 1),
                         PQgetvalue(cols, i, 1));
                const char *params[] = {keys[k], raw_hex, text_hex};
                PGresult *hit = PQexecParams(conn, sql, 3, NULL, params, NULL, NULL, 0);
                bool clean = PQresultStatus(hit) == PGRES_TUPLES_OK &&
                             strcmp(PQgetvalue(hit, 0, 0), "0") == 0;
                if (!clean)
                    fprintf(stderr, "\na key is in %s.%s: %s\n", PQgetvalue(cols, i, 0),
                            PQgetvalue(cols, i, 1), PQerrorMessage(conn));
                CU_ASSERT_TRUE(clean);
                PQclear(hit);
            }
        }
        PQclear(cols);
        PQfinish(conn);
    }
}

/* Creation's Idempotency-Keys are scoped by client: the same key and body from another address
 * is another request, not a replay of someone else's keys. */
static void test_creation_scoped_by_client(void)
{
    const char *h[] = {"Idempotency-Key: the-same-key-for-two-clients-0123456", NULL};
    const char *body = "{\"name\":\"two clients\",\"ruleset\":\"standard\"}";
    struct http_resp *a = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
    http_set_source("127.0.0.2");
    struct http_resp *b = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
    http_set_source(NULL);
    CU_ASSERT_EQUAL(a->status, 201);
    CU_ASSERT_EQUAL(b->status, 201);
    CU_ASSERT_STRING_NOT_EQUAL(http_str(a, "id"), http_str(b, "id"));
    CU_ASSERT_STRING_NOT_EQUAL(http_str(a, "organizer_key"), http_str(b, "organizer_key"));
    char replayed[16];
    CU_ASSERT_PTR_NULL(http_header(b, "Idempotent-Replayed", replayed, sizeof replayed));
    http_free(a);
    http_free(b);
}

/* Stored responses expire (--idempotency-ttl): swept from the table, and a repeat after that
 * is a new request. */
static void test_idempotency_expiry(void)
{
    struct daemon d;
    char *db = tk_new_database("api_expiry");
    /* 5 s: long enough that the row is still there when the reply is in, under valgrind too */
    const char *args[] = {"--idempotency-ttl", "5", NULL};
    CU_ASSERT_FATAL(daemon_start(&d, db, args));
    const char *h[] = {"Idempotency-Key: expires-soon-0123456789abcdef0123456", NULL};
    const char *body = "{\"name\":\"expiry\",\"ruleset\":\"standard\"}";
    struct http_resp *a = api(&d, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
    CU_ASSERT_EQUAL(a->status, 201);
    CU_ASSERT_EQUAL(sql_long_on(db, "SELECT count(*) FROM idempotency"), 1);
    for (int i = 0; i < 300 && daemon_metric(&d, "m44d_idempotency_expired_total") < 1; i++)
        tk_sleep_ms(100);
    CU_ASSERT_EQUAL(daemon_metric(&d, "m44d_idempotency_expired_total"), 1);
    CU_ASSERT_EQUAL(sql_long_on(db, "SELECT count(*) FROM idempotency"), 0);
    struct http_resp *b = api(&d, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
    CU_ASSERT_EQUAL(b->status, 201);
    CU_ASSERT_STRING_NOT_EQUAL(http_str(a, "id"), http_str(b, "id"));
    http_free(a);
    http_free(b);
    CU_ASSERT_EQUAL(daemon_stop(&d, SIGTERM, 30), 0);
    free(db);
}

struct race {
    const char *body;
    long status;
    char code[64];
};

static void *race_import(void *arg)
{
    struct race *x = arg;
    struct http_resp *r =
        api(&other, "POST", "/api/v1/campaigns/import", NULL, ANYONE, x->body, NULL);
    x->status = r->status;
    snprintf(x->code, sizeof x->code, "%s", http_str(r, "code"));
    http_free(r);
    return NULL;
}

/* Low finding: eight imports of one new id at once gave 201, 409s and 500s. */
static void test_racing_imports(void)
{
    struct camp c;
    char *text = finished_export(&c);
    struct race x[8];
    pthread_t t[8];
    for (int i = 0; i < 8; i++) {
        x[i] = (struct race){.body = text};
        pthread_create(&t[i], NULL, race_import, &x[i]);
    }
    int created = 0, exists = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        created += x[i].status == 201;
        exists += x[i].status == 409 && strcmp(x[i].code, "campaign-exists") == 0;
    }
    CU_ASSERT_EQUAL(created, 1);
    CU_ASSERT_EQUAL(exists, 7);
    free(text);
}

void register_integrity_tests(void)
{
    CU_pSuite s = CU_add_suite("dice integrity and keys at rest", suite_init, suite_clean);
    CU_add_test(s, "a planted public seed: the campaign goes on with a new secret one",
                test_planted_seed);
    CU_add_test(s, "the roll path refuses a seed that is not a secret it holds",
                test_roll_refuses_public_seed);
    CU_add_test(s, "forged rolls, epochs, sources, ids: refused, nothing written",
                test_forged_rolls);
    CU_add_test(s, "only the fields an import understands are stored",
                test_only_known_fields_stored);
    CU_add_test(s, "unverifiable rolls are never called verified",
                test_unverifiable_is_not_verified);
    CU_add_test(s, "no key at rest in any column; replays still byte for byte",
                test_no_key_at_rest);
    CU_add_test(s, "creation's Idempotency-Keys are scoped by client",
                test_creation_scoped_by_client);
    CU_add_test(s, "stored responses expire", test_idempotency_expiry);
    CU_add_test(s, "racing imports of one id: one 201, the rest 409", test_racing_imports);
}
