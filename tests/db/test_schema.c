/* The schema's own checks: every constrained column takes a good value and refuses a bad one
 * with check_violation (23514), also in a database upgraded with rows in it. */
#include "db/db.h"
#include "db/migrate.h"
#include "tests/common/testkit.h"
#include "tests/db/fixture.h"
#include "util/embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID  "00000000-0000-4000-8000-00000000c0de"
#define ID2 "00000000-0000-4000-8000-00000000c0df"
#define BATTLE                                                                                     \
    "INSERT INTO battles (campaign_id, number, scenario, first_player, cards_allies, cards_axis, " \
    "medals_to_win, phase) VALUES ('" ID "', 1, 'Pegasus Bridge', 'allies', 5, 5, 6, 'setup')"

/* A statement with one value left open (the %s in it), a value it must take and one it must
 * refuse; `setup` runs first in the same transaction. */
struct check_case {
    const char *what, *setup, *sql, *good, *bad;
};

static const struct check_case cases[] = {
    {"campaign dice", NULL, "UPDATE campaigns SET dice = %s WHERE id = '" ID "'", "'either'",
     "'dice'"},
    {"campaign status", NULL, "UPDATE campaigns SET status = %s WHERE id = '" ID "'", "'finished'",
     "'paused'"},
    {"campaign next_roll", NULL, "UPDATE campaigns SET next_roll = %s WHERE id = '" ID "'", "1",
     "0"},
    {"campaign tokens_allies", NULL, "UPDATE campaigns SET tokens_allies = %s WHERE id = '" ID "'",
     "0", "-1"},
    {"campaign tokens_axis", NULL, "UPDATE campaigns SET tokens_axis = %s WHERE id = '" ID "'", "0",
     "-1"},
    {"campaign winner", NULL, "UPDATE campaigns SET winner = %s WHERE id = '" ID "'", "'axis'",
     "'nobody'"},
    {"battle number", BATTLE, "UPDATE battles SET number = %s WHERE campaign_id = '" ID "'", "2",
     "0"},
    {"battle first_player", BATTLE,
     "UPDATE battles SET first_player = %s WHERE campaign_id = '" ID "'", "'axis'", "'both'"},
    {"battle commissar", BATTLE, "UPDATE battles SET commissar = %s WHERE campaign_id = '" ID "'",
     "'allies'", "'ALLIES'"},
    {"battle phase", BATTLE, "UPDATE battles SET phase = %s WHERE campaign_id = '" ID "'",
     "'reserves'", "'reserve'"},
    {"battle winner", BATTLE, "UPDATE battles SET winner = %s WHERE campaign_id = '" ID "'",
     "'allies'", "''"},
    {"roll n", NULL,
     "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) "
     "VALUES ('" ID "', %s, 'allies', 'reserve', 1, 'table', '{star}')",
     "1", "0"},
    {"roll side", NULL,
     "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) "
     "VALUES ('" ID "', 1, %s, 'reserve', 1, 'table', '{star}')",
     "'axis'", "'allies '"},
    {"roll purpose", NULL,
     "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) "
     "VALUES ('" ID "', 1, 'axis', %s, 0, 'table', '{star}')",
     "'what_if'", "'what-if'"},
    {"roll purpose pre_battle", NULL,
     "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) "
     "VALUES ('" ID "', 1, 'axis', %s, 1, 'table', '{star}')",
     "'pre_battle'", "'pre-battle'"},
    {"held id", NULL,
     "INSERT INTO holdings (campaign_id, id, side, grant_id, battle) "
     "VALUES ('" ID "', %s, 'allies', 'air-power', 1)",
     "1", "0"},
    {"held side", NULL,
     "INSERT INTO holdings (campaign_id, id, side, grant_id, battle) "
     "VALUES ('" ID "', 1, %s, 'air-power', 1)",
     "'axis'", "'japan'"},
    {"held battle", NULL,
     "INSERT INTO holdings (campaign_id, id, side, grant_id, battle) "
     "VALUES ('" ID "', 1, 'allies', 'air-power', %s)",
     "2", "0"},
    {"held state", NULL,
     "INSERT INTO holdings (campaign_id, id, side, grant_id, battle, state) "
     "VALUES ('" ID "', 1, 'allies', 'air-power', 1, %s)",
     "'used'", "'spent'"},
    {"effect picked_battle", NULL,
     "INSERT INTO effects (campaign_id, event_id, rolled_by, data, picked_battle) "
     "VALUES ('" ID "', 'night-attacks', '{axis}', '{}', %s)",
     "2", "0"},
    {"roll source", NULL,
     "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) "
     "VALUES ('" ID "', 1, 'axis', 'reserve', 1, %s, '{star}')",
     "'table'", "'dice'"},
    {"roll seed epoch with its source", NULL,
     "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, seed_epoch, faces) "
     "VALUES ('" ID "', 1, 'axis', 'reserve', 1, 'server', %s, '{star}')",
     "1", "NULL"},
    {"choice side", BATTLE,
     "INSERT INTO reserve_choices (campaign_id, battle, side, chosen, cost, tokens_after) "
     "VALUES ('" ID "', 1, %s, '[]', 0, 3)",
     "'allies'", "'neither'"},
    {"choice cost", BATTLE,
     "INSERT INTO reserve_choices (campaign_id, battle, side, chosen, cost, tokens_after) "
     "VALUES ('" ID "', 1, 'axis', '[]', %s, 3)",
     "0", "-1"},
    {"choice tokens_after", BATTLE,
     "INSERT INTO reserve_choices (campaign_id, battle, side, chosen, cost, tokens_after) "
     "VALUES ('" ID "', 1, 'axis', '[]', 1, %s)",
     "0", "-2"},
    {"ledger side", NULL,
     "INSERT INTO token_ledger (campaign_id, side, delta, balance, reason) "
     "VALUES ('" ID "', %s, 1, 4, 'test')",
     "'axis'", "'x'"},
    {"ledger balance", NULL,
     "INSERT INTO token_ledger (campaign_id, side, delta, balance, reason) "
     "VALUES ('" ID "', 'axis', -4, %s, 'test')",
     "0", "-1"},
    {"event log actor", NULL,
     "INSERT INTO event_log (campaign_id, actor, action) VALUES ('" ID "', %s, 'test')", "'system'",
     "'admin'"},
    {"seed origin", NULL,
     "INSERT INTO seeds (campaign_id, epoch, commitment, origin) VALUES ('" ID "', 9, 'c', %s)",
     "'import'", "'document'"},
    {"grand keys re-issued before its first campaign",
     "INSERT INTO grand_campaigns (id, name, grand_ruleset, what_if, dice, player_allies, "
     "player_axis, organizer_key_hash, allies_key_hash, axis_key_hash) VALUES ('" ID2 "', 'g', "
     "'island-hoppers-grand', false, 'table', '', '', '\\x00', '\\x00', '\\x00')",
     "UPDATE grand_campaigns SET keys_reissued = %s WHERE id = '" ID2 "'",
     "'[{\"role\":\"allies\",\"at\":\"2026-11-25T07:00:00Z\"}]'", "'{}'"},
};

