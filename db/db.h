/*
 * Database access: one PGconn per thread, prepared statements, a transaction runner.
 *
 * Every thread that talks to PostgreSQL gets its own connection from db_thread(). Statements
 * are prepared on a connection the first time they are used there, and again after a
 * reconnect. Values are always passed as parameters, never formatted into SQL.
 */
#ifndef M44_DB_H
#define M44_DB_H

#include <libpq-fe.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct db;

/* A prepared statement. Define each one `static` next to the code that uses it. */
struct db_statement {
    const char *name;
    const char *sql;
    int nparams;
    _Atomic int slot; /* assigned on first use; leave 0 */
};

/* Process-wide setup. `conninfo` is a libpq connection string or URI; it is copied. */
void db_init(const char *conninfo);

/* A hot standby to read from (--read-database; NULL or "": none). Before any thread starts. Whether
 * it may be read at a given moment is db/replica.h's to say. */
void db_init_standby(const char *conninfo);
bool db_has_standby(void);

/* Closes every thread's connection (each close is logged with the reason "shutdown"). */
void db_shutdown(void);

/*
 * Tries to connect until `seconds` have passed, with backoff. Returns true when the database
 * answered. Used at start, before serving.
 */
bool db_wait_ready(int seconds);

/* A connection of its own (not a thread's), named `application_name` in pg_stat_activity; the
 * caller checks PQstatus and PQfinishes it. For a connection that only listens. */
PGconn *db_connect_as(const char *application_name);

/* The same to the standby (--read-database). */
PGconn *db_connect_standby_as(const char *application_name);

/* The calling thread's connection object (not necessarily connected). Never NULL. */
struct db *db_thread(void);

/* The calling thread's connection to the standby; NULL when there is none. Reads only: a
 * standby refuses writes (DB_REFUSED), which says nothing of the primary's state. */
struct db *db_thread_standby(void);

/* Whether `db` is a connection to the standby. */
bool db_is_standby(const struct db *db);

/* Connects or reconnects when the connection is missing or bad. false: database unavailable. */
bool db_ensure(struct db *db);
/* Whether the connection is missing or broke (the last call lost it), without connecting again.
 * A statement that failed so found the database unavailable: a pooler, say, that takes the
 * connection and breaks it at every statement while its server is down. */
bool db_lost(const struct db *db);

/*
 * Runs a prepared statement. Returns a result the caller must PQclear, or NULL when the
 * statement failed (the error is recorded; see db_last_error). Text parameters; NULL is SQL NULL.
 */
PGresult *db_exec(struct db *db, struct db_statement *st, const char *const *params);

/* Like db_exec for statements that return no rows; returns the number of rows affected or -1. */
long db_command(struct db *db, struct db_statement *st, const char *const *params);

/*
 * Holds back a statement whose result is not needed, to send it with the transaction's next
 * round trip (the next db_exec, or COMMIT). Its failure fails that call, or the COMMIT, and
 * the transaction is rolled back. A statement whose row count matters must check it itself, in
 * SQL (see m44_expect_rows in the migrations). Parameters are copied. Outside db_transaction
 * it runs at once. false: it failed (outside a transaction) or could not be queued.
 */
bool db_defer(struct db *db, struct db_statement *st, const char *const *params);
/* db_defer, for a write made from a state held in memory that may clash with a row that state
 * did not know of (a side's roll stored, for a campaign held: the unique index says it): a
 * violation of the unique index named `index`, in this attempt of the transaction, fails it as
 * one whose state moved on (DB_SQLSTATE_MOVED_ON), and it runs again from a load. Any other
 * clash, or one in another transaction, fails as itself. */
bool db_defer_clash_moved_on(struct db *db, struct db_statement *st, const char *const *params,
                             const char *index);

/*
 * Inside db_transaction: `st` takes the place in the queue of the first held-back statement
 * `was` that has not been sent yet, so that it goes where that one would have gone (first, say,
 * ahead of the writes queued after it). false when there is none (it was sent already, with
 * the round trip of a read): nothing is queued then.
 */
bool db_defer_instead(struct db *db, struct db_statement *was, struct db_statement *st,
                      const char *const *params);
/*
 * Inside db_transaction: `st` is held back as by db_defer, but goes right after the held-back
 * statement `was` if that has not been sent yet, else ahead of every write still held back (`was`
 * went before them all). Outside a transaction it runs at once.
 */
bool db_defer_after(struct db *db, const struct db_statement *was, struct db_statement *st,
                    const char *const *params);
/* Inside db_transaction: whether a statement `st` is held back, not sent yet. */
bool db_unsent(const struct db *db, const struct db_statement *st);

/*
 * Inside db_transaction: sends a read with the next round trip and keeps its result, which
 * the first db_exec of the same statement with the same parameters then returns without
 * asking the server. It runs after the statement it travels with, so it sees what that
 * statement did and waits for the locks it took: prefetch a read, then take the lock it
 * depends on. Outside a transaction it does nothing.
 */
