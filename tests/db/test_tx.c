#include "db/db.h"
#include "tests/common/testkit.h"
#include "tests/db/fixture.h"

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
    if (!r)
        return 1;
    r = db_exec_sql(db, "CREATE TABLE o (seq int GENERATED ALWAYS AS IDENTITY, v int NOT NULL)");
    PQclear(r);
    if (!r)
        return 1;
    r = db_exec_sql(db, "CREATE FUNCTION raise_if(b boolean, state text) RETURNS int "
                        "LANGUAGE plpgsql AS $$ BEGIN IF b THEN RAISE EXCEPTION 'provoked' "
                        "USING ERRCODE = state; END IF; RETURN 1; END $$");
    PQclear(r);
    return r ? 0 : 1;
}

static int suite_clean(void)
{
    return fixture_end(&conninfo);
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

/* The counts of transactions run again (for /metrics), by cause. */
struct reruns {
    uint64_t n[DB_RERUNS];
};

static struct reruns reruns_now(void)
{
    struct reruns r;
    for (int c = 0; c < DB_RERUNS; c++)
        r.n[c] = db_stat_reruns((enum db_rerun)c);
    return r;
}

/* The count of `cause` moved by `by` since `before`, and no other count moved. */
static void assert_reruns(struct reruns before, enum db_rerun cause, uint64_t by)
{
    struct reruns now = reruns_now();
    for (int c = 0; c < DB_RERUNS; c++)
        CU_ASSERT_EQUAL(now.n[c] - before.n[c], c == (int)cause ? by : 0);
}

/* A transaction that fails `fails` times with `state` runs again each time, counted under
 * `cause`, and commits only its last attempt's row. */
static void check_run_again(const char *state, int fails, enum db_rerun cause)
{
    long before = count_rows();
    struct reruns counted = reruns_now();
    struct raise_ctx c = {0, fails, state, DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_OK);
    CU_ASSERT_EQUAL(c.calls, fails + 1);
    assert_reruns(counted, cause, (uint64_t)fails);
    CU_ASSERT_EQUAL(count_rows(), before + 1);
}

static void test_retries_serialization_failures(void)
{
    check_run_again("40001", 2, DB_RERUN_SERIALIZATION);
}

static void test_retries_deadlocks(void)
{
    check_run_again("40P01", 1, DB_RERUN_DEADLOCK);
}

static void test_retries_are_bounded(void)
{
    long before = count_rows();
    struct raise_ctx c = {0, 1000, "40001", DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_FAILED);
    CU_ASSERT(c.calls > 1 && c.calls <= 10);
    CU_ASSERT_EQUAL(count_rows(), before);
}

/* What a transaction started from moved on (40M44: a campaign added to a grand campaign while
 * its campaigns were locked, once per campaign of the list, which may hold 12): run again past
 * the attempts a collision gets, and then bounded too. */
static void test_moved_on_runs_again(void)
{
    check_run_again("40M44", 12, DB_RERUN_MOVED_ON);
    long before = count_rows();
    struct raise_ctx forever = {0, 1000, "40M44", DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &forever), DB_FAILED);
    CU_ASSERT(forever.calls > 13 && forever.calls <= 40);
    CU_ASSERT_EQUAL(count_rows(), before);
}

/* An answer stored for the Idempotency-Key a write took as new (40M45, migration 0018): run
 * again at once, counted apart from a state moved on. */
static void test_key_answered_runs_again(void)
{
    check_run_again("40M45", 1, DB_RERUN_KEY_ANSWERED);
}

static void test_other_errors_not_retried(void)
{
    long before = count_rows();
    struct reruns counted = reruns_now();
    struct raise_ctx c = {0, 1000, "22012", DB_TX_OK};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), raise_then_insert, &c), DB_FAILED);
    CU_ASSERT_EQUAL(c.calls, 1);
    assert_reruns(counted, DB_RERUNS, 0); /* nothing ran again */
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

/* A PostgreSQL restart kills the connection; the next transaction reconnects and succeeds. The
 * connection's end (the server's FATAL message, then the end of the link) is seen before anything
 * is sent on it: nothing fails, nothing runs again. */