/* Runs setup and the statement with `value` in a transaction that is then rolled back, and
 * puts the statement's SQLSTATE in `state` ("" when it succeeded). */
static void try_value(PGconn *c, const struct check_case *k, const char *value, char *state,
                      size_t len)
{
    char sql[1024];
    const char *hole = strstr(k->sql, "%s");
    snprintf(sql, sizeof sql, "%.*s%s%s", (int)(hole - k->sql), k->sql, value, hole + 2);
    PQclear(PQexec(c, "BEGIN"));
    if (k->setup)
        PQclear(PQexec(c, k->setup));
    PGresult *r = PQexec(c, sql);
    const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    snprintf(state, len, "%s", s ? s : "");
    PQclear(r);
    PQclear(PQexec(c, "ROLLBACK"));
}

static void check_all(const char *conninfo)
{
    PGconn *c = PQconnectdb(conninfo);
    CU_ASSERT_EQUAL_FATAL(PQstatus(c), CONNECTION_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char good[8], bad[8];
        try_value(c, &cases[i], cases[i].good, good, sizeof good);
        try_value(c, &cases[i], cases[i].bad, bad, sizeof bad);
        if (strcmp(good, "") != 0 || strcmp(bad, "23514") != 0)
            fprintf(stderr, "  %s: good value gave '%s', bad value '%s' (want '', '23514')\n",
                    cases[i].what, good, bad);
        CU_ASSERT_STRING_EQUAL(good, "");
        CU_ASSERT_STRING_EQUAL(bad, "23514");
    }
    PQfinish(c);
}

static void test_checks(void)
{
    char *ci = fixture_campaign("schema", ID);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ci);
    check_all(ci);
    fixture_end(&ci);
}

