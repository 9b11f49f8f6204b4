/*
 * The request context every handler receives, and the reply helpers.
 *
 * A handler runs once the whole body has arrived (and was within --max-body), on the HTTP
 * thread or, for routes marked `db`, on a database worker. It must end by calling exactly one
 * reply_* function, or ask to be parked (long polls: see park_seconds below).
 */
#ifndef M44_API_HTTP_H
#define M44_API_HTTP_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "api/clients.h"
#include "api/problem.h"

#define REQ_MAX_PARAMS 4

struct route;

struct req {
    struct MHD_Connection *conn;
    const char *method;           /* "GET", "POST", ... ("HEAD" is routed as GET) */
    const char *path;             /* decoded path, without the query string */
    char client[64];              /* the client's address, as text (api/clients.h) */
    struct client_key client_key; /* what per-client limits count by */
    int fd;                       /* the connection's socket (to see a parked client hang up) */
    const struct route *route;
    const struct route *matched; /* found with params by the head's checks: not looked up again */
    const char *params[REQ_MAX_PARAMS]; /* path parameters, in pattern order */
    int nparams;
    char param_buf[256];

    char *body; /* request body, NUL-terminated; NULL when empty */
    size_t body_len, body_cap;
    bool too_large; /* a streamed body went over --max-body; 413 once it ends */
    /* Refused from its head (415, 429...) while a body follows: the body is read and dropped,
     * then this is the reply (answering before the body would reset the connection). */
    bool refused;
    enum problem_code refuse_code;
    unsigned refuse_retry;
    char refuse_detail[200];
    size_t discarded; /* bytes of such a body read and dropped */

    int status; /* status of the queued reply, 0 while none */
    struct timespec start;

    /* Set while the connection is suspended (the handler runs on a database worker). */
    bool suspended;
    /* Long polling: a handler that wants to wait sets park_seconds (and the campaign and the
     * version it saw) and returns without replying; the worker parks the request
     * (api/waiters.h). The handler runs again, with `waited` set, when the campaign changes
     * or the wait ends. */
    double park_seconds;
    char park_campaign[40];
    long long park_version;
    bool waited;
    /* A read answered by the standby must show at least this version (api/common.h). */
    long long read_at_least;
    struct req *queued_next; /* while in a queue (api/req_queue.h) */
    void *state;
    void (*free_state)(void *state);
};

/* Header lookups on the request; NULL when absent. */
const char *req_header(const struct req *r, const char *name);
const char *req_query(const struct req *r, const char *name);

/* Replies. `body` is copied. Returns false if the reply could not be queued. */
bool reply_bytes(struct req *r, int status, const char *content_type, const void *body, size_t len,
                 const char *const *headers /* name, value, ..., NULL */);

/* A reply that many requests can share, with no copy per request (the rendering cache: ten
 * thousand long polls woken by one write all send the same bytes). `body` is taken and freed
 * with free() once the last connection has sent it and the caller's reference is dropped
 * (MHD_destroy_response). NULL when out of memory (body freed). */
struct MHD_Response *response_owning(char *body, size_t len, const char *content_type,
                                     const char *const *headers);
/* Queues `resp` as r's reply; the caller keeps its own reference. */
bool reply_response(struct req *r, int status, struct MHD_Response *resp);

/* Serialises `json` (reference stolen) compactly, with Content-Type application/json. */
bool reply_json(struct req *r, int status, json_t *json);
bool reply_json_headers(struct req *r, int status, json_t *json, const char *const *headers);

/* An application/problem+json reply; detail is printf-style. */
bool reply_problem(struct req *r, enum problem_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same, with a Retry-After header of `retry_after` seconds (429, 503). */
bool reply_problem_retry(struct req *r, enum problem_code code, unsigned retry_after,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Same, with extra members merged into the problem object (reference stolen), e.g. "field". */
bool reply_problem_extra(struct req *r, enum problem_code code, json_t *extra, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* 204-style empty reply with a status (304, for example). */
bool reply_empty(struct req *r, int status, const char *const *headers);

#endif
