#include "api/common.h"

#include "util/log.h"

#include <stdio.h>
#include <string.h>

static const struct jfield roll_spec[] = {
    {"client_seed", JK_STRING, false, true, 0, CLIENT_SEED_MAX, NULL},
    {"faces", JK_ARRAY, false, true, 1, RULES_MAX_DICE, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

bool parse_roll_body(struct req *r, struct roll_input *in)
{
    memset(in, 0, sizeof *in);
    struct jerr e;
    json_t *body = body_parse(r, &e);
    bool ok = body && body_check(body, roll_spec, "", &e);
    json_t *seed = ok ? jget(body, "client_seed") : NULL;
    json_t *faces = ok ? jget(body, "faces") : NULL;
    if (ok && seed && faces)
        ok = jerr_set(&e, PROBLEM_INVALID_FIELD, "faces",
                      "Send client_seed (a server roll) or faces (a table roll), not both.");
    if (ok && seed)
        snprintf(in->client_seed, sizeof in->client_seed, "%s", json_string_value(seed));
    if (ok && faces) {
        in->table = true;
        for (size_t i = 0; ok && i < json_array_size(faces); i++) {
            if (!face_parse(json_string_value(json_array_get(faces, i)), &in->faces[i])) {
                char field[32];
                snprintf(field, sizeof field, "faces[%zu]", i);
                ok = jerr_set(&e, PROBLEM_INVALID_FACES, field,
                              "%s must be one of infantry, armor, grenade, star, flag.", field);
            }
            in->nfaces = (int)i + 1;
        }
    }
    json_decref(body);
    if (!ok)
        reply_jerr(r, &e);
    return ok;
}

struct read_ctx {
    struct req *r;
    struct campaign *c;
    read_fn fn;
    void *arg;
    struct cerr err;
};

static enum db_tx read_tx(struct db *db, void *arg)
{
    struct read_ctx *x = arg;
    enum cres rc = campaign_load(db, x->r->params[0], false, x->c, &x->err);
    if (rc == C_OK)
        rc = x->fn(db, x->r, x->c, x->arg);
    return rc == C_OK ? DB_TX_OK : rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
}

void read_campaign(struct req *r, read_fn fn, void *arg)
{
    if (!check_campaign_id(r, r->params[0]))
        return;
    struct read_ctx x = {.r = r, .c = campaign_new(), .fn = fn, .arg = arg};
    if (!x.c) {
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        return;
    }
    enum db_result res = db_transaction(db_thread(), read_tx, &x);
    campaign_free(x.c);
    if (r->status || res == DB_OK)
        return; /* fn replied, or left the reply to the caller */
    if (res == DB_ABORTED)
        reply_cerr(r, &x.err);
    else
        reply_db_failure(r, res);
}

void reply_db_failure(struct req *r, enum db_result res)
{
    if (res == DB_UNAVAILABLE) {
        reply_problem(r, PROBLEM_UNAVAILABLE, "The database is unavailable; retry shortly.");
        return;
    }
    log_msg(LOG_ERROR, "http", "%s %s: database error [%s] %s", r->method, r->path,
            db_last_sqlstate(db_thread()), db_last_error(db_thread()));
    reply_problem(r, PROBLEM_INTERNAL, "A database error stopped the request.");
}
