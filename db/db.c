#include "db/db.h"
#include "db/store.h"

#include "util/log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DB_MAX_STATEMENTS 256
#define DB_TX_ATTEMPTS    6
/* Runs again because what a transaction started from had moved on, beyond DB_TX_ATTEMPTS: each
 * is a real change (a grand campaign's campaign added, at most one per campaign of its list). */
#define DB_MOVED_ON_AGAIN 16
#define DB_QUEUE_MAX      32 /* statements held back at most; then they are sent */

/* A statement held back to go to the server with the next round trip (see db_defer). */
struct queued {
    struct db_statement *st;
    char **params;   /* copies */
    bool want;       /* a prefetch: keep the result for db_exec */
    PGresult *ready; /* a prefetch's result, once it has come back */
};

struct db {
    PGconn *conn;
    bool prepared[DB_MAX_STATEMENTS];
    bool in_tx;         /* inside db_transaction's callback */
    bool begin_pending; /* BEGIN goes with the first statement of the transaction */
    struct queued queue[DB_QUEUE_MAX];
    int nqueue;
    char sqlstate[6];
    char error[512];
    bool lost;     /* the previous connection was lost; the next successful one is a reconnect */
    bool answered; /* a pipeline of statements has come back on this connection */
    bool standby;  /* a connection to --read-database (db_thread_standby) */
    /* The message of a FATAL that came while idle (the server has ended this connection); "":
     * none. */
    char ended[200];
    char tx_time[40]; /* db_tx_time's answer in this attempt of the transaction ("": not asked) */
    /* A unique index whose violation in this attempt means that what the transaction started
     * from moved on (db_defer_clash_moved_on); NULL: none. */
    const char *clash_moved_on;
    struct db *next; /* registry of every connection, for db_shutdown */
};

static char *db_conninfo, *standby_conninfo;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct db *registry;
static _Thread_local struct db *thread_db, *thread_standby;
static atomic_int next_slot = 1;
static atomic_uint_fast64_t stat_errors, stat_reconnects;
static atomic_uint_fast64_t stat_reruns[DB_RERUNS];

void db_init(const char *conninfo)
{
    free(db_conninfo);
    db_conninfo = strdup(conninfo);
}

void db_init_standby(const char *conninfo)
{
    free(standby_conninfo);
    standby_conninfo = conninfo && *conninfo ? strdup(conninfo) : NULL;
}

bool db_has_standby(void)
{
    return standby_conninfo != NULL;
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
    thread_db = thread_standby = NULL;
}

static struct db *db_new(bool standby)
{
    struct db *db = calloc(1, sizeof *db);
    if (!db)
        abort(); /* out of memory at this size leaves nothing sensible to do */
    db->standby = standby;
    pthread_mutex_lock(&registry_lock);
    db->next = registry;
    registry = db;
    pthread_mutex_unlock(&registry_lock);
    return db;
}

struct db *db_thread(void)
{
    if (!thread_db)
        thread_db = db_new(false);
    return thread_db;
}

