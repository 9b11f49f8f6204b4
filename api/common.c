#include "api/common.h"

#include "api/bodies.h"
#include "api/router.h"
#include "api/server.h"
#include "api/versioned_get.h"
#include "db/listener.h"
#include "db/replica.h"
#include "db/store.h"

#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool parse_roll_body(struct req *r, struct roll_input *in, struct write_op *op)
{
    struct jerr e;
    json_t *body = body_parse(r, &e);
    bool ok = body && parse_roll(body, in, &e);
    if (ok)
        op->names_side = body_side(body, &op->side);
    json_decref(body);
    if (!ok)
        reply_jerr(r, &e);
    return ok;
}

/* The version a read of `id` from the standby must show at least: the newest this daemon
 * knows of, the client shows in If-None-Match, or the request was answered for. A version this
 * daemon has not heard of (its listener is not current, or forgot it) is read from the primary
 * (one primary-key lookup), so that a read never shows less than a write this daemon
 * acknowledged. -1: not known (the primary failed): the standby is not used. */
static long long must_show(const struct req *r, const char *id,
                           PGresult *(*version)(struct db *db, const char *id))
{
    long long need = seen_version(r), known;
    if (r->read_at_least > need)
        need = r->read_at_least;
    if (listener_version(id, req_kind(r), &known))
        return known > need ? known : need;
    struct db *db = db_thread();
    PGresult *res = db_ensure(db) ? version(db, id) : NULL;
    if (!res)
        return -1;
    known = PQntuples(res) == 1 ? atoll(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return known > need ? known : need;
}

/*
 * Runs a read on `standby` (replica_db(): it may be read now) when there is one; else, or when
 * the standby did not answer it well (it failed, refused, or was behind: `*behind`), on the
 * primary.
 */
static enum db_result read_somewhere(struct req *r, struct db *standby, db_tx_fn fn, void *x,
                                     const bool *behind)
{
    if (standby) {
        enum db_result res = db_transaction(standby, fn, x);
        if (res == DB_OK || r->status) {
            replica_count(REPLICA_READ);
            return res;
        }
        replica_count(res != DB_ABORTED ? REPLICA_FAILED
                      : *behind         ? REPLICA_BEHIND
                                        : REPLICA_REFUSED);
    }
    return db_transaction(db_thread(), fn, x);
}

enum cres check_held_state(struct db *db, const struct req *r, const struct campaign *c,
                           bool locked)
{
    char why[300];
    enum cres rc = campaign_check_stored(db, c, locked, why, sizeof why);
    if (rc != C_REFUSED)
        return rc; /* the same, or the load failed */
    log_msg(LOG_ERROR, "state", "%s %s: the campaign in memory is not the one stored: %s",
            r->method, r->route ? r->route->pattern : r->path, why);
    return C_DBERR;
}

struct read_ctx {
    struct req *r;
    struct campaign *c;
    read_fn fn;
    void *arg;
    struct cerr err;
    long long need; /* the version a standby must have */
    bool behind;
};

static enum db_tx read_tx(struct db *db, void *arg)
{
    struct read_ctx *x = arg;
    x->behind = false;
    bool held;
    enum cres rc = campaign_read(db, x->r->params[0], x->c, &x->err, &held);
    if (rc == C_OK && held && http_options()->check_state)
        rc = check_held_state(db, x->r, x->c, false);
    if (rc == C_OK && db_is_standby(db) && x->c->version < x->need) {
        x->behind = true;
        return DB_TX_ABORT;
    }
    if (rc == C_OK)
        rc = x->fn(db, x->r, x->c, &x->err, x->arg);
    return rc == C_OK ? DB_TX_OK : rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
}

static void read_campaign_on(struct req *r, read_fn fn, void *arg, bool may_lag)
{
    if (!check_campaign_id(r))
        return;
    struct read_ctx x = {.r = r, .c = campaign_new(), .fn = fn, .arg = arg};
    if (!x.c) {
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        return;
    }
    struct db *standby = may_lag ? replica_db() : NULL;
    if (standby && (x.need = must_show(r, r->params[0], db_campaign_version)) < 0)
        standby = NULL;
    enum db_result res = read_somewhere(r, standby, read_tx, &x, &x.behind);
    campaign_free(x.c);
    if (r->status || res == DB_OK)
        return; /* fn replied, or left the reply to the caller */
    if (res == DB_ABORTED)
        reply_cerr(r, &x.err);
    else
        reply_db_failure(r, res);
}

void read_campaign(struct req *r, read_fn fn, void *arg)
{
    read_campaign_on(r, fn, arg, false);
}

void read_campaign_replica(struct req *r, read_fn fn, void *arg)
{
    read_campaign_on(r, fn, arg, true);
}

struct grand_read_ctx {
    struct req *r;
    struct grand g;
    grand_read_fn fn;
    void *arg;
    struct cerr err;
    long long need;
    bool behind;
};

static enum db_tx grand_read_tx(struct db *db, void *arg)
{
    struct grand_read_ctx *x = arg;
    x->behind = false;
    enum cres rc = grand_load(db, x->r->params[0], false, &x->g, &x->err);
    if (rc == C_OK && db_is_standby(db) && x->g.version < x->need) {
        x->behind = true;
        return DB_TX_ABORT;
    }
    if (rc == C_OK)
        rc = x->fn(db, x->r, &x->g, &x->err, x->arg);
    return rc == C_OK ? DB_TX_OK : rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
}

static void read_grand_campaign_on(struct req *r, grand_read_fn fn, void *arg, bool may_lag)
{
    if (!check_campaign_id(r))
        return;
    struct grand_read_ctx *x = calloc(1, sizeof *x); /* a grand campaign is large for a stack */
    if (!x) {
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        return;
    }
    *x = (struct grand_read_ctx){.r = r, .fn = fn, .arg = arg};
    struct db *standby = may_lag ? replica_db() : NULL;
    if (standby && (x->need = must_show(r, r->params[0], db_grand_version)) < 0)
        standby = NULL;
    enum db_result res = read_somewhere(r, standby, grand_read_tx, x, &x->behind);
    if (!r->status && res == DB_ABORTED)
        reply_cerr(r, &x->err);
    else if (!r->status && res != DB_OK)
        reply_db_failure(r, res);
    free(x);
}

void read_grand_campaign(struct req *r, grand_read_fn fn, void *arg)
{
    read_grand_campaign_on(r, fn, arg, false);
}

void read_grand_campaign_replica(struct req *r, grand_read_fn fn, void *arg)
{
    read_grand_campaign_on(r, fn, arg, true);
}

enum db_result read_anywhere(struct req *r, db_tx_fn fn, void *x)
{
    bool behind = false;
    return read_somewhere(r, replica_db(), fn, x, &behind);
}

enum cres refuse_key(struct cerr *err, const char *key, enum role replaced, const char *what)
{
    if (replaced != ROLE_NONE)
        return refuse(err, PROBLEM_UNAUTHORIZED, NULL,
                      "This %s link was replaced by a new one: ask the organizer for the new "
                      "link.",
                      replaced == ROLE_ORGANIZER ? "organizer" : side_title(role_side(replaced)));
    if (key)
        return refuse(err, PROBLEM_UNAUTHORIZED, NULL,
                      "This link's key is not one of this %s's: ask the organizer for a link.",
                      what ? what : "campaign");
    return refuse(err, PROBLEM_UNAUTHORIZED, NULL, "Send a key: Authorization: Bearer <key>.");
}

bool path_role(struct req *r, int i, enum role *role)
{
    const char *name = r->params[i];
    for (int k = 0; k < 3; k++)
        if (strcmp(name, role_name((enum role)k)) == 0) {
            *role = (enum role)k;
            return true;
        }
    reply_problem_extra(r, PROBLEM_NOT_FOUND, json_pack("{s:s}", "field", "role"),
                        "There are keys for allies, axis and organizer.");
    return false;
}

bool empty_body(struct req *r)
{
    struct jerr e;
    json_t *body = body_parse(r, &e);
    bool ok = body && parse_empty(body, &e);
    json_decref(body);
    if (!ok)
        reply_jerr(r, &e);
    return ok;
}

void reply_db_failure(struct req *r, enum db_result res)
{
    if (res == DB_UNAVAILABLE || res == DB_UNKNOWN) { /* a read: nothing to be unsure of */
        reply_problem_retry(r, PROBLEM_UNAVAILABLE, 2,
                            "The database is unavailable; retry shortly.");
        return;
    }
    if (res == DB_REFUSED) { /* a read refused: the database is short of disk or memory */
        log_msg(LOG_WARN, "http", "%s %s: the database refused a read [%s] %s", r->method, r->path,
                db_last_sqlstate(db_thread()), db_last_error(db_thread()));
        reply_problem_retry(r, PROBLEM_UNAVAILABLE, 30,
                            "The database is short of resources for now; retry shortly.");
        return;
    }
    log_msg(LOG_ERROR, "http", "%s %s: database error [%s] %s", r->method, r->path,
            db_last_sqlstate(db_thread()), db_last_error(db_thread()));
    reply_problem(r, PROBLEM_INTERNAL, "A database error stopped the request.");
}