void db_prefetch(struct db *db, struct db_statement *st, const char *const *params);

/* The SQLSTATE of m44_campaign_at (migration 0009), m44_lock_members (0012) and m44_still
 * (0016): what the transaction started from had moved on (a campaign held in memory was written
 * elsewhere, or did not hold what the write needed; a campaign was added to a grand campaign
 * while its campaigns were being locked). db_transaction
 * runs it again at once, on a budget of its own (each one means something really changed); it is
 * not counted or logged as a failure. */
#define DB_SQLSTATE_MOVED_ON "40M44"
/* The SQLSTATE of m44_key_new (migration 0018): an answer is stored for the Idempotency-Key a
 * write took as new (db_idem_insert_new). Run again at once, as DB_SQLSTATE_MOVED_ON, and counted
 * apart: what the write started from had not moved on. */
#define DB_SQLSTATE_KEY_ANSWERED "40M45"

/* Inside db_transaction: sends what was held back (db_defer) now, and waits for it. false: it
 * failed (the error is recorded), and the transaction with it. */
bool db_flush(struct db *db);

/* Inside db_transaction: now() of the transaction, the time PostgreSQL writes where a statement
 * of it sets a column to now(), formatted as the loads read times (DB_TS in db/store.h); asked
 * of the server once per transaction. NULL: the query failed (the error is recorded). */
const char *db_tx_time(struct db *db);

/* Runs plain SQL text with no parameters (migrations, BEGIN, COMMIT). Same contract as db_exec. */
PGresult *db_exec_sql(struct db *db, const char *sql);

/* The SQLSTATE and message of the last failed call on this connection ("" when none). */
const char *db_last_sqlstate(const struct db *db);
const char *db_last_error(const struct db *db);

/* What a transaction callback reports. */
enum db_tx {
    DB_TX_OK,    /* commit */
    DB_TX_ABORT, /* roll back: the request is refused, nothing is written; not an error */
    DB_TX_ERROR, /* roll back: a statement failed (the runner decides whether to retry) */
};

/* What the transaction runner reports. */
enum db_result {
    DB_OK,          /* committed */
    DB_ABORTED,     /* the callback returned DB_TX_ABORT; rolled back */
    DB_UNAVAILABLE, /* no connection to the database; nothing was written */
    DB_UNKNOWN,     /* the connection was lost during COMMIT: written or not, nobody knows */
    DB_REFUSED,     /* the database refuses writes (read-only, disk full); nothing written */
    DB_FAILED,      /* a statement failed for another reason, or retries ran out */
};

/* Whether an SQLSTATE is the database refusing to write: read-only (25006: a standby, or
 * default_transaction_read_only) or out of resources (class 53: disk full, memory...). */
bool db_sqlstate_refuses_writes(const char *sqlstate);

/* Whether a write was refused so in the last DB_REFUSED_FOR_S seconds, with none committed
 * since (for /readyz: a full disk is seen only by writing). db_note_write_ok: one committed. */
#define DB_REFUSED_FOR_S 30
bool db_writes_refused(void);
void db_note_write_ok(void);

/*
 * Runs `fn` inside BEGIN ... COMMIT. BEGIN goes with the first statement and COMMIT with the
 * statements held back by db_defer, so a transaction costs no round trip of its own. Serialization
 * failures and deadlocks are retried a bounded number of times, so `fn` may run more than once: it
 * must (re)initialise whatever it writes into `ctx` at its start and must not reply to a client
 * itself.
 */
typedef enum db_tx (*db_tx_fn)(struct db *db, void *ctx);
enum db_result db_transaction(struct db *db, db_tx_fn fn, void *ctx);

/* Counters for /metrics. */
uint64_t db_stat_errors(void);
uint64_t db_stat_reconnects(void);

/* Why db_transaction ran a transaction again. */
enum db_rerun {
    DB_RERUN_MOVED_ON,      /* what it started from moved on (DB_SQLSTATE_MOVED_ON) */
    DB_RERUN_SERIALIZATION, /* a serialization failure (40001) */
    DB_RERUN_DEADLOCK,      /* chosen to break a deadlock (40P01) */
    DB_RERUN_LOST,          /* the connection was lost before COMMIT was sent */
    DB_RERUN_KEY_ANSWERED,  /* an answer was stored for its key (DB_SQLSTATE_KEY_ANSWERED) */
    DB_RERUNS
};
const char *db_rerun_name(enum db_rerun cause);
uint64_t db_stat_reruns(enum db_rerun cause);

/* Helpers for reading results. */
static inline const char *db_val(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}
long long db_ll(const PGresult *r, int row, int col);
bool db_bool(const PGresult *r, int row, int col);

#endif
