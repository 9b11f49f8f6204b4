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

static void test_routes_are_documented(void)
{
    json_t *doc = load();
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(doc, "openapi")), "3.1.0");
    json_t *paths = json_object_get(doc, "paths");
    size_t n;
    const struct route *routes = router_routes(&n);
    for (size_t i = 0; i < n; i++) {
        char method[8];
        size_t k = 0;
        for (; k < sizeof method - 1 && routes[i].method[k]; k++)
            method[k] = (char)tolower((unsigned char)routes[i].method[k]);
        method[k] = '\0';
        json_t *op = json_object_get(json_object_get(paths, routes[i].pattern), method);
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

/* The document's problem codes are exactly api/problem.c's, both ways. */
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
    CU_ASSERT_EQUAL(json_array_size(list), PROBLEM_COUNT);
    for (int c = 0; c < PROBLEM_COUNT; c++) {
        const char *slug = problem_info((enum problem_code)c)->slug;
        bool found = false;
        for (size_t i = 0; i < json_array_size(list); i++)
            found |= strcmp(json_string_value(json_array_get(list, i)), slug) == 0;
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
}
