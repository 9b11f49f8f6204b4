#include "db/db.h"

#include "util/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DB_MAX_STATEMENTS 256
#define DB_TX_ATTEMPTS    6

struct db {
    PGconn *conn;
    bool prepared[DB_MAX_STATEMENTS];
    char sqlstate[6];
    char error[512];
    bool lost;       /* the previous connection was lost; the next successful one is a reconnect */
    struct db *next; /* registry of every connection, for db_shutdown */
};

static char *db_conninfo;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct db *registry;
static _Thread_local struct db *thread_db;
static atomic_int next_slot = 1;
static atomic_uint_fast64_t stat_errors, stat_reconnects;

void db_init(const char *conninfo)
{
    free(db_conninfo);
    db_conninfo = strdup(conninfo);
}

static void db_close(struct db *db, const char *reason)
{
    if (!db->conn)
        return;
    log_msg(LOG_INFO, "db", "closing database connection: %s", reason);
    PQfinish(db->conn);
    db->conn = NULL;
}

void db_shutdown(void)
{
    pthread_mutex_lock(&registry_lock);
    struct db *db = registry;
    registry = NULL;
    pthread_mutex_unlock(&registry_lock);
    while (db) {
        struct db *next = db->next;
        db_close(db, "shutdown");
        free(db);
        db = next;
    }
    thread_db = NULL;
}

struct db *db_thread(void)
{
    if (thread_db)
        return thread_db;
    struct db *db = calloc(1, sizeof *db);
    if (!db)
        abort(); /* out of memory at this size leaves nothing sensible to do */
    pthread_mutex_lock(&registry_lock);
    db->next = registry;
    registry = db;
    pthread_mutex_unlock(&registry_lock);
    thread_db = db;
    return db;
}

/* Trims libpq's multi-line messages to their first line for the log. */
static void set_error(struct db *db, const char *sqlstate, const char *msg)
{
    snprintf(db->sqlstate, sizeof db->sqlstate, "%s", sqlstate ? sqlstate : "");
    snprintf(db->error, sizeof db->error, "%s", msg ? msg : "");
    char *nl = strchr(db->error, '\n');
    if (nl)
        *nl = '\0';
}

/* Server notices ("relation already exists, skipping") go to the debug log, not stderr. */
static void notice(void *arg, const char *message)
{
    (void)arg;
    char line[512];
    snprintf(line, sizeof line, "%s", message);
    line[strcspn(line, "\n")] = '\0';
    log_msg(LOG_DEBUG, "db", "server notice: %s", line);
}

static PGconn *connect_now(void)
{
    /* Defaults first: a later keyword (from the expanded dbname string) overrides them. */
    const char *keys[] = {"connect_timeout", "application_name", "dbname", "client_encoding", NULL};
    const char *vals[] = {"5", "m44d", db_conninfo ? db_conninfo : "", "UTF8", NULL};
    return PQconnectdbParams(keys, vals, 1);
}

bool db_ensure(struct db *db)
{
    if (db->conn && PQstatus(db->conn) == CONNECTION_OK)
        return true;
    if (db->conn) {
        char reason[600];
        snprintf(reason, sizeof reason, "connection lost (%s)",
                 *PQerrorMessage(db->conn) ? PQerrorMessage(db->conn) : "status bad");
        char *nl = strchr(reason, '\n');
        if (nl)
            snprintf(nl, sizeof reason - (size_t)(nl - reason), ")");
        db_close(db, reason);
        db->lost = true;
    }
    memset(db->prepared, 0, sizeof db->prepared);
    PGconn *c = connect_now();
    if (PQstatus(c) != CONNECTION_OK) {
        set_error(db, "08006", PQerrorMessage(c));
        PQfinish(c);
        atomic_fetch_add(&stat_errors, 1);
        return false;
    }
    if (db->lost)
        atomic_fetch_add(&stat_reconnects, 1);
    db->lost = false;
    PQsetNoticeProcessor(c, notice, NULL);
    db->conn = c;
    return true;
}

bool db_wait_ready(int seconds)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long delay_ms = 100;
    struct db *db = db_thread();
    for (;;) {
        if (db_ensure(db))
            return true;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double waited = (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
        if (waited >= seconds) {
            log_msg(LOG_ERROR, "db", "database unavailable after %d s: %s", seconds, db->error);
            return false;
        }
        log_msg(LOG_WARN, "db", "database not ready (%s); retrying in %ld ms", db->error, delay_ms);
        struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
        delay_ms = delay_ms * 2 > 2000 ? 2000 : delay_ms * 2;
    }
}

/* Records a failed result; returns NULL after clearing it. */
static PGresult *fail(struct db *db, PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = r ? PQresultErrorMessage(r) : NULL;
    if (!msg || !*msg)
        msg = PQerrorMessage(db->conn);
    set_error(db, state ? state : (PQstatus(db->conn) != CONNECTION_OK ? "08006" : ""), msg);
    atomic_fetch_add(&stat_errors, 1);
    log_msg(LOG_WARN, "db", "statement failed [%s]: %s", db->sqlstate, db->error);
    PQclear(r);
    return NULL;
}

