/*
 * A campaign whose log is long (a side that rolled from the table and undid it a thousand
 * times) loads with work in proportion to its log, whatever plan PostgreSQL keeps for the load.
 * Planned while the log was short, as a backup being imported is (one transaction: the tables
 * are never analyzed while it grows), the load once looked for the undo of each line it looked
 * at among all the undo lines, or the whole log: a thousand undone rolls, a million rows, a
 * quarter of a second a load, over a minute for the import. The work is counted, not timed: the
 * rows each step of the plan produced or looked at and set aside (EXPLAIN ANALYZE).
 */
#include "db/store.h"
#include "tests/common/testkit.h"
#include "tests/db/fixture.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *conninfo;
static const char *const ID = "6a1c3a4e-0000-4000-8000-00000000106b";
enum { UNDONE = 1000 };

static int suite_init(void)
{
    return (conninfo = fixture_campaign("logscale", ID)) ? 0 : 1;
}

static int suite_clean(void)
{
    return fixture_end(&conninfo);
}

/* Rows produced, and rows looked at and set aside, by every step of a plan, over all its loops
 * (EXPLAIN's figures per loop, times the loops). */
static double plan_work(const json_t *node)
{
    double loops = json_number_value(json_object_get(node, "Actual Loops"));
    double rows = json_number_value(json_object_get(node, "Actual Rows")) +
                  json_number_value(json_object_get(node, "Rows Removed by Filter")) +
                  json_number_value(json_object_get(node, "Rows Removed by Join Filter"));
    double work = rows * loops;
    const json_t *sub = json_object_get(node, "Plans");
    for (size_t i = 0; i < json_array_size(sub); i++)
        work += plan_work(json_array_get(sub, i));
    return work;
}

struct measured {
    double work;
    char last_action[64]; /* the action the load found last, as the log names it */
};

static enum db_tx long_log(struct db *db, void *arg)
{
    struct measured *m = arg;
    char sql[1600];
    /* The plan is made now, with the log one line long, and kept (a connection's prepared
     * statement is planned once its plan is judged good enough for every call). */
    PGresult *r = db_exec_sql(db, "SET LOCAL plan_cache_mode = force_generic_plan");
    PQclear(r);
    if (!r)
        return DB_TX_ERROR;
    snprintf(sql, sizeof sql,
             "INSERT INTO event_log (campaign_id, actor, action, detail) VALUES ('%s', "
             "'organizer', 'battle_created', '{\"battle\":1}')",
             ID);
    if (!(r = db_exec_sql(db, sql)))
        return DB_TX_ERROR;
    PQclear(r);
    if (!(r = db_campaign_get(db, ID, false)))
        return DB_TX_ERROR;
    PQclear(r);
    /* Then the log grows: a roll and its undo, a thousand times. */
    snprintf(sql, sizeof sql,
             "WITH r AS (INSERT INTO event_log (campaign_id, actor, action, detail) SELECT '%s', "
             "'allies', 'roll', jsonb_build_object('n', i, 'side', 'allies', 'purpose', "
             "'reserve', 'battle', 1, 'source', 'table', 'faces', '[\"star\",\"flag\"]'::jsonb) "
             "FROM generate_series(1, %d) i RETURNING seq) "
             "INSERT INTO event_log (campaign_id, actor, action, detail) SELECT '%s', 'allies', "
             "'undo', jsonb_build_object('undid', seq) FROM r ORDER BY seq",
             ID, UNDONE, ID);
    if (!(r = db_exec_sql(db, sql)))
        return DB_TX_ERROR;
    PQclear(r);
    /* Each roll's line marked undone, as the undo marks it. */
    snprintf(sql, sizeof sql,
             "UPDATE event_log SET undone = true WHERE campaign_id = '%s' AND action = 'roll'", ID);
    if (!(r = db_exec_sql(db, sql)))
        return DB_TX_ERROR;
    PQclear(r);
    snprintf(sql, sizeof sql, "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE campaign_get('%s')", ID);
    if (!(r = db_exec_sql(db, sql)))
        return DB_TX_ERROR;
    json_t *plan = json_loads(PQgetvalue(r, 0, 0), 0, NULL);
    PQclear(r);
    m->work = plan_work(json_object_get(json_array_get(plan, 0), "Plan"));
    json_decref(plan);
    /* And the load still finds the last action that stands: the battle's set-up. */
    if (!(r = db_campaign_get(db, ID, false)))
        return DB_TX_ERROR;
    const int last_action = 25; /* the column of CAMPAIGN_LAST_ACTION (campaign/state.c) */
    json_t *a = json_loads(PQgetvalue(r, 0, last_action), 0, NULL);
    snprintf(m->last_action, sizeof m->last_action, "%s",
             json_string_value(json_array_get(a, 2)) ? json_string_value(json_array_get(a, 2))
                                                     : "");
    json_decref(a);
    PQclear(r);
    return DB_TX_ABORT; /* nothing kept */
}

static void test_long_log_loads_in_proportion(void)
{
    struct measured m = {0};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), long_log, &m), DB_ABORTED);
    /* About four rows a line of the log (the line, its undo, the probe for an undo of it), and
     * the campaign's other parts; the plan that compared each undo with each line did a million. */
    if (m.work >= 10.0 * 2 * UNDONE)
        fprintf(stderr, "\nloading a campaign with %d undone rolls: %.0f rows of work\n", UNDONE,
                m.work);
    CU_ASSERT_TRUE(m.work > 0 && m.work < 10.0 * 2 * UNDONE);
    CU_ASSERT_STRING_EQUAL(m.last_action, "battle_created");
}

void register_log_scale_tests(void)
{
    CU_pSuite s = CU_add_suite("a long log", suite_init, suite_clean);
    CU_add_test(s, "a campaign with a thousand undone rolls loads in proportion to its log",
                test_long_log_loads_in_proportion);
}