struct db *db_thread_standby(void)
{
    if (!standby_conninfo)
        return NULL;
    if (!thread_standby)
        thread_standby = db_new(true);
    return thread_standby;
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

/* Server notices ("relation already exists, skipping") go to the debug log, not stderr. An
 * error that comes while the connection is idle is passed here too: a FATAL one means that the
 * server, or a pooler in front of it, has ended the connection (see idle_link_ended). The
 * severity as sent: PostgreSQL adds it untranslated (V), PgBouncer sends only S, in English. */
static void notice(void *arg, const PGresult *res)
{
    struct db *db = arg;
    const char *severity = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
    if (!severity)
        severity = PQresultErrorField(res, PG_DIAG_SEVERITY);
    if (db && severity && (strcmp(severity, "FATAL") == 0 || strcmp(severity, "PANIC") == 0)) {
        const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
        snprintf(db->ended, sizeof db->ended, "%s", msg && *msg ? msg : severity);
    }
    char line[512];
    snprintf(line, sizeof line, "%s", PQresultErrorMessage(res));
    line[strcspn(line, "\n")] = '\0';
    log_msg(LOG_DEBUG, "db", "server notice: %s", line);
}

/* TCP keepalives: a peer that vanished is noticed within about 11 s (5 idle, then 3 probes 2 s
 * apart). */
#define KEEPALIVE_KEYS   "keepalives_idle", "keepalives_interval", "keepalives_count"
#define KEEPALIVE_VALUES "5", "2", "3"

/* A connection with keepalives (a peer that vanished is noticed in seconds, not at the kernel's
 * TCP timeout; TCP only, ignored on a unix socket). After dbname: this name wins over one in the
 * connection string. */
static PGconn *connect_named(const char *conninfo, const char *application_name,
                             const char *connect_timeout)
{
    const char *keys[] = {
        "connect_timeout",  "dbname", "application_name", "client_encoding", KEEPALIVE_KEYS,
        "tcp_user_timeout", NULL};
    const char *vals[] = {connect_timeout,
                          conninfo ? conninfo : "",
                          application_name,
                          "UTF8",
                          KEEPALIVE_VALUES,
                          "10000",
                          NULL};
    return PQconnectdbParams(keys, vals, 1);
}

static PGconn *connect_now(const struct db *db)
{
    /* A standby that does not answer is given up sooner: the primary can answer instead. */
    if (db->standby)
        return connect_named(standby_conninfo, "m44d reader", "2");
    /* Defaults first: a later keyword (from the expanded dbname string) overrides them. The
     * keepalives are connect_named's: a server that vanished (its host down, a failover) is
     * noticed in seconds, not at the kernel's TCP timeout. Not its tcp_user_timeout: that would
     * also end a healthy link whose backend, waiting on a lock, stops reading a long pipeline
     * (an import's) for more than its time. */
    const char *keys[] = {"connect_timeout", "application_name", KEEPALIVE_KEYS,
                          "dbname",          "client_encoding",  NULL};
    const char *vals[] = {"5",    "m44d", KEEPALIVE_VALUES, db_conninfo ? db_conninfo : "",
                          "UTF8", NULL};
    return PQconnectdbParams(keys, vals, 1);
}

PGconn *db_connect_as(const char *application_name)
{
    return connect_named(db_conninfo, application_name, "5");
}

PGconn *db_connect_standby_as(const char *application_name)
{
    return connect_named(standby_conninfo, application_name, "5");
}

bool db_is_standby(const struct db *db)
{
    return db->standby;
}

/*
 * Whether the server, or a pooler in front of it, ended this connection while it sat idle (a
 * restart; a pooler whose server crashed): it sent a FATAL message, or closed the link, or both,
 * and nobody has read them yet. Seen before a transaction is sent, the transaction goes on a new
 * connection and its outcome stays certain; sent into the dead link, a write could only be
 * answered "maybe done" (503 outcome-unknown), and after a restart the first write on every
 * connection would be. Polls that do not wait; no round trip. (What is not here yet, a message
 * still on its way, or a link that vanished without a word, is not seen: see attempt_once.)
 */
static bool idle_link_ended(struct db *db)
{
    if (db->in_tx || PQtransactionStatus(db->conn) != PQTRANS_IDLE)
        return false;
    struct pollfd p = {.fd = PQsocket(db->conn), .events = POLLIN};
    if (p.fd < 0)
        return true;
    /* Have libpq parse what it read (an error while idle goes to notice()), then read what
     * came: the end of the stream may need a read after the message's. */
    for (int i = 0; i < 3; i++) {
        (void)PQisBusy(db->conn);
        if (db->ended[0])
            break;
        int n;
        do
            n = poll(&p, 1, 0);
        while (n < 0 && errno == EINTR);
        if (n <= 0)
            break;
        if (!PQconsumeInput(db->conn))
            return true; /* the end of the stream: libpq has marked the connection bad */
    }
    return db->ended[0] || PQstatus(db->conn) != CONNECTION_OK;
}

bool db_ensure(struct db *db)
{
    if (db->conn && PQstatus(db->conn) == CONNECTION_OK && !idle_link_ended(db))
        return true;
    if (db->conn) {
        char reason[600];
        if (PQstatus(db->conn) == CONNECTION_OK) /* ended while idle (idle_link_ended) */
            snprintf(reason, sizeof reason, "connection lost (ended while idle: %s)",
                     db->ended[0] ? db->ended : "no socket");
        else
            snprintf(reason, sizeof reason, "connection lost (%s)",
                     *PQerrorMessage(db->conn) ? PQerrorMessage(db->conn) : "status bad");
        char *nl = strchr(reason, '\n');
        if (nl)
            snprintf(nl, sizeof reason - (size_t)(nl - reason), ")");
        db_close(db, reason);
        db->lost = true;
    }
    memset(db->prepared, 0, sizeof db->prepared);
    PGconn *c = connect_now(db);
    if (PQstatus(c) != CONNECTION_OK) {
        set_error(db, "08006", PQerrorMessage(c));
        PQfinish(c);
        atomic_fetch_add(&stat_errors, 1);
        return false;
    }
    if (db->lost)
        atomic_fetch_add(&stat_reconnects, 1);
    db->lost = false;
    db->ended[0] = '\0';
    db->answered = false;
    PQsetNoticeReceiver(c, notice, db);
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

/* What the transaction started from moved on, or its key was answered: run it again at once. */
static bool moved_on(const struct db *db)
{
    return strcmp(db->sqlstate, DB_SQLSTATE_MOVED_ON) == 0 ||
           strcmp(db->sqlstate, DB_SQLSTATE_KEY_ANSWERED) == 0;
}

/* Whether r failed on a clash with the unique index that this attempt of the transaction
 * takes as a state moved on (db_defer_clash_moved_on). */
static bool clash_means_moved_on(const struct db *db, const PGresult *r, const char *state)
{
    const char *index = PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME);
    return db->clash_moved_on && state && strcmp(state, "23505") == 0 && index &&
           strcmp(index, db->clash_moved_on) == 0;
}

/* Records a failed result; returns NULL after clearing it. */
static PGresult *fail(struct db *db, PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (r && clash_means_moved_on(db, r, state))
        state = DB_SQLSTATE_MOVED_ON; /* the message still names the index */
    const char *msg = r ? PQresultErrorMessage(r) : NULL;
    if (!msg || !*msg)
        msg = PQerrorMessage(db->conn);
    set_error(db, state ? state : (PQstatus(db->conn) != CONNECTION_OK ? "08006" : ""), msg);
    bool again = moved_on(db); /* not a failure */
    if (!again)
        atomic_fetch_add(&stat_errors, 1);
    log_msg(again ? LOG_DEBUG : LOG_WARN, "db", "statement failed [%s]: %s", db->sqlstate,
            db->error);
    PQclear(r);
    return NULL;
}

static bool result_ok(const PGresult *r)
{
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

static int statement_slot(struct db_statement *st)
{
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
    return slot;
}

/* --- Pipelining -------------------------------------------------------------------------
 * Inside a transaction, BEGIN is not sent on its own: it goes with the first statement.
 * Statements whose result is not needed (db_defer) and reads wanted later (db_prefetch) wait
 * in the queue and go with the next statement that must be answered now, or with COMMIT. All
 * of them travel in one libpq pipeline: one round trip instead of one each. When one fails,
 * the server skips the rest up to the pipeline's end, and the transaction is rolled back. */

static void queued_free(struct queued *q)
{
    for (int i = 0; q->params && i < q->st->nparams; i++)
        free(q->params[i]);
    free(q->params);
    PQclear(q->ready);
    memset(q, 0, sizeof *q);
}

static void queue_clear(struct db *db)
{
    for (int i = 0; i < db->nqueue; i++)
        queued_free(&db->queue[i]);
    db->nqueue = 0;
}

/* Closes the gaps queued_free left, keeping the order: writes reach the server as made. */
static void queue_compact(struct db *db)
{
    int keep = 0;
    for (int i = 0; i < db->nqueue; i++)
        if (db->queue[i].st)
            db->queue[keep++] = db->queue[i];
    for (int i = keep; i < db->nqueue; i++)
        memset(&db->queue[i], 0, sizeof db->queue[i]);
    db->nqueue = keep;
}

/* Nothing can be read back from it reliably: drop the connection, as if it were lost. */
static void drop_connection(struct db *db)
{
    PQfinish(db->conn);
    db->conn = NULL;
    db->lost = true;
}

static bool has_pending(const struct db *db)
{
    if (db->begin_pending)
        return true;
    for (int i = 0; i < db->nqueue; i++)
        if (!db->queue[i].ready)
            return true;
    return false;
}

static bool same_params(const struct queued *q, struct db_statement *st, const char *const *params)
{
    if (q->st != st)
        return false;
    for (int i = 0; i < st->nparams; i++) {
        const char *a = q->params[i], *b = params[i];
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
            return false;
    }
    return true;
}

/* What was sent in one pipeline, in order, to read the results back against. */
enum sent_kind { SENT_BEGIN, SENT_PREPARE, SENT_QUERY, SENT_COMMIT };
struct sent {
    enum sent_kind kind;
    int slot;         /* SENT_PREPARE */
    struct queued *q; /* SENT_QUERY from the queue */
    PGresult **out;   /* SENT_QUERY answered now */
};

static bool send_statement(struct db *db, struct db_statement *st, const char *const *params,
                           struct sent *sent, int *nsent)
{
    int slot = statement_slot(st);
    if (!db->prepared[slot]) {
        if (!PQsendPrepare(db->conn, st->name, st->sql, st->nparams, NULL))
            return false;
        db->prepared[slot] = true; /* undone below if the server refused it */
        sent[(*nsent)++] = (struct sent){.kind = SENT_PREPARE, .slot = slot};
    }
    return PQsendQueryPrepared(db->conn, st->name, st->nparams, params, NULL, NULL, 0) == 1;
}

/* Sends the queued statements not yet answered: the held-back writes, or the prefetches. */
static bool send_queued(struct db *db, bool want, struct sent *sent, int *nsent)
{
    for (int i = 0; i < db->nqueue; i++) {
        struct queued *q = &db->queue[i];
        if (q->ready || q->want != want)
            continue;
        if (!send_statement(db, q->st, (const char *const *)q->params, sent, nsent))
            return false;
        sent[(*nsent)++] = (struct sent){.kind = SENT_QUERY, .q = q};
    }
    return true;
}

/* BEGIN and COMMIT, prepared once a connection as any statement: not parsed again each time. */
static struct db_statement st_begin = {"begin", "BEGIN", 0, 0};
static struct db_statement st_commit = {"commit", "COMMIT", 0, 0};

/*
 * Sends BEGIN (if pending), the queue, then `st` (if any; its result goes to *out) and COMMIT
 * (if `commit`), in one pipeline, and reads every result. Returns false if any failed: the
 * first failure is recorded as the connection's error.
 */
static bool pipeline(struct db *db, struct db_statement *st, const char *const *params,
                     PGresult **out, bool commit)
{
    /* BEGIN, the queue (at most DB_QUEUE_MAX), the statement and COMMIT: each may go with its
     * preparation. */
    struct sent sent[2 * (DB_QUEUE_MAX + 3)];
    int nsent = 0;
    bool ok = PQenterPipelineMode(db->conn) == 1;
    if (ok && db->begin_pending) {
        ok = send_statement(db, &st_begin, NULL, sent, &nsent);
        sent[nsent++] = (struct sent){.kind = SENT_BEGIN};
    }
    /* Held-back writes first, in order; then the statement; then the reads, which so see what
     * it did and wait for the locks it took. */
    ok = ok && send_queued(db, false, sent, &nsent);
    if (ok && st) {
        ok = send_statement(db, st, params, sent, &nsent);
        sent[nsent++] = (struct sent){.kind = SENT_QUERY, .out = out};
    }
    ok = ok && send_queued(db, true, sent, &nsent);
    if (ok && commit) {
        ok = send_statement(db, &st_commit, NULL, sent, &nsent);
        sent[nsent++] = (struct sent){.kind = SENT_COMMIT};
    }
    if (!ok || !PQpipelineSync(db->conn)) {
        fail(db, NULL);
        drop_connection(db);
        queue_clear(db);
        return false;
    }
    db->begin_pending = false;
    bool failed = false;
    for (int i = 0; i < nsent; i++) {
        PGresult *r = PQgetResult(db->conn);
        if (!r) { /* the connection broke */
            if (!failed)
                fail(db, NULL);
            failed = true;
            break;
        }
        ExecStatusType s = PQresultStatus(r);
        bool good = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
        if (sent[i].kind == SENT_PREPARE && !good)
            db->prepared[sent[i].slot] = false;
        if (sent[i].kind == SENT_COMMIT && good && strcmp(PQcmdStatus(r), "COMMIT") != 0)
            good = false; /* the transaction had failed: COMMIT rolled it back */
        if (!good && !failed && s != PGRES_PIPELINE_ABORTED) {
            failed = true;
            fail(db, r);
            r = NULL;
        } else if (!good) {
            failed = true;
        }
        if (good && sent[i].kind == SENT_QUERY) {
            if (sent[i].out)
                *sent[i].out = r;
            else if (sent[i].q->want)
                sent[i].q->ready = r;
            else
                PQclear(r);
            r = NULL;
        }
        PQclear(r);
        PGresult *end = PQgetResult(db->conn); /* NULL closes each statement's results */
        PQclear(end);
    }
    if (db->conn && PQstatus(db->conn) == CONNECTION_OK) {
        PGresult *r = PQgetResult(db->conn);
        if (!r || PQresultStatus(r) != PGRES_PIPELINE_SYNC) {
            if (!failed)
                fail(db, NULL);
            failed = true;
        }
        PQclear(r);
        if (!PQexitPipelineMode(db->conn)) {
            if (!failed)
                fail(db, NULL);
            failed = true;
            drop_connection(db);
        }
    }
    /* Held-back writes are done (or failed with the transaction); prefetches stay for db_exec. */
    for (int i = 0; i < db->nqueue; i++)
        if (failed || !db->queue[i].ready)
            queued_free(&db->queue[i]);
    queue_compact(db);
    if (failed && out && *out) {
        PQclear(*out);
        *out = NULL;
    }
    db->answered = db->answered || !failed;
    return !failed;
}

static bool enqueue(struct db *db, struct db_statement *st, const char *const *params, bool want)
{
    if (db->nqueue == DB_QUEUE_MAX && !pipeline(db, NULL, NULL, NULL, false))
        return false;
    if (db->nqueue == DB_QUEUE_MAX) { /* all of them are prefetches nobody took: drop them */
        queue_clear(db);
    }
    struct queued *q = &db->queue[db->nqueue];
    q->st = st;
    q->want = want;
    q->params = calloc((size_t)st->nparams + 1, sizeof *q->params);
    bool ok = q->params != NULL;
    for (int i = 0; ok && i < st->nparams; i++)
        ok = !params[i] || (q->params[i] = strdup(params[i])) != NULL;
    if (!ok) {
        queued_free(q);
        set_error(db, "53200", "out of memory");
        return false;
    }
    db->nqueue++;
    return true;
}

/* Prefetches nobody asked for are not worth sending with COMMIT. */
static void queue_clear_unwanted(struct db *db)
{
    for (int i = 0; i < db->nqueue; i++)
        if (db->queue[i].want)
            queued_free(&db->queue[i]);
    queue_compact(db);
}

bool db_defer(struct db *db, struct db_statement *st, const char *const *params)
{
    if (!db->in_tx) {
        PGresult *r = db_exec(db, st, params);
        PQclear(r);
        return r != NULL;
    }
    if (!db->conn) {
        fail(db, NULL);
        return false;
    }
    return enqueue(db, st, params, false);
}

bool db_defer_clash_moved_on(struct db *db, struct db_statement *st, const char *const *params,
                             const char *index)
{
    if (db->in_tx)
        db->clash_moved_on = index; /* for this attempt only (attempt) */
    return db_defer(db, st, params);
}

bool db_defer_instead(struct db *db, struct db_statement *was, struct db_statement *st,
                      const char *const *params)
{
    if (!db->in_tx || !db->conn)
        return false;
    for (int i = 0; i < db->nqueue; i++) {
        struct queued *q = &db->queue[i];
        if (q->st != was || q->want || q->ready)
            continue;
        char **copy = calloc((size_t)st->nparams + 1, sizeof *copy);
        bool ok = copy != NULL;
        for (int k = 0; ok && k < st->nparams; k++)
            ok = !params[k] || (copy[k] = strdup(params[k])) != NULL;
        if (!ok) {
            for (int k = 0; copy && k < st->nparams; k++)
                free(copy[k]);
            free(copy);
            return false;
        }
        for (int k = 0; k < q->st->nparams; k++)
            free(q->params[k]);
        free(q->params);
        q->st = st;
        q->params = copy;
        return true;
    }
    return false;
}

bool db_defer_after(struct db *db, const struct db_statement *was, struct db_statement *st,
                    const char *const *params)
{
    if (!db->in_tx || !db->conn)
        return db_defer(db, st, params);
    if (!enqueue(db, st, params, false))
        return false;
    /* Queued last: moved to its place, the held-back statements from there on one later. */
    int last = db->nqueue - 1, at = -1;
    for (int i = 0; i < last && at < 0; i++) {
        const struct queued *q = &db->queue[i];
        if (q->st == was && !q->want && !q->ready)
            at = i + 1;
    }
    for (int i = 0; i < last && at < 0; i++)
        if (!db->queue[i].want && !db->queue[i].ready)
            at = i;
    if (at < 0)
        return true;
    struct queued moved = db->queue[last];
    memmove(&db->queue[at + 1], &db->queue[at], (size_t)(last - at) * sizeof db->queue[0]);
    db->queue[at] = moved;
    return true;
}

bool db_unsent(const struct db *db, const struct db_statement *st)
{
    for (int i = 0; db->in_tx && i < db->nqueue; i++)
        if (db->queue[i].st == st && !db->queue[i].want && !db->queue[i].ready)
            return true;
    return false;
}

bool db_flush(struct db *db)
{
    if (!db->conn) {
        fail(db, NULL);
        return false;
    }
    return !has_pending(db) || pipeline(db, NULL, NULL, NULL, false);
}

void db_prefetch(struct db *db, struct db_statement *st, const char *const *params)
{
    if (db->in_tx && db->conn)
        enqueue(db, st, params, true); /* on failure, db_exec simply asks again */
}

static struct db_statement st_tx_time = {"tx_time", "SELECT " DB_TS("now()"), 0, 0};

const char *db_tx_time(struct db *db)
{
    if (!db->tx_time[0]) {
        PGresult *r = db_exec(db, &st_tx_time, NULL);
        if (!r)
            return NULL;
        snprintf(db->tx_time, sizeof db->tx_time, "%s",
                 PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "");
        PQclear(r);
        if (!db->tx_time[0])
            return NULL;
    }
    return db->tx_time;
}

PGresult *db_exec(struct db *db, struct db_statement *st, const char *const *params)
{
    if (!db->conn)
        return fail(db, NULL);
    /* Asked for before its prefetch was sent: the pipeline goes now, with the prefetch in it,
     * rather than the statement twice. */
    for (int i = 0; i < db->nqueue; i++) {
        if (!db->queue[i].ready && db->queue[i].want && same_params(&db->queue[i], st, params)) {
            if (!pipeline(db, NULL, NULL, NULL, false))
                return NULL;
            break;
        }
    }
    for (int i = 0; i < db->nqueue; i++) {
        struct queued *q = &db->queue[i];
        if (q->ready && same_params(q, st, params)) {
            PGresult *r = q->ready;
            q->ready = NULL;
            queued_free(q);
            queue_compact(db);
            db->sqlstate[0] = '\0';
            return r;
        }
    }
    if (has_pending(db)) {
        PGresult *r = NULL;
        if (!pipeline(db, st, params, &r, false))
            return NULL;
        db->sqlstate[0] = '\0';
        return r;
    }
    int slot = statement_slot(st);
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
    if (has_pending(db) && !pipeline(db, NULL, NULL, NULL, false))
        return NULL;
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
    return strcmp(db->sqlstate, "40001") == 0 || strcmp(db->sqlstate, "40P01") == 0 || moved_on(db);
}

/* Counts a transaction about to run again, by why its last attempt failed. */
static void note_rerun(const struct db *db)
{
    enum db_rerun cause = strcmp(db->sqlstate, DB_SQLSTATE_KEY_ANSWERED) == 0
                              ? DB_RERUN_KEY_ANSWERED
                          : moved_on(db)                       ? DB_RERUN_MOVED_ON
                          : strcmp(db->sqlstate, "40001") == 0 ? DB_RERUN_SERIALIZATION
                          : strcmp(db->sqlstate, "40P01") == 0 ? DB_RERUN_DEADLOCK
                                                               : DB_RERUN_LOST;
    atomic_fetch_add(&stat_reruns[cause], 1);
}

bool db_sqlstate_refuses_writes(const char *sqlstate)
{
    return strcmp(sqlstate, "25006") == 0 || strncmp(sqlstate, "53", 2) == 0;
}

/* When a write was last refused (CLOCK_MONOTONIC seconds; 0: never, or one committed since). */
static atomic_llong refused_at;

static void note_refused(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    atomic_store(&refused_at, (long long)ts.tv_sec);
}

void db_note_write_ok(void)
{
    atomic_store(&refused_at, 0);
}

bool db_writes_refused(void)
{
    long long at = atomic_load(&refused_at);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return at && (long long)ts.tv_sec - at < DB_REFUSED_FOR_S;
}

static bool lost(const struct db *db)
{
    return !db->conn || PQstatus(db->conn) != CONNECTION_OK;
}

bool db_lost(const struct db *db)
{
    return lost(db);
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

/* Ends an attempt that will not commit: drops what was held back, rolls back what was sent. */
static void abandon(struct db *db)
{
    queue_clear(db);
    db->begin_pending = false;
    if (!lost(db) && PQtransactionStatus(db->conn) != PQTRANS_IDLE) {
        /* Keep the failure's error, not ROLLBACK's, for the retry decision. */
        char state[6], err[512];
        memcpy(state, db->sqlstate, sizeof state);
        memcpy(err, db->error, sizeof err);
        run_simple(db, "ROLLBACK", NULL);
        set_error(db, state, err);
    }
}

static enum db_result attempt_once(struct db *db, db_tx_fn fn, void *ctx, bool *retry)
{
    *retry = false;
    if (!db_ensure(db))
        return DB_UNAVAILABLE;
    if (PQtransactionStatus(db->conn) != PQTRANS_IDLE)
        run_simple(db, "ROLLBACK", NULL);
    db->in_tx = true;
    db->begin_pending = true;
    db->tx_time[0] = '\0';
    enum db_tx r = fn(db, ctx);
    db->in_tx = false;
    if (r == DB_TX_OK) {
        queue_clear_unwanted(db);
        if (db->begin_pending && db->nqueue == 0) {
            db->begin_pending = false; /* nothing was read or written */
            return DB_OK;
        }
        /* On a connection nothing has come back on yet, the statements go first and COMMIT
         * after them, one round trip more: a pooler that takes any login (PgBouncer whose
         * server is down) breaks a new connection at its first statement, and broken before
         * COMMIT was sent, the write surely was not done; it runs again on a new connection,
         * or is answered "unavailable, nothing changed", not "maybe done". */
        bool commit_sent = false;
        if (db->answered || pipeline(db, NULL, NULL, NULL, false)) {
            commit_sent = true;
            if (pipeline(db, NULL, NULL, NULL, true))
                return DB_OK;
        }
        bool was_lost = lost(db);
        abandon(db);
        if (retryable(db) || (was_lost && !commit_sent)) {
            *retry = true;
            return DB_FAILED;
        }
        if (was_lost)
            return DB_UNKNOWN; /* COMMIT may have been carried out: the client asks again */
        if (db_sqlstate_refuses_writes(db->sqlstate)) {
            if (!db->standby)
                note_refused();
            return DB_REFUSED;
        }
        if (!db->sqlstate[0])
            set_error(db, "", "COMMIT rolled back: a statement in the transaction failed");
        return DB_FAILED;
    }
    abandon(db);
    if (r == DB_TX_ABORT)
        return DB_ABORTED;
    if (db_sqlstate_refuses_writes(db->sqlstate)) {
        if (!db->standby) /* a standby refuses every write: that says nothing of the primary */
            note_refused();
        return DB_REFUSED;
    }
    *retry = retryable(db) || lost(db); /* a lost connection: reconnect and run it again */
    return DB_FAILED;
}

/* One attempt; what it took as a clash moved on is forgotten after it. */
static enum db_result attempt(struct db *db, db_tx_fn fn, void *ctx, bool *retry)
{
    db->clash_moved_on = NULL;
    enum db_result r = attempt_once(db, fn, ctx, retry);
    db->clash_moved_on = NULL;
    return r;
}

enum db_result db_transaction(struct db *db, db_tx_fn fn, void *ctx)
{
    int moved_again = 0;
    for (int n = 0; n < DB_TX_ATTEMPTS; n++) {
        if (n > 0)
            note_rerun(db);
        if (n > 0 && moved_on(db) && moved_again < DB_MOVED_ON_AGAIN) {
            moved_again++;
            n--; /* not one of the attempts: see DB_MOVED_ON_AGAIN */
        } else if (n > 0 && !moved_on(db)) {
            /* Short, growing pause so contenders do not collide again at once. (What had moved
             * on is loaded again at once: it was a change, not a collision.) */
            struct timespec ts = {0, (long)(1000000L * (1L << n) + rand() % 1000000)};
            nanosleep(&ts, NULL);
        }
        bool retry;
        enum db_result r = attempt(db, fn, ctx, &retry);
        if (!retry)
            return r;
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

const char *db_rerun_name(enum db_rerun cause)
{
    static const char *const names[DB_RERUNS] = {"moved_on", "serialization", "deadlock",
                                                 "connection_lost", "key_answered"};
    return names[cause];
}

uint64_t db_stat_reruns(enum db_rerun cause)
{
    return atomic_load(&stat_reruns[cause]);
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
