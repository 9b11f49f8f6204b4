#include "api/server.h"

#include "api/acceptor.h"
#include "api/clients.h"
#include "api/handlers.h"
#include "api/conns.h"
#include "api/http.h"
#include "api/jobs.h"
#include "api/ratelimit.h"
#include "api/sweeper.h"
#include "api/version_batch.h"
#include "api/waiters.h"
#include "api/metrics.h"
#include "api/router.h"
#include "api/versioned_get.h"
#include "api/write.h"
#include "db/listener.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* How much of an over-long streamed body is read and dropped before the connection is cut. */
#define DISCARD_LIMIT ((size_t)16 << 20)

/* Most query arguments a request may carry (the API takes one or two). libmicrohttpd keeps
 * each in the connection's memory and, past what that holds, drops the connection without a
 * word; so the query is cut before it parses it, and the request refused. */
#define MAX_QUERY_ARGS 32
static char too_many_args; /* the request context of such a request, until its head is done */

static struct MHD_Daemon *daemon_handle;
static struct http_options options;

const struct http_options *http_options(void)
{
    return &options;
}

static double elapsed_s(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static struct req *req_new(struct MHD_Connection *conn, const char *method, const char *url)
{
    struct req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->conn = conn;
    r->method = method;
    r->path = url;
    clients_address(conn, r->client, sizeof r->client);
    client_key_text(r->client, &r->client_key);
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    r->fd = fd ? fd->connect_fd : -1;
    clock_gettime(CLOCK_MONOTONIC, &r->start);
    metrics_inflight_add(1);
    conns_request_started(conn);
    return r;
}

/* libmicrohttpd's URI log callback: sees the request line before the query is parsed. */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls, (void)conn;
    char *q = strchr(uri, '?');
    if (!q)
        return NULL;
    int args = 1;
    for (const char *p = q + 1; *p && *p != ' '; p++)
        args += *p == '&';
    if (args <= MAX_QUERY_ARGS)
        return NULL;
    /* The line is libmicrohttpd's own buffer (const only in the signature); an empty query
     * parses to nothing. */
    q[1] = '\0';
    return &too_many_args;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    struct req *r = *con_cls;
    if (!r || *con_cls == &too_many_args) {
        *con_cls = NULL;
        return;
    }
    double s = elapsed_s(&r->start);
    size_t nroutes;
    const struct route *routes = router_routes(&nroutes);
    int route = r->route ? (int)(r->route - routes) : -1;
    /* A request that ended without a reply (client gone, timeout) is logged as status 0. */
    int status = r->status;
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && !status)
        status = 0;
    log_request(r->client, r->method, r->path, r->route ? r->route->pattern : "unmatched", status,
                s * 1000);
    conns_request_done(conn);
    metrics_request_done(route, status, s);
    metrics_inflight_add(-1);
    if (r->free_state)
        r->free_state(r->state);
    free(r->body);
    free(r);
    *con_cls = NULL;
}

/* A Content-Length header, parsed strictly; -1 when absent or not a number. */
static long long content_length(struct MHD_Connection *conn)
{
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
    if (!cl)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(cl, &end, 10);
    return (errno || end == cl || *end || v < 0) ? -1 : v;
}

/* The headers a request's framing, key and body type hang on, counted in one pass over the
 * head: any of them twice could be read two ways (a proxy in front taking one, m44d the
 * other). */
struct head_counts {
    int content_length, transfer_encoding, authorization, content_type, content_encoding;
};
static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    size_t key_size, const char *value, size_t value_size)
{
    (void)kind, (void)value, (void)value_size;
    struct head_counts *h = cls;
    if (key_size == 14 && strcasecmp(key, "Content-Length") == 0)
        h->content_length++;
    else if (key_size == 17 && strcasecmp(key, "Transfer-Encoding") == 0)
        h->transfer_encoding++;
    else if (key_size == 13 && strcasecmp(key, "Authorization") == 0)
        h->authorization++;
    else if (key_size == 12 && strcasecmp(key, "Content-Type") == 0)
        h->content_type++;
    else if (key_size == 16 && strcasecmp(key, "Content-Encoding") == 0)
        h->content_encoding++;
    return MHD_YES;
}

