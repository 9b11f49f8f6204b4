/* The OpenAPI document and the routing table describe the same endpoints, both ways. */
#include "api/problem.h"
#include "api/router.h"
#include "tests/common/testkit.h"
#include "util/embed.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static json_t *load(void)
{
    const struct embedded_file *f = embedded_find(embedded_openapi, "openapi.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    json_error_t e;
    json_t *doc = json_loadb((const char *)f->data, f->len, JSON_REJECT_DUPLICATES, &e);
    if (!doc)
        fprintf(stderr, "\nopenapi.json: line %d: %s\n", e.line, e.text);
    return doc;
}

/* The document's operation for a route (its method in lower case under its pattern), or NULL. */
static json_t *operation_of(json_t *paths, const struct route *rt)
{
    char method[8];
    size_t k = 0;
    for (; k < sizeof method - 1 && rt->method[k]; k++)
        method[k] = (char)tolower((unsigned char)rt->method[k]);
    method[k] = '\0';
    return json_object_get(json_object_get(paths, rt->pattern), method);
}

/* Whether the string `s` is in the JSON array `list`. */
static bool listed(const json_t *list, const char *s)
{
    bool found = false;
    for (size_t i = 0; i < json_array_size(list); i++)
        found |= strcmp(json_string_value(json_array_get(list, i)), s) == 0;
    return found;
}

static void test_routes_are_documented(void)
{
    json_t *doc = load();
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(doc, "openapi")), "3.1.0");
    json_t *paths = json_object_get(doc, "paths");
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        json_t *op = operation_of(paths, &routes[i]);
        if (!op)
            fprintf(stderr, "\nnot in openapi.json: %s %s\n", routes[i].method, routes[i].pattern);
        CU_ASSERT_PTR_NOT_NULL(op);
        CU_ASSERT_PTR_NOT_NULL(json_object_get(op, "responses"));
    }
    json_decref(doc);
}

static void test_documented_are_routes(void)
{
    json_t *doc = load();
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    size_t n;
    const struct route *routes = router_routes(&n);
    const char *path;
    json_t *item;
    int ops = 0;
    json_object_foreach(json_object_get(doc, "paths"), path, item)
    {
        const char *method;
        json_t *op;
        json_object_foreach(item, method, op)
        {
            char upper[8];
            size_t k = 0;
            for (; k < sizeof upper - 1 && method[k]; k++)
                upper[k] = (char)toupper((unsigned char)method[k]);
            upper[k] = '\0';
            bool found = false;
            for (size_t i = 0; i < n; i++)
                found |=
                    strcmp(routes[i].pattern, path) == 0 && strcmp(routes[i].method, upper) == 0;
            if (!found)
                fprintf(stderr, "\nin openapi.json but not routed: %s %s\n", upper, path);
            CU_ASSERT(found);
            ops++;
            /* Every {parameter} of the path is declared. */
            const char *p = path;
            while ((p = strchr(p, '{'))) {
                const char *end = strchr(p, '}');
                bool declared = false;
                size_t i;
                json_t *param;
                json_array_foreach(json_object_get(op, "parameters"), i, param)
                {
                    const char *name = json_string_value(json_object_get(param, "name"));
                    declared |= name && strlen(name) == (size_t)(end - p - 1) &&
                                strncmp(name, p + 1, (size_t)(end - p - 1)) == 0;
                }
                if (!declared)
                    fprintf(stderr, "\n%s %s: parameter %.*s not declared\n", upper, path,
                            (int)(end - p + 1), p);
                CU_ASSERT(declared);
                p = end;
            }
        }
    }
    CU_ASSERT_EQUAL(ops, (int)n);
    json_decref(doc);
}

/*
 * What the server answers before (or around) any handler is documented on every operation it
 * can reach (api/server.c check_head, api/jobs.c): 400 for framing that cannot be trusted or a
 * query of too many parameters and 413 on every route; 415 (a body not sent as JSON) and 422
 * (an Idempotency-Key used for another request: every POST is a write) on every POST; 429 on
 * every route under a rate limit; 500 and 503 on every route run by a database worker.
 */
