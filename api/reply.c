#include "api/http.h"

#include "util/log.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *req_header(const struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *req_query(const struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

static void add_headers(struct MHD_Response *resp, const char *content_type,
                        const char *const *headers)
{
    if (content_type)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    for (const char *const *h = headers; h && h[0]; h += 2)
        if (h[1])
            MHD_add_response_header(resp, h[0], h[1]);
}

static bool queue(struct req *r, int status, struct MHD_Response *resp)
{
    if (MHD_queue_response(r->conn, (unsigned)status, resp) != MHD_YES)
        return false; /* not replied: the caller may still reply otherwise */
    r->status = status;
    return true;
}

static bool first_reply(const struct req *r)
{
    if (r->status)
        log_msg(LOG_ERROR, "http", "second reply to %s %s ignored", r->method, r->path);
    return !r->status;
}

bool reply_bytes(struct req *r, int status, const char *content_type, const void *body, size_t len,
                 const char *const *headers)
{
    if (!first_reply(r))
        return false;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return false;
    add_headers(resp, content_type, headers);
    if (status == 413)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    bool ok = queue(r, status, resp);
    MHD_destroy_response(resp);
    return ok;
}

struct MHD_Response *response_owning(char *body, size_t len, const char *content_type,
                                     const char *const *headers)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback(len, body, free);
    if (!resp) {
        free(body);
        return NULL;
    }
    add_headers(resp, content_type, headers);
    return resp;
}

bool reply_response(struct req *r, int status, struct MHD_Response *resp)
{
    return first_reply(r) && queue(r, status, resp);
}

bool reply_json_headers(struct req *r, int status, json_t *json, const char *const *headers)
{
    char *s = json ? json_dumps(json, JSON_COMPACT) : NULL;
    json_decref(json);
    if (!s) {
        log_msg(LOG_ERROR, "http", "could not serialise the reply to %s %s", r->method, r->path);
        static const char fallback[] = "{\"type\":\"urn:m44d:problem:internal-error\","
                                       "\"title\":\"Internal error\",\"status\":500,"
                                       "\"detail\":\"The reply could not be built.\","
                                       "\"code\":\"internal-error\"}";
        return reply_bytes(r, 500, "application/problem+json", fallback, sizeof fallback - 1, NULL);
    }
    bool ok = reply_bytes(r, status, "application/json", s, strlen(s), headers);
    free(s);
    return ok;
}

bool reply_json(struct req *r, int status, json_t *json)
{
    return reply_json_headers(r, status, json, NULL);
}

static bool send_problem(struct req *r, enum problem_code code, json_t *extra, unsigned retry_after,
                         const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
static bool send_problem(struct req *r, enum problem_code code, json_t *extra, unsigned retry_after,
                         const char *fmt, va_list ap)
{
    char detail[512];
    vsnprintf(detail, sizeof detail, fmt, ap);
    text_mend_utf8(detail); /* it may quote a client's bytes: a '?' for each that is not UTF-8 */
    json_t *body = problem_body(code, detail);
    if (extra) {
        json_object_update(body, extra);
        json_decref(extra);
    }
    const struct problem_info *p = problem_info(code);
    if (p->status >= 500)
        log_msg(LOG_ERROR, "http", "%s %s: %s: %s", r->method, r->path, p->slug, detail);
    char *s = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    /* RFC 6750: a 401 says how to authenticate; a 429 or 503 may say when to come back. */
    char seconds[16];
    snprintf(seconds, sizeof seconds, "%u", retry_after);
    const char *bearer[] = {"WWW-Authenticate", "Bearer realm=\"m44d\"", NULL};
    const char *retry[] = {"Retry-After", seconds, NULL};
    const char *const *headers = p->status == 401 ? bearer : retry_after ? retry : NULL;
    bool ok = s && reply_bytes(r, p->status, "application/problem+json", s, strlen(s), headers);
    free(s);
    return ok;
}

bool reply_problem(struct req *r, enum problem_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = send_problem(r, code, NULL, 0, fmt, ap);
    va_end(ap);
    return ok;
}

bool reply_problem_retry(struct req *r, enum problem_code code, unsigned retry_after,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = send_problem(r, code, NULL, retry_after, fmt, ap);
    va_end(ap);
    return ok;
}

bool reply_problem_extra(struct req *r, enum problem_code code, json_t *extra, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = send_problem(r, code, extra, 0, fmt, ap);
    va_end(ap);
    return ok;
}

bool reply_empty(struct req *r, int status, const char *const *headers)
{
    return reply_bytes(r, status, NULL, "", 0, headers);
}
