#include "api/router.h"
#include "tests/common/testkit.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct route_case {
    const char *method, *path;
    enum route_match want;
    const char *pattern; /* for ROUTE_FOUND */
    const char *params[3];
    const char *allow; /* for ROUTE_METHOD_NOT_ALLOWED */
};

static const struct route_case cases[] = {
    {"GET", "/healthz", ROUTE_FOUND, "/healthz", {NULL}, NULL},
    {"HEAD", "/healthz", ROUTE_FOUND, "/healthz", {NULL}, NULL},
    {"GET", "/readyz", ROUTE_FOUND, "/readyz", {NULL}, NULL},
    {"GET", "/metrics", ROUTE_FOUND, "/metrics", {NULL}, NULL},
    {"POST", "/healthz", ROUTE_METHOD_NOT_ALLOWED, NULL, {NULL}, "GET, HEAD"},
    {"DELETE", "/metrics", ROUTE_METHOD_NOT_ALLOWED, NULL, {NULL}, "GET, HEAD"},
    {"GET", "/healthz/", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
    {"GET", "/healthzz", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
    {"GET", "//healthz", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
    {"GET", "", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
    {"GET", "/nope", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
    {"GET", "/", ROUTE_FOUND, "/", {NULL}, NULL},
    {"GET", "/api/v1/campaigns", ROUTE_FOUND, "/api/v1/campaigns", {NULL}, NULL},
    {"POST", "/api/v1/campaigns", ROUTE_FOUND, "/api/v1/campaigns", {NULL}, NULL},
    {"DELETE", "/api/v1/campaigns", ROUTE_METHOD_NOT_ALLOWED, NULL, {NULL}, "POST, GET, HEAD"},
    {"POST", "/api/v1/campaigns/import", ROUTE_FOUND, "/api/v1/campaigns/import", {NULL}, NULL},
    /* a path spelling out a route is that route, not a campaign called "import" */
    {"GET", "/api/v1/campaigns/import", ROUTE_METHOD_NOT_ALLOWED, NULL, {NULL}, "POST"},
    {"GET", "/api/v1/grand-campaigns/import", ROUTE_METHOD_NOT_ALLOWED, NULL, {NULL}, "POST"},
    {"GET", "/api/v1/campaigns/abc", ROUTE_FOUND, "/api/v1/campaigns/{id}", {"abc"}, NULL},
    {"GET",
     "/api/v1/campaigns/abc/battles/3",
     ROUTE_FOUND,
     "/api/v1/campaigns/{id}/battles/{n}",
     {"abc", "3"},
     NULL},
    {"POST",
     "/api/v1/campaigns/c1/battles/12/reserve-choice",
     ROUTE_FOUND,
     "/api/v1/campaigns/{id}/battles/{n}/reserve-choice",
     {"c1", "12"},
     NULL},
    {"GET",
     "/api/v1/campaigns/c1/battles/12/reserve-choice",
     ROUTE_METHOD_NOT_ALLOWED,
     NULL,
     {NULL},
     "POST"},
    {"POST", "/api/v1/campaigns//battles", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
    {"GET", "/api/v1/campaigns/c1/battles", ROUTE_METHOD_NOT_ALLOWED, NULL, {NULL}, "POST"},
    {"GET", "/c/123", ROUTE_FOUND, "/c/{id}", {"123"}, NULL},
    {"GET", "/assets/app.js", ROUTE_FOUND, "/assets/{file}", {"app.js"}, NULL},
    {"GET", "/assets/a/b.js", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
    {"GET", "/api/v1/nothing", ROUTE_NOT_FOUND, NULL, {NULL}, NULL},
};

static void test_table_cases(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct route_case *c = &cases[i];
        const struct route *found = NULL;
        const char *params[4];
        int n = -1;
        char buf[256], allow[64];
        enum route_match m = router_match(c->method, c->path, &found, params, &n, 4, buf,
                                          sizeof buf, allow, sizeof allow);
        if (m != c->want)
            fprintf(stderr, "\n%s %s: got %d want %d\n", c->method, c->path, m, c->want);
        CU_ASSERT_EQUAL(m, c->want);
        if (m == ROUTE_FOUND && c->want == ROUTE_FOUND) {
            CU_ASSERT_STRING_EQUAL(found->pattern, c->pattern);
            int want_n = 0;
            while (want_n < 3 && c->params[want_n])
                want_n++;
            CU_ASSERT_EQUAL(n, want_n);
            for (int k = 0; k < want_n && k < n; k++)
                CU_ASSERT_STRING_EQUAL(params[k], c->params[k]);
        }
        if (m == ROUTE_METHOD_NOT_ALLOWED && c->allow)
            CU_ASSERT_STRING_EQUAL(allow, c->allow);
    }
}

static void test_table_is_well_formed(void)
{
    size_t n;
    const struct route *r = router_routes(&n);
    CU_ASSERT(n > 0);
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT(strcmp(r[i].method, "GET") == 0 || strcmp(r[i].method, "POST") == 0);
        CU_ASSERT_EQUAL(r[i].pattern[0], '/');
        CU_ASSERT_PTR_NOT_NULL(r[i].handler);
        if (r[i].by_version) { /* its first parameter is read as an id with a version, in a batch */
            CU_ASSERT(r[i].db);
            CU_ASSERT_STRING_EQUAL(r[i].method, "GET");
            CU_ASSERT(strcmp(r[i].pattern, "/api/v1/campaigns/{id}") == 0 ||
                      strcmp(r[i].pattern, "/api/v1/grand-campaigns/{id}") == 0);
        }
        for (size_t j = 0; j < i; j++)
            CU_ASSERT_FALSE(strcmp(r[i].method, r[j].method) == 0 &&
                            strcmp(r[i].pattern, r[j].pattern) == 0);
    }
}

/* Parameters longer than the buffer must not match (and must not overflow). */
static void test_param_buffer_bound(void)
{
    size_t n;
    const struct route *r = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        if (!strchr(r[i].pattern, '{'))
            continue;
        char path[1024] = "";
        /* Build a path matching the pattern with 300-byte parameters. */
        const char *p = r[i].pattern;
        while (*p) {
            if (*p == '{') {
                for (int k = 0; k < 300; k++)
                    strcat(path, "a");
                p = strchr(p, '}') + 1;
            } else {
                strncat(path, p, 1);
                p++;
            }
        }
        const struct route *found = NULL;
        const char *params[4];
        int np;
        char buf[64], allow[64];
        CU_ASSERT_NOT_EQUAL(router_match(r[i].method, path, &found, params, &np, 4, buf, sizeof buf,
                                         allow, sizeof allow),
                            ROUTE_FOUND);
    }
}

/* The router as it was first written, kept as the reference the table's matcher is checked
 * against: each pattern walked segment by segment with the path, every route twice. */
static int ref_match_pattern(const char *pattern, const char *path, const char **params,
                             int maxparams, char *buf, size_t buflen)
{
    int n = 0;
    size_t used = 0;
    const char *p = pattern, *s = path;
    while (*p && *s) {
        if (*p != '/' || *s != '/')
            return -1;
        p++, s++;
        const char *pend = strchr(p, '/'), *send = strchr(s, '/');
        size_t plen = pend ? (size_t)(pend - p) : strlen(p);
        size_t slen = send ? (size_t)(send - s) : strlen(s);
        if (plen >= 2 && p[0] == '{' && p[plen - 1] == '}') {
            if (slen == 0 || n >= maxparams || used + slen + 1 > buflen)
                return -1;
            memcpy(buf + used, s, slen);
            buf[used + slen] = '\0';
            params[n++] = buf + used;
            used += slen + 1;
        } else if (plen != slen || strncmp(p, s, plen) != 0) {
            return -1;
        }
        p += plen, s += slen;
    }
    return (*p || *s) ? -1 : n;
}

static enum route_match ref_router_match(const char *method, const char *path,
                                         const struct route **found, const char **params,
                                         int *nparams, int maxparams, char *buf, size_t buflen,
                                         char *allow, size_t allowlen)
{
    size_t count;
    const struct route *routes = router_routes(&count);
    const char *m = strcmp(method, "HEAD") == 0 ? "GET" : method;
    int fewest = -1;
    for (size_t i = 0; i < count; i++) {
        int n = ref_match_pattern(routes[i].pattern, path, params, maxparams, buf, buflen);
        if (n >= 0 && (fewest < 0 || n < fewest))
            fewest = n;
    }
    allow[0] = '\0';
    if (fewest < 0)
        return ROUTE_NOT_FOUND;
    for (size_t i = 0; i < count; i++) {
        int n = ref_match_pattern(routes[i].pattern, path, params, maxparams, buf, buflen);
        if (n != fewest)
            continue;
        if (strcmp(routes[i].method, m) == 0) {
            *found = &routes[i];
            *nparams = n;
            return ROUTE_FOUND;
        }
        if (!strstr(allow, routes[i].method)) {
            size_t len = strlen(allow);
            snprintf(allow + len, allowlen - len, "%s%s", len ? ", " : "", routes[i].method);
            if (strcmp(routes[i].method, "GET") == 0 && !strstr(allow, "HEAD")) {
                len = strlen(allow);
                snprintf(allow + len, allowlen - len, ", HEAD");
            }
        }
    }
    return ROUTE_METHOD_NOT_ALLOWED;
}

/* One path through both routers, with a small room for parameters and a large one. */
static int compare_one(const char *method, const char *path)
{
    static const struct {
        int maxparams;
        size_t buflen;
    } rooms[] = {{4, 256}, {1, 16}, {2, 8}};
    int differences = 0;
    for (size_t k = 0; k < sizeof rooms / sizeof rooms[0]; k++) {
        const struct route *fa = NULL, *fb = NULL;
        const char *pa[4] = {0}, *pb[4] = {0};
        int na = -1, nb = -1;
        char ba[256], bb[256], aa[64], ab[64];
        enum route_match ma = router_match(method, path, &fa, pa, &na, rooms[k].maxparams, ba,
                                           rooms[k].buflen, aa, sizeof aa);
        enum route_match mb = ref_router_match(method, path, &fb, pb, &nb, rooms[k].maxparams, bb,
                                               rooms[k].buflen, ab, sizeof ab);
        bool same = ma == mb;
        if (same && ma == ROUTE_FOUND) {
            same = fa == fb && na == nb;
            for (int i = 0; same && i < na; i++)
                same = strcmp(pa[i], pb[i]) == 0;
        }
        if (same && ma == ROUTE_METHOD_NOT_ALLOWED)
            same = strcmp(aa, ab) == 0;
        if (!same) {
            fprintf(stderr, "\n%s \"%s\" (room %d, %zu): router %d, reference %d\n", method, path,
                    rooms[k].maxparams, rooms[k].buflen, ma, mb);
            differences++;
        }
    }
    return differences;
}

/* Every route's pattern filled in several ways and bent (a slash more or less, a segment
 * more or less, doubled slashes), and pseudo-random paths over the bytes routes are made of:
 * the router answers each exactly as the reference does. */
static void test_same_as_reference(void)
{
    static const char *methods[] = {"GET", "HEAD", "POST", "PUT"};
    static const char *fills[] = {
        "x", "import", "", "1", "battles", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a/b"};
    /* each: before and after the filled pattern */
    static const char *bends[][2] = {{"", ""},   {"", "/"},  {"/", ""},
                                     {"", "/x"}, {"", "//"}, {"x", ""}};
    size_t count;
    const struct route *routes = router_routes(&count);
    int differences = 0, compared = 0;
    for (size_t i = 0; i < count; i++) {
        for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
            char filled[256] = "";
            for (const char *p = routes[i].pattern; *p;) {
                if (*p == '{') {
                    strcat(filled, fills[f]);
                    p = strchr(p, '}') + 1;
                } else {
                    strncat(filled, p, 1);
                    p++;
                }
            }
            for (size_t b = 0; b < sizeof bends / sizeof bends[0]; b++) {
                char path[300];
                snprintf(path, sizeof path, "%s%s%s", bends[b][0], filled, bends[b][1]);
                for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++, compared++)
                    differences += compare_one(methods[m], path);
            }
            /* the last segment cut off */
            char *last = strrchr(filled, '/');
            if (last) {
                *last = '\0';
                for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++, compared++)
                    differences += compare_one(methods[m], filled);
            }
        }
    }
    static const char alphabet[] = "//////abcgimpstv{}1";
    unsigned long x = 12345;
    for (int t = 0; t < 20000; t++) {
        char path[40];
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        size_t len = (size_t)(x >> 59) + 1; /* 1..32 */
        for (size_t k = 0; k < len; k++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            path[k] = alphabet[(x >> 33) % (sizeof alphabet - 1)];
        }
        path[len] = '\0';
        differences += compare_one(methods[t % 4], path);
        compared++;
    }
    CU_ASSERT(compared > 20000);
    CU_ASSERT_EQUAL(differences, 0);
}

void register_router_tests(void)
{
    CU_pSuite s = CU_add_suite("router", NULL, NULL);
    CU_add_test(s, "paths and methods", test_table_cases);
    CU_add_test(s, "table well formed", test_table_is_well_formed);
    CU_add_test(s, "parameter buffer bound", test_param_buffer_bound);
    CU_add_test(s, "the same answers as the reference router", test_same_as_reference);
}
