#include "api/problem.h"
#include "tests/common/testkit.h"

#include <string.h>

static void test_every_code_is_complete(void)
{
    for (int c = 0; c < PROBLEM_COUNT; c++) {
        const struct problem_info *p = problem_info((enum problem_code)c);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p->slug);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p->title);
        CU_ASSERT(p->status >= 400 && p->status <= 599);
        CU_ASSERT(strlen(p->slug) > 0 && strlen(p->title) > 0);
        for (int d = 0; d < c; d++)
            CU_ASSERT_STRING_NOT_EQUAL(p->slug, problem_info((enum problem_code)d)->slug);
    }
}

static void test_statuses_follow_the_contract(void)
{
    CU_ASSERT_EQUAL(problem_info(PROBLEM_MALFORMED_JSON)->status, 400);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_UNKNOWN_FIELD)->status, 400);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_UNAUTHORIZED)->status, 401);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_FORBIDDEN)->status, 403);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_NOT_FOUND)->status, 404);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_METHOD_NOT_ALLOWED)->status, 405);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_WRONG_PHASE)->status, 409);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_PRECONDITION_FAILED)->status, 412);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_BODY_TOO_LARGE)->status, 413);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_NOT_ENOUGH_TOKENS)->status, 422);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_DIE_USED_TWICE)->status, 422);
    CU_ASSERT_EQUAL(problem_info(PROBLEM_UNAVAILABLE)->status, 503);
    /* Out-of-range codes map to the internal error rather than reading past the table. */
    CU_ASSERT_EQUAL(problem_info(PROBLEM_COUNT)->status, 500);
}

static void test_body_shape(void)
{
    json_t *b = problem_body(PROBLEM_WRONG_PHASE, "Battle 2 is in phase reserves.");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "type")),
                           "urn:m44d:problem:wrong-phase");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "code")), "wrong-phase");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(b, "status")), 409);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "detail")),
                           "Battle 2 is in phase reserves.");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "title")),
                           "Not possible in the current phase");
    json_decref(b);
}

static void test_bad_utf8_detail_falls_back(void)
{
    json_t *b = problem_body(PROBLEM_NOT_FOUND, "no campaign \xff\xfe here");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "detail")), "Not found");
    json_decref(b);
    b = problem_body(PROBLEM_NOT_FOUND, NULL);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "detail")), "Not found");
    json_decref(b);
}

void register_problem_tests(void)
{
    CU_pSuite s = CU_add_suite("problem", NULL, NULL);
    CU_add_test(s, "every code has status, unique slug, title", test_every_code_is_complete);
    CU_add_test(s, "statuses follow API.md", test_statuses_follow_the_contract);
    CU_add_test(s, "problem+json body", test_body_shape);
    CU_add_test(s, "detail that is not UTF-8 falls back", test_bad_utf8_detail_falls_back);
}
