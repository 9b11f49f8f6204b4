#include "db/db.h"
#include "tests/common/testkit.h"

#include <stdlib.h>
#include <string.h>

static char *conninfo;

static int suite_init(void)
{
    conninfo = tk_new_database("tx");
    db_init(conninfo);
    struct db *db = db_thread();
    if (!db_ensure(db))
        return 1;
    PGresult *r = db_exec_sql(db, "CREATE TABLE t (v int NOT NULL)");
    PQclear(r);
    return r ? 0 : 1;
}

static int suite_clean(void)
{
    db_shutdown();
    free(conninfo);
    return 0;
}

static long count_rows(void)
{
    PGresult *r = db_exec_sql(db_thread(), "SELECT count(*) FROM t");
    long n = r ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return n;
}

struct raise_ctx {
    int calls;
    int fail_times;    /* raise on the first fail_times calls */
    const char *state; /* SQLSTATE to raise */
    enum db_tx outcome;
};

static struct db_statement st_insert = {"tx_insert", "INSERT INTO t (v) VALUES ($1::int)", 1, 0};

static enum db_tx raise_then_insert(struct db *db, void *arg)
{
    struct raise_ctx *c = arg;
    c->calls++;
    char v[16];
    snprintf(v, sizeof v, "%d", c->calls);
    const char *p[] = {v};
    if (db_command(db, &st_insert, p) != 1)
        return DB_TX_ERROR;
    if (c->calls <= c->fail_times) {
        char sql[160];
        snprintf(sql, sizeof sql,
                 "DO $$ BEGIN RAISE EXCEPTION 'provoked' USING ERRCODE = '%s'; END $$", c->state);
        PGresult *r = db_exec_sql(db, sql);
        PQclear(r);
        return DB_TX_ERROR;
    }
    return c->outcome;
}

static void test_retries_serialization_failures(void)
{
    long before = count_rows();
    struct raise_ctx c = {0, 2, "40001", DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_OK);
    CU_ASSERT_EQUAL(c.calls, 3);
    /* Only the successful attempt's row is committed. */
    CU_ASSERT_EQUAL(count_rows(), before + 1);
}

static void test_retries_deadlocks(void)
{
    long before = count_rows();
    struct raise_ctx c = {0, 1, "40P01", DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_OK);
    CU_ASSERT_EQUAL(c.calls, 2);
    CU_ASSERT_EQUAL(count_rows(), before + 1);
}

static void test_retries_are_bounded(void)
{
    long before = count_rows();
    struct raise_ctx c = {0, 1000, "40001", DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_FAILED);
    CU_ASSERT(c.calls > 1 && c.calls <= 10);
    CU_ASSERT_EQUAL(count_rows(), before);
}

static void test_other_errors_not_retried(void)
{
    long before = count_rows();
    struct raise_ctx c = {0, 1000, "22012", DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_FAILED);
    CU_ASSERT_EQUAL(c.calls, 1);
    CU_ASSERT_STRING_EQUAL(db_last_sqlstate(db_thread()), "22012");
    CU_ASSERT_EQUAL(count_rows(), before);
}

static void test_abort_writes_nothing(void)
{
    long before = count_rows();
    struct raise_ctx c = {0, 0, "", DB_TX_ABORT};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_ABORTED);
    CU_ASSERT_EQUAL(c.calls, 1);
    CU_ASSERT_EQUAL(count_rows(), before);
}

static enum db_tx one_insert(struct db *db, void *arg)
{
    (void)arg;
    const char *p[] = {"7"};
    return db_command(db, &st_insert, p) == 1 ? DB_TX_OK : DB_TX_ERROR;
}

/* A PostgreSQL restart kills the connection; the next transaction reconnects and succeeds. */
static void test_reconnect_after_restart(void)
{
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), one_insert, NULL), DB_OK);
    uint64_t reconnects = db_stat_reconnects();
    long before = count_rows();
    CU_ASSERT_FATAL(tk_pg("stop"));
    CU_ASSERT_EQUAL(db_transaction(db_thread(), one_insert, NULL), DB_UNAVAILABLE);
    CU_ASSERT_FATAL(tk_pg("start"));
    /* The prepared statement is prepared again on the new connection. */
    CU_ASSERT_EQUAL(db_transaction(db_thread(), one_insert, NULL), DB_OK);
    CU_ASSERT(db_stat_reconnects() > reconnects);
    CU_ASSERT_EQUAL(count_rows(), before + 1);
}

void register_tx_tests(void)
{
    CU_pSuite s = CU_add_suite("transactions", suite_init, suite_clean);
    CU_add_test(s, "serialization failures are retried", test_retries_serialization_failures);
    CU_add_test(s, "deadlocks are retried", test_retries_deadlocks);
    CU_add_test(s, "retries are bounded", test_retries_are_bounded);
    CU_add_test(s, "other errors are not retried", test_other_errors_not_retried);
    CU_add_test(s, "abort writes nothing", test_abort_writes_nothing);
    CU_add_test(s, "reconnect after a PostgreSQL restart", test_reconnect_after_restart);
}
