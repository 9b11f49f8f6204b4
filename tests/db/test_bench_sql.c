/*
 * bench/reserve-roll*.sql are m44d's reserve-roll transaction as pgbench runs it, and
 * bench/battle-cycle.sql one battle of its battle cycle: the statements m44d sends, with values
 * in place of the parameters. This checks them against the statements themselves, as
 * PostgreSQL has them prepared (pg_prepared_statements), so that the benchmark cannot drift
 * from the code.
 */
#include "db/store.h"
#include "tests/common/testkit.h"
#include "tests/db/fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *conninfo;
static const char *const ID = "6a1c3a4e-0000-4000-8000-0000000000b5";

static int suite_init(void)
{
    return (conninfo = fixture_campaign("benchsql", ID)) ? 0 : 1;
}

static int suite_clean(void)
{
    return fixture_end(&conninfo);
}

/* The campaign loaded as campaign/ loads it (with the lock, or not): its version into `out`. */
static bool load_version(struct db *db, bool lock, char *out, size_t len)
{
    PGresult *r = db_campaign_get(db, ID, lock);
    bool ok = r && PQntuples(r) == 1;
    if (ok)
        snprintf(out, len, "%s", PQgetvalue(r, 0, 6));
    PQclear(r);
    return ok;
}

/* The statements of a reserve roll, as campaign/ sends them: lock and load, the battle's rolls
 * and choices, the roll with its event-log line, the version bump. */
static enum db_tx roll_statements(struct db *db, void *arg)
{
    (void)arg;
    char version[24];
    if (!load_version(db, true, version, sizeof version))
        return DB_TX_ERROR;
    PGresult *r = db_battle_detail(db, ID, "1");
    PQclear(r);
    if (!r)
        return DB_TX_ERROR;
    const char *roll[] = {
        ID,   "1",      "allies", "reserve", "1", "server", "x", "1", "{infantry,grenade}",
        "[]", "allies", "roll",   "{}"};
    const char *save[] = {ID, "2", "1", "3", "3", "active", NULL, version};
    /* The check a write on a campaign held in memory starts with (bench/reserve-roll-warm.sql). */
    return db_campaign_at(db, ID, version, NULL) && db_roll_insert(db, roll) &&
                   db_campaign_save(db, save)
               ? DB_TX_OK
               : DB_TX_ERROR;
}

/* The statements of a reserve roll on a campaign held in memory (campaign->optimistic), sent
 * and rolled back: the version check in its place first, replaced by the version bump, then the
 * roll. */
static enum db_tx warm_statements(struct db *db, void *arg)
{
    (void)arg;
    char version[24];
    if (!load_version(db, false, version, sizeof version))
        return DB_TX_ERROR;
    const char *roll[] = {
        ID,   "2",    "axis", "reserve", "1", "server", "x", "1", "{infantry,grenade}",
        "[]", "axis", "roll", "{}"};
    const char *save[] = {ID, "3", "1", "3", "3", "active", NULL, version};
    return db_campaign_at(db, ID, version, NULL) && db_roll_insert_held(db, roll) &&
                   db_campaign_save_first(db, save) && db_flush(db)
               ? DB_TX_ABORT
               : DB_TX_ERROR;
}

/* The statements of a battle cycle (bench/battle-cycle.sql), sent and rolled back: the version
 * check, the transaction's time, a battle set up, its rolls and choices read, a roll, a log
 * line, the battle's phase, a reserve choice, the version bump. */
