/*
 * The group's chat (README, "The group's chat"), for the organizer:
 *   POST /api/v1/campaigns/{id}/webhook        {"url": "https://..." | null, "kind": ...}
 *   POST /api/v1/grand-campaigns/{id}/webhook  the same for a grand campaign (and every
 *                                              campaign of it without a chat of its own)
 *   GET  .../webhook                           how delivery goes
 * The URL is a secret: never shown back; the answer names its host only.
 */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"
#include "campaign/chat.h"
#include "campaign/grand.h"
#include "db/store.h"

#include <stdlib.h>
#include <string.h>

/* How the chat of `scope` is doing: {"set","host","kind","inherited","pending","delivered",
 * "failed","last_delivered_at","last_error","next_attempt_at"}. NULL on a database error. */
static json_t *status_json(struct db *db, const char *scope, const char *url, enum chat_kind kind,
                           bool inherited)
{
    PGresult *r = db_outbox_status(db, scope);
    if (!r)
        return NULL;
    char host[CHAT_HOST_MAX] = "", why[200];
    bool set = url && url[0] && chat_url_check(url, host, why, sizeof why);
    json_t *j = json_pack(
        "{s:b, s:o, s:o, s:b, s:I, s:I, s:I, s:o, s:o, s:o}", "set", set, "host",
        set ? json_string(host) : json_null(), "kind",
        set ? json_string(chat_kind_name(kind)) : json_null(), "inherited", set && inherited,
        "pending", (json_int_t)db_ll(r, 0, 0), "delivered", (json_int_t)db_ll(r, 0, 1), "failed",
        (json_int_t)db_ll(r, 0, 2), "last_delivered_at", str_or_null(db_val(r, 0, 3)), "last_error",
        str_or_null(db_val(r, 0, 4)), "next_attempt_at", str_or_null(db_val(r, 0, 5)));
    PQclear(r);
    return j;
}

/* A campaign's chat is its own, or its grand campaign's (then the messages are in that order). */
static json_t *campaign_status(struct db *db, const struct campaign *c)
{
    bool inherited = c->webhook_url && !c->webhook_own;
    return status_json(db, inherited ? c->grand_id : c->id, c->webhook_url, c->webhook_kind,
                       inherited);
}

static json_t *grand_status(struct db *db, const struct grand *g)
{
    return status_json(db, g->id, g->webhook_url, g->webhook_kind, false);
}

/* ---- POST: set or remove ---- */

struct set_arg {
    const char *url; /* NULL: remove */
    enum chat_kind kind;
};

static const struct jfield set_spec[] = {
    {"url", JK_STRING, false, true, 1, CHAT_URL_MAX, NULL}, /* required: checked below */
    {"kind", JK_STRING, false, false, 1, 16, NULL},
    {NULL, 0, false, false, 0, 0, NULL},
};

/* {"url": ..., "kind": ...}: false (replied 400) when it is not one. */
static bool parse_set(struct req *r, json_t **body, struct set_arg *a)
{
    struct jerr e;
    *body = body_parse(r, &e);
    if (!*body || !body_check(*body, set_spec, "", &e)) {
        reply_jerr(r, &e);
        return false;
    }
    if (!json_object_get(*body, "url")) { /* null is given on purpose: it removes the chat */
        reply_problem_extra(r, PROBLEM_MISSING_FIELD, json_pack("{s:s}", "field", "url"),
                            "url is required: the chat's webhook link, or null to remove it.");
        return false;
    }
    a->url = json_string_value(json_object_get(*body, "url"));
    char host[CHAT_HOST_MAX], why[200];
    if (a->url && !chat_url_check(a->url, host, why, sizeof why)) {
        reply_problem_extra(r, PROBLEM_INVALID_FIELD, json_pack("{s:s}", "field", "url"), "%s",
                            why);
        return false;
    }
    json_t *kind = json_object_get(*body, "kind");
    a->kind = a->url ? chat_kind_guess(host) : CHAT_GENERIC;
    if (kind && !chat_kind_parse(json_string_value(kind), &a->kind)) {
        reply_problem_extra(r, PROBLEM_INVALID_FIELD, json_pack("{s:s}", "field", "kind"),
                            "kind is \"discord\", \"slack\" or \"generic\" (left out: guessed "
                            "from the link).");
        return false;
    }
    return true;
}

/* A chat removed that was not there: said as it is, and nothing written (no log line says it
 * was removed, the page is not told of a change). */
static enum cres unchanged(struct write_ctx *w, json_t *status)
{
    w->unchanged = true;
    w->status = 200;
    w->body = status;
    return w->body ? C_OK : C_DBERR;
}