static void test_reconnect_after_restart(void)
{
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), one_insert, NULL), DB_OK);
    uint64_t reconnects = db_stat_reconnects();
    long before = count_rows();
    struct reruns counted = reruns_now();
    CU_ASSERT_FATAL(tk_pg("stop"));
    uint64_t errors = db_stat_errors();
    CU_ASSERT_EQUAL(db_transaction(db_thread(), one_insert, NULL), DB_UNAVAILABLE);
    /* The connection was seen gone before the statement was sent, and no server took a new
     * one: no statement failed, nothing ran again. (Sent into the ended link, the statement
     * failed, and the transaction ran again to find no server.) */
    assert_reruns(counted, DB_RERUN_LOST, 0);
    CU_ASSERT_EQUAL(db_stat_errors(), errors + 1); /* the connection refused, alone */
    CU_ASSERT_FATAL(tk_pg("start"));
    /* The prepared statement is prepared again on the new connection. */
    CU_ASSERT_EQUAL(db_transaction(db_thread(), one_insert, NULL), DB_OK);
    CU_ASSERT(db_stat_reconnects() > reconnects);
    CU_ASSERT_EQUAL(count_rows(), before + 1);
}

/* --- Held-back writes and prefetched reads (one pipeline per round trip) --- */

static struct db_statement st_count = {"tx_count", "SELECT count(*) FROM t", 0, 0};
static struct db_statement st_raise = {"tx_raise",
                                       "INSERT INTO t (v) SELECT raise_if($1::boolean, $2)", 2, 0};
static struct db_statement st_insert_ret = {"tx_insert_ret",
                                            "INSERT INTO t (v) VALUES ($1::int) RETURNING v", 1, 0};

struct held_ctx {
    int calls;
    int raise_times; /* the held-back statement raises on the first raise_times calls */
    const char *state;
    bool abort;
};

/* Two held-back inserts and one that may raise: all go to the server with COMMIT. */
static enum db_tx held_writes(struct db *db, void *arg)
{
    struct held_ctx *c = arg;
    c->calls++;
    const char *one[] = {"1"}, *two[] = {"2"};
    const char *raise[] = {c->calls <= c->raise_times ? "true" : "false", c->state};
    if (!db_defer(db, &st_insert, one) || !db_defer(db, &st_raise, raise) ||
        !db_defer(db, &st_insert, two))
        return DB_TX_ERROR;
    return c->abort ? DB_TX_ABORT : DB_TX_OK;
}

static void test_held_back_writes_commit(void)
{
    long before = count_rows();
    struct held_ctx c = {0, 0, "22012", false};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), held_writes, &c), DB_OK);
    CU_ASSERT_EQUAL(count_rows(), before + 3);
}

static void test_held_back_failure_fails_commit(void)
{
    long before = count_rows();
    struct held_ctx c = {0, 1000, "22012", false};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), held_writes, &c), DB_FAILED);
    CU_ASSERT_EQUAL(c.calls, 1);
    CU_ASSERT_STRING_EQUAL(db_last_sqlstate(db_thread()), "22012");
    /* Nothing of it is written, and the connection is usable again outside a transaction
     * (count_rows would fail on a connection left in a failed transaction). */
    CU_ASSERT_EQUAL(count_rows(), before);
}

static void test_held_back_serialization_failure_retried(void)
{
    long before = count_rows();
    struct held_ctx c = {0, 2, "40001", false};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), held_writes, &c), DB_OK);
    CU_ASSERT_EQUAL(c.calls, 3);
    CU_ASSERT_EQUAL(count_rows(), before + 3);
}

static void test_held_back_dropped_on_abort(void)
{
    long before = count_rows();
    struct held_ctx c = {0, 0, "22012", true};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), held_writes, &c), DB_ABORTED);
    CU_ASSERT_EQUAL(count_rows(), before);
}

/* A held-back write's failure fails the statement it travels with. */
static enum db_tx held_then_read(struct db *db, void *arg)
{
    (void)arg;
    const char *raise[] = {"true", "22012"};
    if (!db_defer(db, &st_raise, raise))
        return DB_TX_ERROR;
    PGresult *r = db_exec(db, &st_count, NULL);
    CU_ASSERT_PTR_NULL(r);
    PQclear(r);
    return r ? DB_TX_OK : DB_TX_ERROR;
}