static enum db_tx cycle_statements(struct db *db, void *arg)
{
    (void)arg;
    char version[24];
    if (!load_version(db, false, version, sizeof version))
        return DB_TX_ERROR;
    PGresult *r = NULL;
    const char *battle[] = {ID,   "7",  "Battle 7", "allies", "5", "5", "6", NULL, "victory_events",
                            NULL, "{}", "allies",   NULL};
    const char *roll[] = {ID,  "70",     "allies", "victory_events", "7",    "server", "",
                          "1", "{flag}", NULL,     "allies",         "roll", "{}"};
    const char *phase[] = {ID,   "7",  "reserves", NULL, NULL,     NULL, NULL,
                           NULL, NULL, NULL,       "f",  "allies", NULL};
    const char *choice[] = {ID, "7", "allies", "[]", "0", "3"};
    const char *save[] = {ID, "71", "1", "3", "3", "active", NULL, version};
    bool ok = db_campaign_at(db, ID, version, NULL) && db_tx_time(db) &&
              db_battle_insert(db, battle) &&
              db_log_insert(db, ID, "organizer", "battle_created", "{}") &&
              (r = db_battle_detail(db, ID, "7")) && db_roll_insert(db, roll) &&
              db_battle_update(db, phase) && db_choice_insert(db, choice) &&
              db_campaign_save(db, save) && db_flush(db);
    PQclear(r);
    return ok ? DB_TX_ABORT : DB_TX_ERROR;
}

static bool is_param(const char *p)
{
    return p[0] == '$' && p[1] >= '0' && p[1] <= '9';
}

/* Whether `s` is `pattern`, where each "$N" of the pattern stands for one or more characters. */
static bool matches(const char *pattern, const char *s)
{
    while (*pattern && !is_param(pattern)) {
        if (*pattern++ != *s++)
            return false;
    }
    if (!*pattern)
        return !*s;
    pattern++;
    while (*pattern >= '0' && *pattern <= '9')
        pattern++;
    size_t n = strlen(s);
    for (size_t k = 1; k <= n; k++)
        if (matches(pattern, s + k))
            return true;
    return false;
}

/* The statement on the line at `at`, without its ';', with the timestamp format as m44d writes
 * it (the files spell "HH24:MI:SS" as HH24"h"MI"m"SS, since pgbench would read ":MI" as a
 * variable). */
static char *statement_at(const char *at)
{
    size_t n = strcspn(at, "\n");
    char *line = strndup(at, n);
    if (n && line[n - 1] == ';')
        line[n - 1] = '\0';
    const char *from = "HH24\"h\"MI\"m\"SS", *to = "HH24:MI:SS"; /* `to` is shorter */
    for (char *p; (p = strstr(line, from));) {
        memcpy(p, to, strlen(to));
        memmove(p + strlen(to), p + strlen(from), strlen(p + strlen(from)) + 1);
    }
    return line;
}

/* The statement of a bench file that starts with `start` (see statement_at). NULL if there is
 * none. */
static char *bench_statement(const char *file, const char *start)
{
    const char *at = strstr(file, start);
    while (at && at != file && at[-1] != '\n')
        at = strstr(at + 1, start);
    return at ? statement_at(at) : NULL;
}

struct bench_statement {
    const char *name, *start;
};

static void check_file(const char *name, const struct bench_statement *statements, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bench/%s", tk_env("M44_ROOT"), name);
    char *file = tk_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(file);
    for (size_t i = 0; i < n; i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT statement FROM pg_prepared_statements WHERE name = '%s'",
                 statements[i].name);
        PGresult *r = db_exec_sql(db_thread(), sql);
        CU_ASSERT_FATAL(r && PQntuples(r) == 1);
        char *bench = bench_statement(file, statements[i].start);
        bool ok = bench && matches(PQgetvalue(r, 0, 0), bench);
        if (!ok)
            fprintf(stderr, "\nbench/%s differs from m44d's %s:\n  m44d:  %s\n  bench: %s\n", name,
                    statements[i].name, PQgetvalue(r, 0, 0), bench ? bench : "(missing)");
        CU_ASSERT_TRUE(ok);
        free(bench);
        PQclear(r);
    }
    free(file);
}

static void test_bench_sql_is_m44d_sql(void)
{
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), roll_statements, NULL), DB_OK);
    const struct bench_statement cold[] = {
        {"campaign_lock", "SELECT c.id, "},
        {"battle_detail", "SELECT n, side, "},
        {"roll_insert", "WITH r AS (INSERT INTO rolls "},
        {"campaign_save", "WITH u AS (UPDATE campaigns "},
    };
    check_file("reserve-roll.sql", cold, sizeof cold / sizeof cold[0]);
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), warm_statements, NULL), DB_ABORTED);
    const struct bench_statement warm[] = {
        {"campaign_save_first", "WITH u AS (UPDATE campaigns "},
        {"roll_insert", "WITH r AS (INSERT INTO rolls "},
    };
    check_file("reserve-roll-warm.sql", warm, sizeof warm / sizeof warm[0]);
}