static void test_gate_statuses(void)
{
    json_t *doc = load();
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *paths = json_object_get(doc, "paths");
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        const struct route *rt = &routes[i];
        bool post = strcmp(rt->method, "POST") == 0;
        json_t *responses = json_object_get(operation_of(paths, rt), "responses");
        const struct {
            const char *status;
            bool due;
        } want[] = {
            {"400", true},
            {"413", true},
            {"415", post},
            {"422", post},
            {"429", rt->limit != LIMIT_NONE},
            {"500", rt->db},
            {"503", rt->db},
        };
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
            if (!want[k].due || json_object_get(responses, want[k].status))
                continue;
            fprintf(stderr, "\n%s %s: status %s is not in openapi.json\n", rt->method, rt->pattern,
                    want[k].status);
            CU_FAIL("a status the server answers is not documented");
        }
    }
    json_decref(doc);
}

/* The headers the server sends with them are documented too: Retry-After on every 429 and 503
 * (api/reply.c: reply_problem_retry is the only way either is answered), and on every POST's
 * success Idempotent-Replayed (every POST takes an Idempotency-Key, and a replay says so). */
static void test_gate_headers(void)
{
    json_t *doc = load();
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *paths = json_object_get(doc, "paths");
    const char *path;
    json_t *item;
    json_object_foreach(paths, path, item)
    {
        const char *method;
        json_t *op;
        json_object_foreach(item, method, op)
        {
            const char *status;
            json_t *resp;
            json_object_foreach(json_object_get(op, "responses"), status, resp)
            {
                json_t *headers = json_object_get(resp, "headers");
                const char *need = NULL;
                if (strcmp(status, "429") == 0 || strcmp(status, "503") == 0)
                    need = "Retry-After";
                else if (status[0] == '2' && strcmp(method, "post") == 0)
                    need = "Idempotent-Replayed";
                if (!need || json_object_get(headers, need))
                    continue;
                fprintf(stderr, "\n%s %s: its %s does not declare %s\n", method, path, status,
                        need);
                CU_FAIL("a header the server sends is not documented");
            }
        }
    }
    json_decref(doc);
}

/* Codes answered by the reverse proxy of deploy/nginx, not by m44d (the proxy suite checks
 * that its answers carry one of the document's codes). */
static const char *const proxy_codes[] = {"server-unreachable"};
#define NPROXY_CODES (int)(sizeof proxy_codes / sizeof proxy_codes[0])

/* The document's problem codes are exactly api/problem.c's and the proxy's, both ways. */
static void test_problem_codes(void)
{
    json_t *doc = load();
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    json_t *codes = json_object_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"),
                            "Problem"),
            "properties"),
        "code");
    json_t *list = json_object_get(codes, "enum");
    CU_ASSERT_EQUAL(json_array_size(list), PROBLEM_COUNT + NPROXY_CODES);
    for (int c = 0; c < NPROXY_CODES; c++) {
        bool m44d_own = false;
        for (int k = 0; k < PROBLEM_COUNT; k++)
            m44d_own |= strcmp(problem_info((enum problem_code)k)->slug, proxy_codes[c]) == 0;
        CU_ASSERT(listed(list, proxy_codes[c]) && !m44d_own);
    }
    for (int c = 0; c < PROBLEM_COUNT; c++) {
        const char *slug = problem_info((enum problem_code)c)->slug;
        bool found = listed(list, slug);
        if (!found)
            fprintf(stderr, "\nproblem code %s is not in openapi.json\n", slug);
        CU_ASSERT(found);
    }
    json_decref(doc);
}

void register_openapi_tests(void)
{
    CU_pSuite s = CU_add_suite("openapi", NULL, NULL);
    CU_add_test(s, "every route is in openapi.json", test_routes_are_documented);
    CU_add_test(s, "every operation in openapi.json is routed", test_documented_are_routes);
    CU_add_test(s, "every problem code is in openapi.json, and no other", test_problem_codes);
    CU_add_test(s, "what the server answers before any handler is documented on every route",
                test_gate_statuses);
    CU_add_test(s, "the headers sent with them are documented: Retry-After, Idempotent-Replayed",
                test_gate_headers);
}