static void test_held_back_failure_fails_next_statement(void)
{
    long before = count_rows();
    CU_ASSERT_EQUAL(db_transaction(db_thread(), held_then_read, NULL), DB_FAILED);
    CU_ASSERT_STRING_EQUAL(db_last_sqlstate(db_thread()), "22012");
    CU_ASSERT_EQUAL(count_rows(), before);
}

struct prefetch_ctx {
    long prefetched, direct;
};

/*
 * The prefetched count travels with the insert and runs after it; a later db_exec of the same
 * statement returns that result, not a new one; a second db_exec asks the server again.
 */
static enum db_tx prefetch_count(struct db *db, void *arg)
{
    struct prefetch_ctx *c = arg;
    db_prefetch(db, &st_count, NULL);
    const char *v[] = {"5"};
    PGresult *r = db_exec(db, &st_insert_ret, v);
    if (!r)
        return DB_TX_ERROR;
    PQclear(r);
    r = db_exec_sql(db, "INSERT INTO t (v) VALUES (6)");
    if (!r)
        return DB_TX_ERROR;
    PQclear(r);
    r = db_exec(db, &st_count, NULL);
    c->prefetched = r ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    r = db_exec(db, &st_count, NULL);
    c->direct = r ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return DB_TX_OK;
}

static void test_prefetch(void)
{
    long before = count_rows();
    struct prefetch_ctx c = {0, 0};
    CU_ASSERT_EQUAL(db_transaction(db_thread(), prefetch_count, &c), DB_OK);
    CU_ASSERT_EQUAL(c.prefetched, before + 1);
    CU_ASSERT_EQUAL(c.direct, before + 2);
    CU_ASSERT_EQUAL(count_rows(), before + 2);
}

/* Asked for before the round trip that carries it: that round trip goes, with the prefetch,
 * and the statement is not sent a second time (a write held back goes with it). The prefetch
 * here is an INSERT ... RETURNING, so that running it twice would show. */
static enum db_tx prefetch_early(struct db *db, void *arg)
{
    long *got = arg;
    const char *seven[] = {"7"}, *eight[] = {"8"};
    db_prefetch(db, &st_insert_ret, seven);
    if (!db_defer(db, &st_insert, eight))
        return DB_TX_ERROR;
    PGresult *r = db_exec(db, &st_insert_ret, seven);
    *got = r && PQntuples(r) == 1 ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return r ? DB_TX_OK : DB_TX_ERROR;
}

static void test_prefetch_asked_early(void)
{
    long before = count_rows(), got = 0;
    CU_ASSERT_EQUAL(db_transaction(db_thread(), prefetch_early, &got), DB_OK);
    CU_ASSERT_EQUAL(got, 7);
    CU_ASSERT_EQUAL(count_rows(), before + 2);
}

/* Rows of `o` in the order they went in, as "1,9,2". */
static void order_in(char *out, size_t len)
{
    PGresult *r = db_exec_sql(db_thread(), "SELECT coalesce(string_agg(v::text, ',' ORDER BY seq), "
                                           "'') FROM o");
    snprintf(out, len, "%s", r ? PQgetvalue(r, 0, 0) : "(failed)");
    PQclear(r);
    PQclear(db_exec_sql(db_thread(), "DELETE FROM o"));
}

static struct db_statement st_ord = {"tx_ord", "INSERT INTO o (v) VALUES ($1::int)", 1, 0};
static struct db_statement st_ord_check = {"tx_ord_check", "INSERT INTO o (v) VALUES ($1::int)", 1,
                                           0};

/* 1 (st_ord_check), 2, 3 held back, then 9 after st_ord_check; with `sent_first`, 1 goes to
 * the server (with a read) before the others are held back. A prefetch waits among them. */
static enum db_tx defer_after(struct db *db, void *arg)
{
    const bool *sent_first = arg;
    const char *one[] = {"1"}, *two[] = {"2"}, *three[] = {"3"}, *nine[] = {"9"};
    db_prefetch(db, &st_count, NULL);
    if (!db_defer(db, &st_ord_check, one))
        return DB_TX_ERROR;
    if (*sent_first) {
        PGresult *r = db_exec(db, &st_count, NULL);
        if (!r)
            return DB_TX_ERROR;
        PQclear(r);
    }
    if (!db_defer(db, &st_ord, two) || !db_defer(db, &st_ord, three))
        return DB_TX_ERROR;
    CU_ASSERT(db_defer_after(db, &st_ord_check, &st_ord, nine));
    CU_ASSERT_EQUAL(db_unsent(db, &st_ord_check), !*sent_first);
    return DB_TX_OK;
}

