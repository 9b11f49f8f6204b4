/* Loading a campaign under its row lock, with a concurrent writer: never a stale load. */
#include "db/store.h"
#include "tests/common/testkit.h"
#include "tests/db/fixture.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *conninfo;
static const char *const ID = "6a1c3a4e-0000-4000-8000-000000000001";

static int suite_init(void)
{
    return (conninfo = fixture_campaign("lock", ID)) ? 0 : 1;
}

static int suite_clean(void)
{
    return fixture_end(&conninfo);
}

struct load {
    long long version;
    size_t battles;
};

static enum db_tx load_locked(struct db *db, void *arg)
{
    struct load *out = arg;
    PGresult *r = db_campaign_get(db, ID, true);
    if (!r || PQntuples(r) != 1) {
        PQclear(r);
        return DB_TX_ERROR;
    }
    out->version = atoll(PQgetvalue(r, 0, 6));
    json_t *battles = json_loads(PQgetvalue(r, 0, 20), 0, NULL);
    out->battles = json_array_size(battles);
    json_decref(battles);
    PQclear(r);
    return DB_TX_OK;
}

static void *load_thread(void *arg)
{
    if (db_transaction(db_thread(), load_locked, arg) != DB_OK)
        ((struct load *)arg)->version = -1;
    return NULL;
}

/* Another transaction holds the row, adds a battle and bumps the version; the locked load
 * waits for it and then sees both the new version and the new battle. */
static void test_waiting_load_sees_the_writers_battle(void)
{
    struct load before = {0};
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), load_locked, &before), DB_OK);
    PGconn *w = PQconnectdb(conninfo);
    CU_ASSERT_FATAL(PQstatus(w) == CONNECTION_OK);
    char sql[400];
    CU_ASSERT(fixture_sql(w, "BEGIN"));
    snprintf(sql, sizeof sql, "SELECT 1 FROM campaigns WHERE id = '%s' FOR UPDATE", ID);
    CU_ASSERT(fixture_sql(w, sql));
    snprintf(sql, sizeof sql,
             "INSERT INTO battles (campaign_id, number, scenario, first_player, cards_allies, "
             "cards_axis, medals_to_win, phase) VALUES ('%s', %zu, 'S', 'allies', 4, 4, 4, "
             "'setup')",
             ID, before.battles + 1);
    CU_ASSERT(fixture_sql(w, sql));
    snprintf(sql, sizeof sql, "UPDATE campaigns SET version = version + 1 WHERE id = '%s'", ID);
    CU_ASSERT(fixture_sql(w, sql));

    struct load after = {0};
    pthread_t t;
    pthread_create(&t, NULL, load_thread, &after);
    /* Wait until the loader is waiting for the row lock (PostgreSQL shows it in pg_locks). */
    bool waiting = false;
    for (int i = 0; i < 100 && !waiting; i++) {
        PGresult *q = PQexec(w, "SELECT count(*) FROM pg_locks WHERE NOT granted");
        waiting = PQresultStatus(q) == PGRES_TUPLES_OK && atoi(PQgetvalue(q, 0, 0)) > 0;
        PQclear(q);
        if (!waiting)
            tk_sleep_ms(50);
    }
    CU_ASSERT_TRUE(waiting);
    CU_ASSERT_EQUAL(after.version, 0);
    CU_ASSERT(fixture_sql(w, "COMMIT"));
    pthread_join(t, NULL);
    PQfinish(w);
    CU_ASSERT_EQUAL(after.version, before.version + 1);
    CU_ASSERT_EQUAL(after.battles, before.battles + 1);
}

/* Uncontended: the locked load is the plain load. */
static void test_uncontended_load(void)
{
    struct load a = {0};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), load_locked, &a), DB_OK);
    PGresult *r = db_campaign_get(db_thread(), ID, false);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(atoll(PQgetvalue(r, 0, 6)), a.version);
    json_t *battles = json_loads(PQgetvalue(r, 0, 20), 0, NULL);
    CU_ASSERT_EQUAL(json_array_size(battles), a.battles);
    json_decref(battles);
    PQclear(r);
}

/* The campaign save is held back and goes with COMMIT, so it checks its own row count. */
static enum db_tx save_at(struct db *db, void *arg)
{
    const char *p[] = {ID, "1", "1", "2", "2", "active", NULL, arg};
    return db_campaign_save(db, p) ? DB_TX_OK : DB_TX_ERROR;
}

