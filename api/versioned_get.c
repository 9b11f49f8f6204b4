/* GET of a versioned resource, with ETag and long polling (see api/versioned_get.h). */
#include "api/versioned_get.h"

#include "api/cache.h"
#include "api/common.h"
#include "api/server.h"
#include "db/listener.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long long seen_version(const struct req *r)
{
    long long newest = 0;
    const char *h = req_header(r, "If-None-Match");
    for (const char *p = h; p && *p; p++) {
        if (*p != '"')
            continue;
        char *end;
        long long seen = strtoll(p + 1, &end, 10);
        if (end != p + 1 && *end == '"' && seen > newest)
            newest = seen;
        p = *end == '"' ? end : p;
    }
    return newest;
}

/* Whether If-None-Match names a version above `version`. */
static bool client_ahead(const struct req *r, long long version)
{
    return seen_version(r) > version;
}

enum vkind req_kind(const struct req *r)
{
    static const char grand[] = "/api/v1/grand-campaigns/";
    return strncmp(r->path, grand, sizeof grand - 1) == 0 ? VK_GRAND : VK_CAMPAIGN;
}

bool versioned_known(const struct req *r, const char *id, long long *version)
{
    return listener_version(id, req_kind(r), version) && !client_ahead(r, *version);
}

/* -1: no such thing; -2: database failure (res set). */
static long long current_version(const struct req *req, const struct versioned *v, const char *id,
                                 enum db_result *res)
{
    struct db *db = db_thread();
    *res = DB_OK;
    long long known;
    if (versioned_known(req, id, &known))
        return known;
    unsigned long ticket = listener_ticket();
    if (!db_ensure(db)) {
        *res = DB_UNAVAILABLE;
        return -2;
    }
    PGresult *r = v->version(db, id);
    if (!r && !db_ensure(db)) {
        *res = DB_UNAVAILABLE;
        return -2;
    }
    if (!r)
        r = v->version(db, id); /* once more on a fresh connection */
    if (!r) {
        /* Broken again (a pooler whose server is down): unavailable, not at fault. */
        *res = db_lost(db) ? DB_UNAVAILABLE : DB_FAILED;
        return -2;
    }
    long long version = PQntuples(r) == 1 ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    if (version >= 0)
        listener_learned(ticket, id, req_kind(req), version);
    return version;
}

static bool etag_matches(const char *header, const char *etag)
{
    return header && (strstr(header, etag) || strcmp(header, "*") == 0);
}

void reply_versioned(struct req *r, long long version, json_t *body)
{
    char etag[40];
    etag_of(version, etag, sizeof etag);
    const char *headers[] = {"ETag", etag, "Cache-Control", "no-cache", NULL};
    if (body)
        reply_json_headers(r, 200, body, headers);
    else
        reply_empty(r, 304, headers);
}

bool versioned_unchanged(struct req *r, long long version)
{
    char etag[40];
    etag_of(version, etag, sizeof etag);
    if (!etag_matches(req_header(r, "If-None-Match"), etag))
        return false;
    reply_versioned(r, version, NULL);
    return true;
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

/* What the version alone answers: 304, a long poll to park, or the rendering from the cache. */
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
    return cache_reply(r, r->params[0], version) ? ANSWERED : RENDER;
}

bool versioned_get_by_version(struct req *r, long long version)
{
    long wait;
    return wait_param(r, &wait) && answer(r, version, wait) == ANSWERED;
}

void versioned_get(struct req *r, const struct versioned *v)
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
    long long version = current_version(r, v, id, &res);
    if (version == -2) {
        reply_db_failure(r, res);
        return;
    }
    if (version < 0) {
        reply_problem(r, PROBLEM_NOT_FOUND, "%s", v->missing);
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
    char *body = NULL;
    long long at = 0;
    r->read_at_least = version; /* a standby's older rendering would go back in time */
    if (!v->render(r, &body, &at)) {
        free(body);
        return;
    }
    char etag[40];
    etag_of(at, etag, sizeof etag);
    const char *headers[] = {"ETag", etag, "Cache-Control", "no-cache", NULL};
    cache_put(id, at, body, strlen(body), headers);
    if (!cache_reply(r, id, at)) /* the cache is off, or a newer version replaced it already */
        reply_bytes(r, 200, "application/json", body, strlen(body), headers);
    free(body);
}