static bool result_ok(const PGresult *r)
{
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

PGresult *db_exec(struct db *db, struct db_statement *st, const char *const *params)
{
    if (!db->conn)
        return fail(db, NULL);
    int slot = atomic_load(&st->slot);
    if (slot == 0) {
        int want = atomic_fetch_add(&next_slot, 1);
        int expected = 0;
        if (want >= DB_MAX_STATEMENTS)
            abort(); /* a build with more statements than slots is a programming error */
        if (atomic_compare_exchange_strong(&st->slot, &expected, want))
            slot = want;
        else
            slot = expected;
    }
    if (!db->prepared[slot]) {
        PGresult *p = PQprepare(db->conn, st->name, st->sql, st->nparams, NULL);
        if (!result_ok(p))
            return fail(db, p);
        PQclear(p);
        db->prepared[slot] = true;
    }
    PGresult *r = PQexecPrepared(db->conn, st->name, st->nparams, params, NULL, NULL, 0);
    if (!result_ok(r))
        return fail(db, r);
    db->sqlstate[0] = '\0';
    return r;
}

long db_command(struct db *db, struct db_statement *st, const char *const *params)
{
    PGresult *r = db_exec(db, st, params);
    if (!r)
        return -1;
    long n = atol(PQcmdTuples(r));
    PQclear(r);
    return n;
}

PGresult *db_exec_sql(struct db *db, const char *sql)
{
    if (!db->conn)
        return fail(db, NULL);
    PGresult *r = PQexec(db->conn, sql);
    if (!result_ok(r))
        return fail(db, r);
    return r;
}

const char *db_last_sqlstate(const struct db *db)
{
    return db->sqlstate;
}

const char *db_last_error(const struct db *db)
{
    return db->error;
}

static bool retryable(const struct db *db)
{
    return strcmp(db->sqlstate, "40001") == 0 || strcmp(db->sqlstate, "40P01") == 0;
}

static bool lost(const struct db *db)
{
    return !db->conn || PQstatus(db->conn) != CONNECTION_OK;
}

static bool run_simple(struct db *db, const char *sql, const char *expect_status)
{
    PGresult *r = db_exec_sql(db, sql);
    if (!r)
        return false;
    bool ok = !expect_status || strcmp(PQcmdStatus(r), expect_status) == 0;
    PQclear(r);
    return ok;
}

enum db_result db_transaction(struct db *db, db_tx_fn fn, void *ctx)
{
    for (int attempt = 0; attempt < DB_TX_ATTEMPTS; attempt++) {
        if (attempt > 0) {
            /* Short, growing pause so contenders do not collide again at once. */
            struct timespec ts = {0, (long)(1000000L * (1L << attempt) + rand() % 1000000)};
            nanosleep(&ts, NULL);
        }
        if (!db_ensure(db))
            return DB_UNAVAILABLE;
        if (PQtransactionStatus(db->conn) != PQTRANS_IDLE)
            run_simple(db, "ROLLBACK", NULL);
        if (!run_simple(db, "BEGIN", NULL)) {
            if (lost(db))
                continue; /* reconnect and try again: nothing was written */
            return DB_FAILED;
        }
        enum db_tx r = fn(db, ctx);
        if (r == DB_TX_OK) {
            if (run_simple(db, "COMMIT", "COMMIT"))
                return DB_OK;
            if (retryable(db))
                continue;
            if (lost(db))
                return DB_UNAVAILABLE; /* COMMIT's outcome is unknown: the client retries */
            if (!db->sqlstate[0])
                set_error(db, "", "COMMIT rolled back: a statement in the transaction failed");
            return DB_FAILED;
        }
        /* Keep the callback's error, not ROLLBACK's, for the retry decision. */
        char state[6], err[512];
        memcpy(state, db->sqlstate, sizeof state);
        memcpy(err, db->error, sizeof err);
        if (!lost(db))
            run_simple(db, "ROLLBACK", NULL);
        set_error(db, state, err);
        if (r == DB_TX_ABORT)
            return DB_ABORTED;
        if (retryable(db))
            continue;
        if (lost(db))
            continue;
        return DB_FAILED;
    }
    return lost(db) ? DB_UNAVAILABLE : DB_FAILED;
}

uint64_t db_stat_errors(void)
{
    return atomic_load(&stat_errors);
}

uint64_t db_stat_reconnects(void)
{
    return atomic_load(&stat_reconnects);
}

long long db_ll(const PGresult *r, int row, int col)
{
    const char *v = db_val(r, row, col);
    return v ? atoll(v) : 0;
}

bool db_bool(const PGresult *r, int row, int col)
{
    const char *v = db_val(r, row, col);
    return v && v[0] == 't';
}