static void test_save_of_a_stale_version_fails(void)
{
    struct load a = {0};
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), load_locked, &a), DB_OK);
    char stale[24], current[24];
    snprintf(stale, sizeof stale, "%lld", a.version - 1);
    snprintf(current, sizeof current, "%lld", a.version);
    CU_ASSERT_EQUAL(db_transaction(db_thread(), save_at, stale), DB_FAILED);
    CU_ASSERT_STRING_EQUAL(db_last_sqlstate(db_thread()), "P0004");
    struct load b = {0};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), load_locked, &b), DB_OK);
    CU_ASSERT_EQUAL(b.version, a.version);
    CU_ASSERT_EQUAL(db_transaction(db_thread(), save_at, current), DB_OK);
    CU_ASSERT_EQUAL(db_transaction(db_thread(), load_locked, &b), DB_OK);
    CU_ASSERT_EQUAL(b.version, a.version + 1);
}

/* A roll of the campaign: side, battle and number given; made from a campaign held in memory
 * (db_roll_insert_held) or loaded (db_roll_insert). */
struct roll_at {
    const char *n, *side, *battle;
    bool held;
};

static enum db_tx insert_roll(struct db *db, void *arg)
{
    const struct roll_at *a = arg;
    const char *p[] = {ID,   a->n,          a->side, "reserve", a->battle, "table", NULL,
                       NULL, "{star,star}", NULL,    a->side,   "roll",    "{}"};
    return (a->held ? db_roll_insert_held(db, p) : db_roll_insert(db, p)) ? DB_TX_OK : DB_TX_ERROR;
}

static long rolls_stored(void)
{
    char sql[120];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM rolls WHERE campaign_id = '%s'", ID);
    PGresult *r = db_exec_sql(db_thread(), sql);
    long n = r && PQntuples(r) == 1 ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return n;
}

/* The roll fails with `state`; it was run again (counted as moved on) only if `moved_on`. */
static void check_clash(const struct roll_at *a, const char *state, bool moved_on)
{
    long stored = rolls_stored();
    uint64_t moved = db_stat_reruns(DB_RERUN_MOVED_ON), lost = db_stat_reruns(DB_RERUN_LOST);
    CU_ASSERT_EQUAL(db_transaction(db_thread(), insert_roll, (void *)a), DB_FAILED);
    CU_ASSERT_STRING_EQUAL(db_last_sqlstate(db_thread()), state);
    CU_ASSERT_EQUAL(db_stat_reruns(DB_RERUN_MOVED_ON) > moved, moved_on);
    CU_ASSERT_EQUAL(db_stat_reruns(DB_RERUN_LOST), lost);
    CU_ASSERT_EQUAL(rolls_stored(), stored);
}

/* A side's second roll of a battle, made from a campaign held (which cannot tell), clashes with
 * the first: the write fails as one whose campaign moved on, run again from a load and counted
 * so. The same clash in a write that loaded the campaign (a fault: it read the rolls under the
 * lock), or a roll number used again, fails as what it is, and is not run again. */
static void test_roll_clash_is_moved_on(void)
{
    struct roll_at first = {"1", "allies", "9", false};
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), insert_roll, &first), DB_OK);
    check_clash(&(struct roll_at){"2", "allies", "9", true}, DB_SQLSTATE_MOVED_ON, true);
    check_clash(&(struct roll_at){"2", "allies", "9", false}, "23505", false);
    check_clash(&(struct roll_at){"1", "axis", "9", true}, "23505", false);
}

void register_lock_tests(void)
{
    CU_pSuite s = CU_add_suite("campaign lock", suite_init, suite_clean);
    CU_add_test(s, "a load that waited for the lock sees the writer's battle",
                test_waiting_load_sees_the_writers_battle);
    CU_add_test(s, "uncontended, the locked load is the plain load", test_uncontended_load);
    CU_add_test(s, "a save of a stale version fails the transaction",
                test_save_of_a_stale_version_fails);
    CU_add_test(s,
                "a held campaign's second roll of a side fails as moved on; a loaded one's, a "
                "number used again not",
                test_roll_clash_is_moved_on);
}