/* Whether a Content-Type is JSON: application/json, any case, parameters allowed; a charset, if
 * given, UTF-8 (the only one JSON is read in, RFC 8259 8.1). */
static bool json_media_type(const char *ct)
{
    static const char json[] = "application/json";
    if (!ct || strncasecmp(ct, json, sizeof json - 1) != 0 ||
        !strchr("; \t", ct[sizeof json - 1])) /* strchr finds the final NUL too */
        return false;
    for (const char *p = ct + sizeof json - 1; (p = strchr(p, ';'));) {
        p += strspn(p + 1, " \t") + 1;
        if (strncasecmp(p, "charset=", 8) != 0)
            continue;
        const char *v = p + 8;
        bool quoted = *v == '"';
        v += quoted;
        size_t n = strncasecmp(v, "utf-8", 5) == 0 ? 5 : strncasecmp(v, "utf8", 4) == 0 ? 4 : 0;
        v += n;
        v += quoted && *v == '"';
        if (!n || !strchr("; \t", *v))
            return false;
    }
    return true;
}

/* Refuses a request from its head: at once when no body follows, else once the body (read and
 * dropped) has ended, or the client would see the connection reset instead of the answer. */
static void refuse_early(struct req *r, bool body_follows, enum problem_code code, unsigned retry,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void refuse_early(struct req *r, bool body_follows, enum problem_code code, unsigned retry,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->refuse_detail, sizeof r->refuse_detail, fmt, ap);
    va_end(ap);
    r->refuse_code = code;
    r->refuse_retry = retry;
    r->refused = true;
    /* A client waiting for "100 Continue" has sent nothing yet: it gets the answer instead. */
    if (!body_follows || MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Expect"))
        reply_problem_retry(r, code, retry, "%s", r->refuse_detail);
}

/*
 * What the head alone decides, before any body is read: framing that cannot be trusted, a
 * body that is too large or not JSON, a client over its rate limit. (The route is looked up
 * here for its limit; dispatch answers 404 and 405 once the body is in.)
 */
static void check_head(struct req *r)
{
    struct MHD_Connection *conn = r->conn;
    const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding");
    struct head_counts heads = {0};
    MHD_get_connection_values_n(conn, MHD_HEADER_KIND, count_header, &heads);
    int ncl = heads.content_length;
    long long cl = content_length(conn);
    bool chunked = te && strcasecmp(te, "chunked") == 0;
    bool body_follows = cl > 0 || chunked;
    /* Framing two parties could read two ways is refused, at once (a body of unknown framing
     * cannot be read; the connection closes after the answer): a proxy in front might have
     * found another end of the request than ours (request smuggling). */
    if (te && (!chunked || heads.transfer_encoding > 1)) {
        refuse_early(
            r, false, PROBLEM_BAD_REQUEST, 0,
            "Transfer-Encoding \"%.40s\" is not supported: send Content-Length, or chunked.", te);
        return;
    }
    if (te && ncl) {
        refuse_early(r, false, PROBLEM_BAD_REQUEST, 0,
                     "Send either Content-Length or Transfer-Encoding, not both.");
        return;
    }
    if (ncl > 1) {
        refuse_early(r, false, PROBLEM_BAD_REQUEST, 0, "Content-Length is given more than once.");
        return;
    }
    if (heads.authorization > 1 || heads.content_type > 1 || heads.content_encoding > 1) {
        refuse_early(r, false, PROBLEM_BAD_REQUEST, 0, "%s is given more than once.",
                     heads.authorization > 1  ? "Authorization"
                     : heads.content_type > 1 ? "Content-Type"
                                              : "Content-Encoding");
        return;
    }
    /* An announced oversized body is refused before any of it is kept. A client waiting for
     * "100 Continue", or announcing more than we would read, gets the answer at once; any
     * other is already sending it, so the body is read, thrown away, and 413 follows it. */
    const char *expect = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Expect");
    if (cl > (long long)options.max_body) {
        if (expect || cl > (long long)DISCARD_LIMIT)
            reply_problem(r, PROBLEM_BODY_TOO_LARGE, "The body is %lld bytes; the limit is %zu.",
                          cl, options.max_body);
        else
            r->too_large = true;
        return;
    }
    char allow[64];
    const struct route *route = NULL;
    if (router_match(r->method, r->path, &route, r->params, &r->nparams, REQ_MAX_PARAMS,
                     r->param_buf, sizeof r->param_buf, allow, sizeof allow) != ROUTE_FOUND)
        return;
    r->matched = route;
    if (strcmp(r->method, "POST") == 0) {
        const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
        /* A body that is not JSON (a form, text/plain) is what a page on another site can
         * make a browser send without asking first: never taken. */
        if ((body_follows || ct) && !json_media_type(ct)) {
            refuse_early(r, body_follows, PROBLEM_UNSUPPORTED_MEDIA_TYPE, 0,
                         "Send the body as JSON, with Content-Type: application/json.");
            return;
        }
        /* A compressed body is not read as what it says: it would only fail later as JSON
         * that does not parse, with a misleading answer (RFC 9110 8.4: 415). */
        const char *ce = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Encoding");
        if (ce && strcasecmp(ce, "identity") != 0) {
            refuse_early(r, body_follows, PROBLEM_UNSUPPORTED_MEDIA_TYPE, 0,
                         "A body with Content-Encoding \"%.40s\" is not read here: send it "
                         "uncompressed.",
                         ce);
            return;
        }
    }
    unsigned wait = ratelimit_take(&r->client_key, route->limit);
    if (wait) {
        const char *what = route->limit == LIMIT_READ    ? "reads"
                           : route->limit == LIMIT_WRITE ? "changes"
                                                         : "new campaigns, imports and exports";
        refuse_early(r, body_follows, PROBLEM_TOO_MANY_REQUESTS, wait,
                     "Too many %s from your address; try again in %u s.", what, wait);
    }
}

static atomic_ulong memory_answers;

unsigned long http_memory_answers(void)
{
    return atomic_load(&memory_answers);
}

/* A versioned GET answered on this thread from the version heard (db/listener.h): a 304, or
 * the rendering cached for it; false when it needs a database worker. */
static bool answered_from_memory(struct req *r)
{
    long long version;
    if (!check_campaign_id(r))
        return true; /* replied: 404 */
    if (!versioned_known(r, r->params[0], &version) || !r->route->by_version(r, version))
        return false;
    atomic_fetch_add(&memory_answers, 1);
    return true;
}

static void dispatch(struct req *r)
{
    char allow[64];
    const struct route *route = r->matched;
    enum route_match m =
        route ? ROUTE_FOUND
              : router_match(r->method, r->path, &route, r->params, &r->nparams, REQ_MAX_PARAMS,
                             r->param_buf, sizeof r->param_buf, allow, sizeof allow);
    if (m == ROUTE_NOT_FOUND) {
        if (!static_not_found_page(r))
            reply_problem(r, PROBLEM_NOT_FOUND, "There is nothing at this path.");
        return;
    }
    if (m == ROUTE_METHOD_NOT_ALLOWED) {
        const char *headers[] = {"Allow", allow, NULL};
        json_t *body = problem_body(PROBLEM_METHOD_NOT_ALLOWED, NULL);
        char detail[128];
        snprintf(detail, sizeof detail, "This path takes %s.", allow);
        json_object_set_new(body, "detail", json_string(detail));
        char *s = json_dumps(body, JSON_COMPACT);
        json_decref(body);
        if (s)
            reply_bytes(r, 405, "application/problem+json", s, strlen(s), headers);
        free(s);
        return;
    }
    r->route = route;
    if (route->by_version && answered_from_memory(r))
        return;
    if (route->db) {
        /* The handler runs on a database worker; this thread goes on serving others. */
        r->suspended = true;
        MHD_suspend_connection(r->conn);
        if (route->by_version)
            version_batch_push(r);
        else
            jobs_push(r);
        return;
    }
    route->handler(r);
    if (!r->status) {
        log_msg(LOG_ERROR, "http", "handler for %s %s returned without a reply", r->method,
                r->path);
        reply_problem(r, PROBLEM_INTERNAL, "The server did not produce a reply.");
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    (void)cls, (void)version;
    struct req *r = *con_cls;
    if (!r || *con_cls == &too_many_args) {
        bool cut = *con_cls == &too_many_args;
        r = req_new(conn, method, url);
        if (!r)
            return MHD_NO;
        *con_cls = r;
        if (cut)
            refuse_early(r, content_length(conn) > 0, PROBLEM_BAD_REQUEST, 0,
                         "The query has more than %d parameters.", MAX_QUERY_ARGS);
        else
            check_head(r);
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        /* libmicrohttpd's timeout counts idle time only: a body trickling in a byte at a time
         * would hold the connection for ever. The whole body gets --timeout seconds. */
        if (elapsed_s(&r->start) > (double)options.timeout) {
            log_msg(LOG_WARN, "http", "closing connection: %s %s body still arriving after %u s",
                    r->method, r->path, options.timeout);
            return MHD_NO;
        }
        if (r->status)
            return MHD_YES; /* answered before the body (413 from Content-Length) */
        if (r->refused || r->too_large || r->body_len + n > options.max_body) {
            /*
             * A refused request, or a streamed body over the cap. libmicrohttpd only lets us
             * answer once the body has ended, so the rest is read and thrown away (up to a
             * bound: a client that keeps streaming past it is disconnected), and the answer
             * follows.
             */
            if (!r->refused && !r->too_large) {
                free(r->body);
                r->body = NULL;
                r->body_len = r->body_cap = 0;
                r->too_large = true;
            }
            r->discarded += n;
            return r->discarded > DISCARD_LIMIT ? MHD_NO : MHD_YES;
        }
        if (r->body_len + n + 1 > r->body_cap) {
            size_t cap = r->body_cap ? r->body_cap : 1024;
            while (cap < r->body_len + n + 1)
                cap *= 2;
            char *nb = realloc(r->body, cap);
            if (!nb)
                return MHD_NO;
            r->body = nb;
            r->body_cap = cap;
        }
        memcpy(r->body + r->body_len, upload_data, n);
        r->body_len += n;
        r->body[r->body_len] = '\0';
        return MHD_YES;
    }
    if (r->status || r->suspended)
        return MHD_YES;
    if (r->refused) {
        reply_problem_retry(r, r->refuse_code, r->refuse_retry, "%s", r->refuse_detail);
        return MHD_YES;
    }
    if (r->too_large) {
        reply_problem(r, PROBLEM_BODY_TOO_LARGE, "The body is over the limit of %zu bytes.",
                      options.max_body);
        return MHD_YES;
    }
    dispatch(r);
    return MHD_YES;
}

/* Percent-decoding of the path and query, as libmicrohttpd's own, except that "%00" is left as
 * it is: a NUL would cut the string short in C, so "/keys/allies%00" would read as
 * "/keys/allies". Left encoded it matches no route and no id. Returns the new length. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    (void)cls, (void)conn;
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (r[0] == '%' && isxdigit((unsigned char)r[1]) && isxdigit((unsigned char)r[2]) &&
            !(r[1] == '0' && r[2] == '0')) {
            char hex[3] = {r[1], r[2], '\0'};
            *w++ = (char)strtol(hex, NULL, 16);
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

static void mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    log_msg(LOG_WARN, "mhd", "%s", msg);
}

bool http_start(const struct http_options *opts)
{
    options = *opts;
    struct rate_limit rl[4] = {{opts->rate_read, opts->burst_read},
                               {opts->rate_write, opts->burst_write},
                               {opts->rate_create, opts->burst_create},
                               {opts->rate_create_site, opts->burst_create_site}};
    ratelimit_init(&rl[0], &rl[1], &rl[2], &rl[3]);
    if (!jobs_start(opts->threads, opts->heavy_workers, opts->heavy_queue) ||
        !waiters_start(opts->version_poll_ms, opts->max_parked, opts->parked_per_client) ||
        !conns_start(opts->per_ip_limit, opts->head_timeout, opts->max_connections) ||
        !version_batch_start() || !sweeper_start(opts->idempotency_ttl) ||
        !chat_delivery_start(&opts->chat) ||
        (opts->version_max_lag_ms &&
         !listener_start(opts->version_max_lag_ms, opts->version_changes_keep_s, waiters_heard))) {
        listener_stop();
        chat_delivery_stop();
        sweeper_stop();
        version_batch_stop();
        conns_stop();
        jobs_stop();
        waiters_stop();
        return false;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
    char port[8];
    snprintf(port, sizeof port, "%u", opts->port);
    struct addrinfo *ai = NULL;
    int rc = getaddrinfo(opts->host, port, &hints, &ai);
    if (rc) {
        /* Not a numeric address: resolve it ("localhost"). */
        hints.ai_flags = AI_NUMERICSERV;
        rc = getaddrinfo(opts->host, port, &hints, &ai);
    }
    if (rc || !ai) {
        log_msg(LOG_ERROR, "http", "cannot resolve listen address %s: %s", opts->host,
                gai_strerror(rc));
        return false;
    }
    /* The socket is m44d's own (api/acceptor.h says why), handed connections by one thread. */
    int fd = acceptor_listen(ai->ai_addr, ai->ai_addrlen);
    int listen_errno = errno;
    freeaddrinfo(ai);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_USE_NO_LISTEN_SOCKET | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    /* The limits are ours (api/conns.h): the per-address one, as a trusted proxy is many
     * clients and is not held to it, and --max-connections, as libmicrohttpd checks its own
     * limit per thread of its pool and, for a connection handed to it, only once the thread
     * takes it: a burst could fill one thread past its share and be closed while the others
     * have room. Its limit is only a backstop here: each thread may hold all of ours, twice
     * (a connection closing leaves our count before libmicrohttpd's). */
    unsigned mhd_limit = (unsigned)opts->max_connections * (unsigned)opts->http_threads * 2;
    if (fd >= 0)
        daemon_handle = MHD_start_daemon(
            flags, 0, conns_accept, NULL, on_request, NULL, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
            NULL, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)opts->http_threads,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)opts->timeout, MHD_OPTION_CONNECTION_LIMIT,
            mhd_limit, MHD_OPTION_CONNECTION_MEMORY_LIMIT, opts->conn_memory,
            MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_NOTIFY_CONNECTION,
            conns_notify, NULL, MHD_OPTION_URI_LOG_CALLBACK, uri_seen, NULL,
            MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
    if (fd < 0)
        log_msg(LOG_ERROR, "http", "cannot listen on %s:%u: %s", opts->host, opts->port,
                strerror(listen_errno));
    else if (!daemon_handle)
        log_msg(LOG_ERROR, "http", "cannot start the HTTP server (libmicrohttpd) on %s:%u",
                opts->host, opts->port);
    if (!daemon_handle || !acceptor_start(daemon_handle, fd, conns_room)) {
        if (daemon_handle) {
            MHD_stop_daemon(daemon_handle);
            daemon_handle = NULL;
        } else if (fd >= 0) {
            close(fd);
        }
        waiters_release_all();
        listener_stop();
        chat_delivery_stop();
        sweeper_stop();
        version_batch_stop();
        conns_stop();
        jobs_stop();
        waiters_stop();
        return false;
    }
    log_msg(LOG_INFO, "http", "listening on %s:%u with %u HTTP threads and %u database workers",
            opts->host, opts->port, opts->http_threads, opts->threads);
    return true;
}

void http_quiesce(void)
{
    if (!daemon_handle)
        return;
    acceptor_stop();
    /* Long polls answer now rather than hold the shutdown. */
    waiters_release_all();
}

void http_stop(void)
{
    if (!daemon_handle)
        return;
    acceptor_stop();
    listener_stop();
    chat_delivery_stop();
    sweeper_stop();
    version_batch_stop();
    jobs_stop();
    /* Every suspended request answered and resumed before libmicrohttpd stops: the waiters'
     * thread may be resuming one that it found hung up. */
    waiters_stop();
    MHD_stop_daemon(daemon_handle);
    daemon_handle = NULL;
    conns_stop();
}
