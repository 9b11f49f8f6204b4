#include "api/router.h"
#include "tests/common/testkit.h"

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

void register_router_tests(void)
{
    CU_pSuite s = CU_add_suite("router", NULL, NULL);
    CU_add_test(s, "paths and methods", test_table_cases);
    CU_add_test(s, "table well formed", test_table_is_well_formed);
    CU_add_test(s, "parameter buffer bound", test_param_buffer_bound);
}