/* The SQLSTATE of `sql` on `c` ("" when it succeeded). */
static void state_of(PGconn *c, const char *sql, char *state, size_t len)
{
    PGresult *r = PQexec(c, sql);
    const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    snprintf(state, len, "%s", s ? s : "");
    PQclear(r);
}

/* Rolls are append-only (RULES.md 1: the roll log): the one change allowed is voiding a table
 * roll (an undo, API.md), once; a server roll is never voided, and a voided roll's purpose may
 * be rolled again without its number being reused. */
static void test_rolls_append_only(void)
{
    char *ci = fixture_campaign("schema_rolls", ID);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ci);
    PGconn *c = PQconnectdb(ci);
    CU_ASSERT_EQUAL_FATAL(PQstatus(c), CONNECTION_OK);
    CU_ASSERT_FATAL(fixture_sql(
        c, "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, seed_epoch, faces) "
           "VALUES ('" ID "', 1, 'allies', 'reserve', 1, 'server', 1, '{star,flag}'), "
           "('" ID "', 2, 'axis', 'reserve', 1, 'table', NULL, '{star,star}')"));
    static const struct {
        const char *what, *sql, *state;
    } steps[] = {
        {"a server roll voided", "UPDATE rolls SET voided = true WHERE n = 1", "P0001"},
        {"a server roll changed", "UPDATE rolls SET faces = '{star,star}' WHERE n = 1", "P0001"},
        {"a roll deleted", "DELETE FROM rolls WHERE n = 2", "P0001"},
        {"a table roll voided and changed",
         "UPDATE rolls SET voided = true, faces = '{flag,flag}' WHERE n = 2", "P0001"},
        {"the same roll again while the first stands",
         "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) VALUES ('" ID
         "', 3, 'axis', 'reserve', 1, 'table', '{flag,flag}')",
         "23505"},
        {"a table roll voided", "UPDATE rolls SET voided = true WHERE n = 2", ""},
        {"a voided roll unvoided", "UPDATE rolls SET voided = false WHERE n = 2", "P0001"},
        {"the roll entered again, with a new number",
         "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) VALUES ('" ID
         "', 3, 'axis', 'reserve', 1, 'table', '{flag,flag}')",
         ""},
        {"a number used again",
         "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, faces) VALUES ('" ID
         "', 2, 'axis', 'victory_events', 2, 'table', '{flag,flag}')",
         "23505"},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        char state[8];
        state_of(c, steps[i].sql, state, sizeof state);
        if (strcmp(state, steps[i].state) != 0)
            fprintf(stderr, "  %s: SQLSTATE '%s', want '%s'\n", steps[i].what, state,
                    steps[i].state);
        CU_ASSERT_STRING_EQUAL(state, steps[i].state);
    }
    PQfinish(c);
    fixture_end(&ci);
}

/* A database left at 0002 with rows in every constrained table, as a deployment before 0003
 * has it: migrating keeps every row and value, and the checks hold afterwards. */
