/* The routing table: every endpoint m44d serves, in one static array (api/router.c). */
#ifndef M44_API_ROUTER_H
#define M44_API_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

struct req;
typedef void (*handler_fn)(struct req *r);
typedef bool (*by_version_fn)(struct req *r, long long version);

/* Which per-client rate limit a route counts against (api/ratelimit.h). */
enum limit_class {
    LIMIT_NONE,   /* health, metrics, the dashboard's files */
    LIMIT_READ,   /* API reads */
    LIMIT_WRITE,  /* API writes: rolls, choices, results... */
    LIMIT_CREATE, /* new campaigns and grand campaigns */
    LIMIT_HEAVY,  /* exports and imports: the creation limit, and their own workers */
};

struct route {
    const char *method;  /* "GET" or "POST" (HEAD is served by GET routes) */
    const char *pattern; /* segments; "{name}" matches one non-empty segment */
    handler_fn handler;
    bool db; /* runs on a database worker (api/jobs.h), not on the HTTP thread */
    /* Optional: answers from the campaign's version alone where it can, or returns false
     * without replying. Such requests have their versions looked up in batches
     * (api/version_batch.h); the handler runs only when this returns false. */
    by_version_fn by_version;
    enum limit_class limit;
};

/* The table and its size. */
const struct route *router_routes(size_t *count);

enum route_match { ROUTE_FOUND, ROUTE_NOT_FOUND, ROUTE_METHOD_NOT_ALLOWED };

/*
 * Finds the route for `method` and `path`. On ROUTE_FOUND, `params` point into `buf` (one per
 * "{name}" in the pattern). On ROUTE_METHOD_NOT_ALLOWED, `allow` lists the methods the path
 * does take, comma-separated.
 */
enum route_match router_match(const char *method, const char *path, const struct route **found,
                              const char **params, int *nparams, int maxparams, char *buf,
                              size_t buflen, char *allow, size_t allowlen);

#endif
