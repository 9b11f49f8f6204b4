/*
 * GET /api/v1/campaigns/{id}: the standing, with its version as ETag.
 * If-None-Match with the current ETag gets 304; add ?wait=N (seconds, up to --max-wait) and
 * the request waits until the campaign changes (long polling), then answers.
 */
#include "api/cache.h"
#include "api/common.h"
#include "api/handlers.h"
#include "api/server.h"
#include "api/views.h"
#include "db/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -1: no such campaign; -2: database failure (res set). */
static long long current_version(const char *id, enum db_result *res)
{
    struct db *db = db_thread();
    *res = DB_OK;
    if (!db_ensure(db)) {
        *res = DB_UNAVAILABLE;
        return -2;
    }
    PGresult *r = db_campaign_version(db, id);
    if (!r && !db_ensure(db)) {
        *res = DB_UNAVAILABLE;
        return -2;
    }
    if (!r)
        r = db_campaign_version(db, id); /* once more on a fresh connection */
    if (!r) {
        *res = DB_FAILED;
        return -2;
    }
    long long v = PQntuples(r) == 1 ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return v;
}

static bool etag_matches(const char *header, const char *etag)
{
    return header && (strstr(header, etag) || strcmp(header, "*") == 0);
}

struct render {
    char *body;
    long long version;
};

static enum cres render(struct db *db, struct req *r, struct campaign *c, void *arg)
{
    (void)r;
    struct render *out = arg;
    json_t *j = view_campaign(db, c);
    if (!j)
        return C_DBERR;
    out->body = json_dumps(j, JSON_COMPACT);
    out->version = c->version;
    json_decref(j);
    return out->body ? C_OK : C_DBERR;
}

/* ?wait=N: false when it is malformed or out of range. */
static bool wait_param(const struct req *r, long *wait)
{
    *wait = 0;
    const char *w = req_query(r, "wait");
    if (!w)
        return true;
    char *end;
    *wait = strtol(w, &end, 10);
    return *w && !*end && *wait >= 0 && *wait <= (long)http_options()->max_wait;
}

enum answer { ANSWERED, PARK, RENDER };

/* What the version alone answers: 304, a long poll to park, or the standing from the cache. */
static enum answer answer(struct req *r, long long version, long wait)
{
    char etag[40];
    etag_of(version, etag, sizeof etag);
    const char *headers[] = {"ETag", etag, "Cache-Control", "no-cache", NULL};
    if (etag_matches(req_header(r, "If-None-Match"), etag)) {
        if (wait > 0 && !r->waited)
            return PARK;
        reply_empty(r, 304, headers);
        return ANSWERED;
    }
    char *body;
    size_t len;
    if (!cache_get(r->params[0], version, &body, &len))
        return RENDER;
    reply_bytes(r, 200, "application/json", body, len, headers);
    free(body);
    return ANSWERED;
}

bool campaigns_get_by_version(struct req *r, long long version)
{
    long wait;
    return wait_param(r, &wait) && answer(r, version, wait) == ANSWERED;
}

void handle_campaigns_get(struct req *r)
{
    if (!check_campaign_id(r))
        return;
    const char *id = r->params[0];
    long wait;
    if (!wait_param(r, &wait)) {
        reply_problem_extra(r, PROBLEM_INVALID_PARAMETER, json_pack("{s:s}", "field", "wait"),
                            "wait must be a number of seconds from 0 to %u.",
                            http_options()->max_wait);
        return;
    }
    enum db_result res;
    long long version = current_version(id, &res);
    if (version == -2) {
        reply_db_failure(r, res);
        return;
    }
    if (version < 0) {
        reply_problem(r, PROBLEM_NOT_FOUND, "There is no campaign %s.", id);
        return;
    }
    switch (answer(r, version, wait)) {
    case ANSWERED:
        return;
    case PARK:
        /* Unchanged: wait for a change (the worker parks the request). */
        r->park_seconds = (double)wait;
        r->park_version = version;
        snprintf(r->park_campaign, sizeof r->park_campaign, "%s", id);
        return;
    case RENDER:
        break;
    }
    struct render out = {NULL, 0};
    read_campaign(r, render, &out);
    if (r->status) {
        free(out.body);
        return;
    }
    cache_put(id, out.version, out.body, strlen(out.body));
    char etag[40];
    etag_of(out.version, etag, sizeof etag);
    const char *headers[] = {"ETag", etag, "Cache-Control", "no-cache", NULL};
    reply_bytes(r, 200, "application/json", out.body, strlen(out.body), headers);
    free(out.body);
}