static void test_upgrade_with_rows(void)
{
    char *ci = tk_new_database("schema_upgrade");
    PGconn *c = PQconnectdb(ci);
    CU_ASSERT_EQUAL_FATAL(PQstatus(c), CONNECTION_OK);
    /* As db/migrate.c creates it; it creates it only if it is missing. */
    CU_ASSERT_FATAL(
        fixture_sql(c, "CREATE TABLE schema_migrations (version int PRIMARY KEY, name text "
                       "NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"));
    int later = 0; /* the migrations after 0002, which db_migrate must apply */
    for (const struct embedded_file *f = embedded_migrations; f->name; f++) {
        long version = atol(f->name);
        if (version > 2) {
            later++;
            continue;
        }
        CU_ASSERT_FATAL(fixture_sql(c, (const char *)f->data));
        char rec[200];
        snprintf(rec, sizeof rec,
                 "INSERT INTO schema_migrations (version, name) VALUES (%ld, '%s')", version,
                 f->name);
        CU_ASSERT_FATAL(fixture_sql(c, rec));
    }
    const char *rows[] = {
        "INSERT INTO campaigns (id, name, ruleset, what_if, dice, player_allies, player_axis, "
        "tokens_allies, tokens_axis, organizer_key_hash, allies_key_hash, axis_key_hash, winner, "
        "status, next_roll) VALUES ('" ID2 "', 'Overlord', 'standard', false, 'either', 'A', 'B', "
        "0, 5, '\\x00', '\\x01', '\\x02', 'axis', 'finished', 3)",
        "INSERT INTO battles (campaign_id, number, scenario, first_player, cards_allies, "
        "cards_axis, medals_to_win, phase) VALUES ('" ID2
        "', 1, 'Omaha', 'axis', 5, 5, 6, 'setup')",
        "UPDATE battles SET commissar = 'axis', winner = 'allies', phase = 'finished'",
        "INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, seed_epoch, faces) "
        "VALUES ('" ID2 "', 1, 'allies', 'reserve', 1, 'server', 1, '{star,grenade}'), "
        "('" ID2 "', 2, 'axis', 'what_if', 0, 'table', NULL, '{infantry}')",
        "INSERT INTO reserve_choices (campaign_id, battle, side, chosen, cost, tokens_after) "
        "VALUES ('" ID2 "', 1, 'allies', '[]', 2, 0)",
        "INSERT INTO token_ledger (campaign_id, side, delta, balance, reason) "
        "VALUES ('" ID2 "', 'allies', -2, 0, 'reserve')",
        "INSERT INTO event_log (campaign_id, actor, action) VALUES ('" ID2 "', 'organizer', 'x')",
        /* A seed drawn here, and one imported without its value (0004 tells them apart). */
        "INSERT INTO seeds (campaign_id, epoch, seed, commitment) VALUES ('" ID2
        "', 1, decode(repeat('ab', 32), 'hex'), 'c1'), ('" ID2 "', 2, NULL, 'c2')",
        /* A stored response in clear, as before 0004: it must not survive. */
        "INSERT INTO idempotency (scope, key, method, path, request_hash, status, body) VALUES "
        "('', 'k', 'POST', '/api/v1/campaigns', '\\x00', 201, '{\"organizer_key\":\"x\"}')",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CU_ASSERT_FATAL(fixture_sql(c, rows[i]));
    const char *snapshot =
        "SELECT concat_ws('|', (SELECT row(dice, status, next_roll, tokens_allies, tokens_axis, "
        "winner)::text FROM campaigns), (SELECT row(number, first_player, commissar, phase, "
        "winner)::text FROM battles), (SELECT string_agg(row(n, side, purpose, source)::text, "
        "',' ORDER BY n) FROM rolls), (SELECT row(side, cost, tokens_after)::text FROM "
        "reserve_choices), (SELECT row(side, balance)::text FROM token_ledger), (SELECT actor "
        "FROM event_log))";
    PGresult *before = PQexec(c, snapshot);
    CU_ASSERT_EQUAL_FATAL(PQntuples(before), 1);

    db_init(ci);
    CU_ASSERT(later >= 1);
    CU_ASSERT_EQUAL(db_migrate(db_thread()), later);
    PGresult *after = PQexec(c, snapshot);
    CU_ASSERT_EQUAL_FATAL(PQntuples(after), 1);
    CU_ASSERT_STRING_EQUAL(PQgetvalue(after, 0, 0), PQgetvalue(before, 0, 0));
    PQclear(before);
    PQclear(after);
    PGresult *seeds = PQexec(c, "SELECT string_agg(epoch || ':' || origin, ',' ORDER BY epoch) "
                                "FROM seeds");
    CU_ASSERT_STRING_EQUAL(PQgetvalue(seeds, 0, 0), "1:server,2:import");
    PQclear(seeds);
    PGresult *stored = PQexec(c, "SELECT count(*) FROM idempotency");
    CU_ASSERT_STRING_EQUAL(PQgetvalue(stored, 0, 0), "0");
    PQclear(stored);
    /* No CHECK on one column is left behind: the domains hold them now. */
    PGresult *left = PQexec(c, "SELECT string_agg(conname, ',') FROM pg_constraint WHERE contype = "
                               "'c' AND conrelid <> 0 AND array_length(conkey, 1) = 1");
    CU_ASSERT_STRING_EQUAL(PQgetvalue(left, 0, 0), "seeds_seed_check");
    PQclear(left);
    /* The checks hold as on a new database, for a campaign of its own. */
    CU_ASSERT_FATAL(fixture_add_campaign(ID, "schema"));
    PQfinish(c);
    check_all(ci);
    fixture_end(&ci);
}

void register_schema_tests(void)
{
    CU_pSuite s = CU_add_suite("schema", NULL, NULL);
    CU_add_test(s, "each constrained column takes a good value and refuses a bad one", test_checks);
    CU_add_test(s, "rolls: append-only, a table roll voided once, never a server roll",
                test_rolls_append_only);
    CU_add_test(s, "migrating a database with rows keeps them, and the checks hold",
                test_upgrade_with_rows);
}