static enum cres set_campaign(struct db *db, struct write_ctx *w)
{
    struct set_arg *a = w->op->arg;
    if (!a->url && !w->c->webhook_own) /* no chat of its own to remove */
        return unchanged(w, campaign_status(db, w->c));
    enum cres rc = chat_set(db, w->c, NULL, a->url, a->kind, &w->err);
    if (rc != C_OK)
        return rc;
    if (!a->url) { /* removed: a campaign of a grand campaign hears the grand campaign's */
        PGresult *res = db_chat_of(db, w->c->id);
        if (!res)
            return C_DBERR;
        free(w->c->webhook_url);
        w->c->webhook_url = NULL;
        w->c->webhook_own = false;
        if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0)) {
            w->c->webhook_url = strdup(PQgetvalue(res, 0, 0));
            chat_kind_parse(PQgetvalue(res, 0, 1), &w->c->webhook_kind);
            w->c->webhook_own = PQgetvalue(res, 0, 2)[0] == 't';
        }
        PQclear(res);
    }
    w->status = 200;
    w->body = campaign_status(db, w->c);
    return w->body ? C_OK : C_DBERR;
}

static enum cres set_grand(struct db *db, struct write_ctx *w)
{
    struct set_arg *a = w->op->arg;
    if (!a->url && !w->g->webhook_url[0])
        return unchanged(w, grand_status(db, w->g));
    enum cres rc = chat_set(db, NULL, w->g, a->url, a->kind, &w->err);
    if (rc != C_OK)
        return rc;
    if (!a->url)
        w->g->webhook_url[0] = '\0';
    w->status = 200;
    w->body = grand_status(db, w->g);
    return w->body ? C_OK : C_DBERR;
}

static void set(struct req *r, bool grand)
{
    json_t *body;
    struct set_arg a;
    if (parse_set(r, &body, &a)) {
        struct write_op op = {.campaign = !grand,
                              .grand = grand,
                              .need = NEED_ORGANIZER,
                              .action = grand ? set_grand : set_campaign,
                              .arg = &a,
                              .reloads = true}; /* a rare action: read the chat again after */
        write_run(r, &op);
    }
    json_decref(body);
}

void handle_webhook_set(struct req *r)
{
    set(r, false);
}

void handle_grand_webhook_set(struct req *r)
{
    set(r, true);
}

/* ---- GET: how it goes, for the organizer ---- */

/* The organizer's key, or a refusal (a replaced key is told so, as everywhere). */
static enum cres organizer_only(struct cerr *err, enum role role, const char *key,
                                enum role replaced, const char *what)
{
    if (role == ROLE_NONE)
        return refuse_key(err, key, replaced, what);
    if (role != ROLE_ORGANIZER)
        return refuse(err, PROBLEM_FORBIDDEN, NULL,
                      "Only the organizer sees how the chat goes; this is the %s key.",
                      side_title(role_side(role)));
    return C_OK;
}

static enum cres reply_status(struct req *r, json_t *status)
{
    if (!status)
        return C_DBERR;
    const char *headers[] = {"Cache-Control", "no-store", NULL};
    reply_json_headers(r, 200, status, headers);
    return C_OK;
}

static enum cres campaign_get(struct db *db, struct req *r, struct campaign *c, struct cerr *err,
                              void *arg)
{
    (void)arg;
    char keybuf[KEY_TEXT_LEN + 8];
    const char *key = bearer_key(r, keybuf, sizeof keybuf);
    enum role role = campaign_role(c, key);
    enum cres rc = organizer_only(
        err, role, key, role == ROLE_NONE ? campaign_replaced_role(c, key) : ROLE_NONE, "campaign");
    return rc == C_OK ? reply_status(r, campaign_status(db, c)) : rc;
}

static enum cres grand_get(struct db *db, struct req *r, struct grand *g, struct cerr *err,
                           void *arg)
{
    (void)arg;
    char keybuf[KEY_TEXT_LEN + 8];
    const char *key = bearer_key(r, keybuf, sizeof keybuf);
    enum role role = grand_role(g, key);
    enum cres rc =
        organizer_only(err, role, key, role == ROLE_NONE ? grand_replaced_role(g, key) : ROLE_NONE,
                       "grand campaign");
    return rc == C_OK ? reply_status(r, grand_status(db, g)) : rc;
}

void handle_webhook_get(struct req *r)
{
    read_campaign(r, campaign_get, NULL);
}

void handle_grand_webhook_get(struct req *r)
{
    read_grand_campaign(r, grand_get, NULL);
}