static void test_defer_after(void)
{
    char order[64];
    bool sent_first = false;
    CU_ASSERT_EQUAL(db_transaction(db_thread(), defer_after, &sent_first), DB_OK);
    order_in(order, sizeof order);
    CU_ASSERT_STRING_EQUAL(order, "1,9,2,3");
    sent_first = true;
    CU_ASSERT_EQUAL(db_transaction(db_thread(), defer_after, &sent_first), DB_OK);
    order_in(order, sizeof order);
    CU_ASSERT_STRING_EQUAL(order, "1,9,2,3");
    /* Outside a transaction it runs at once. */
    const char *five[] = {"5"};
    CU_ASSERT(db_defer_after(db_thread(), &st_ord_check, &st_ord, five));
    order_in(order, sizeof order);
    CU_ASSERT_STRING_EQUAL(order, "5");
}

struct time_ctx {
    char first[40], again[40], server[40];
};

static enum db_tx tx_times(struct db *db, void *arg)
{
    struct time_ctx *t = arg;
    const char *a = db_tx_time(db);
    if (!a)
        return DB_TX_ERROR;
    snprintf(t->first, sizeof t->first, "%s", a);
    PGresult *r = db_exec_sql(db, "SELECT pg_sleep(0.01), to_char(now() AT TIME ZONE 'UTC', "
                                  "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')");
    if (!r)
        return DB_TX_ERROR;
    snprintf(t->server, sizeof t->server, "%s", PQgetvalue(r, 0, 1));
    PQclear(r);
    const char *b = db_tx_time(db);
    snprintf(t->again, sizeof t->again, "%s", b ? b : "");
    return DB_TX_OK;
}

static void test_tx_time(void)
{
    struct time_ctx one, two;
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), tx_times, &one), DB_OK);
    CU_ASSERT_EQUAL(strlen(one.first), strlen("2026-01-01T00:00:00.000Z"));
    CU_ASSERT_STRING_EQUAL(one.first, one.server);
    CU_ASSERT_STRING_EQUAL(one.first, one.again);
    /* The next transaction has a time of its own (10 ms later at least). */
    CU_ASSERT_EQUAL_FATAL(db_transaction(db_thread(), tx_times, &two), DB_OK);
    CU_ASSERT_TRUE(strcmp(two.first, one.first) > 0);
}

void register_tx_tests(void)
{
    CU_pSuite s = CU_add_suite("transactions", suite_init, suite_clean);
    CU_add_test(s, "serialization failures are retried", test_retries_serialization_failures);
    CU_add_test(s, "deadlocks are retried", test_retries_deadlocks);
    CU_add_test(s, "retries are bounded", test_retries_are_bounded);
    CU_add_test(s, "what moved on is run again, past the attempts of a collision, and bounded",
                test_moved_on_runs_again);
    CU_add_test(s, "an answer stored for a key taken as new: run again, counted apart",
                test_key_answered_runs_again);
    CU_add_test(s, "other errors are not retried", test_other_errors_not_retried);
    CU_add_test(s, "abort writes nothing", test_abort_writes_nothing);
    CU_add_test(s, "held-back writes go with COMMIT", test_held_back_writes_commit);
    CU_add_test(s, "a held-back write that fails fails the COMMIT; nothing written",
                test_held_back_failure_fails_commit);
    CU_add_test(s, "a held-back write's serialization failure is retried",
                test_held_back_serialization_failure_retried);
    CU_add_test(s, "held-back writes are dropped on abort", test_held_back_dropped_on_abort);
    CU_add_test(s, "a held-back write that fails fails the next statement",
                test_held_back_failure_fails_next_statement);
    CU_add_test(s, "a held-back write put after another goes right after it, or first once it went",
                test_defer_after);
    CU_add_test(s, "a prefetched read runs after the statement it goes with", test_prefetch);
    CU_add_test(s, "a read asked for before its prefetch went out runs once",
                test_prefetch_asked_early);
    CU_add_test(s, "the transaction's time is now() of the transaction", test_tx_time);
    CU_add_test(s, "reconnect after a PostgreSQL restart", test_reconnect_after_restart);
}