/* Every statement of bench/battle-cycle.sql (each line but comments, pgbench's commands, BEGIN
 * and COMMIT) is one m44d prepared, and each of those it names is there. */
static void test_cycle_sql_is_m44d_sql(void)
{
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), cycle_statements, NULL), DB_ABORTED);
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), warm_statements, NULL), DB_ABORTED);
    static const char *const names[] = {
        "campaign_at",   "tx_time",       "battle_detail", "battle_insert", "log_insert",
        "battle_update", "choice_insert", "campaign_save", "roll_insert",   "campaign_save_first"};
    enum { NNAMES = sizeof names / sizeof names[0] };
    char *sql[NNAMES];
    int used[NNAMES] = {0};
    for (int k = 0; k < NNAMES; k++) {
        char q[160];
        snprintf(q, sizeof q, "SELECT statement FROM pg_prepared_statements WHERE name = '%s'",
                 names[k]);
        PGresult *r = db_exec_sql(db_thread(), q);
        CU_ASSERT_FATAL(r && PQntuples(r) == 1);
        sql[k] = strdup(PQgetvalue(r, 0, 0));
        PQclear(r);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/bench/battle-cycle.sql", tk_env("M44_ROOT"));
    char *file = tk_slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(file);
    int statements = 0;
    for (const char *at = file; *at; at += strcspn(at, "\n"), at += *at == '\n') {
        if (*at == '\n' || strncmp(at, "--", 2) == 0 || *at == '\\' ||
            strncmp(at, "BEGIN;", 6) == 0 || strncmp(at, "COMMIT;", 7) == 0)
            continue;
        char *line = statement_at(at);
        int k = 0;
        while (k < NNAMES && !matches(sql[k], line))
            k++;
        if (k == NNAMES)
            fprintf(stderr, "\nbench/battle-cycle.sql: not a statement of m44d's: %s\n", line);
        else
            used[k]++;
        CU_ASSERT_TRUE(k < NNAMES);
        statements++;
        free(line);
    }
    for (int k = 0; k < NNAMES; k++) {
        if (!used[k])
            fprintf(stderr, "\nbench/battle-cycle.sql: m44d's %s is not there\n", names[k]);
        CU_ASSERT_TRUE(used[k] > 0);
        free(sql[k]);
    }
    CU_ASSERT_TRUE(statements >= 8 * 3); /* eight actions of at least three statements */
    free(file);
}

/* The matcher itself: a parameter stands for something, never for nothing. */
static void test_matcher(void)
{
    CU_ASSERT_TRUE(matches("a = $1::uuid", "a = md5('x')::uuid"));
    CU_ASSERT_TRUE(matches("($1, $2)", "(1, 'b')"));
    CU_ASSERT_FALSE(matches("a = $1::uuid", "a = ::uuid"));
    CU_ASSERT_FALSE(matches("a = $1::uuid", "a = 1::int"));
    CU_ASSERT_TRUE(matches("SELECT $1", "SELECT 1 FROM t"));
    CU_ASSERT_FALSE(matches("SELECT $1", "SELECT "));
    CU_ASSERT_FALSE(matches("SELECT 1", "SELECT 12"));
    CU_ASSERT_FALSE(matches("x $1 y", "x 1 z"));
}

void register_bench_sql_tests(void)
{
    CU_pSuite s = CU_add_suite("bench/*.sql", suite_init, suite_clean);
    CU_add_test(s, "the parameter matcher", test_matcher);
    CU_add_test(s, "reserve-roll*.sql: its statements are m44d's, with values for the parameters",
                test_bench_sql_is_m44d_sql);
    CU_add_test(s, "battle-cycle.sql: every statement is m44d's", test_cycle_sql_is_m44d_sql);
}
