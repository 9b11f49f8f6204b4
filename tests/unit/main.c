/* Unit tests: configuration, router, error helper, OpenAPI document, standings cache. */
#include "tests/common/testkit.h"

void register_config_tests(void);
void register_router_tests(void);
void register_problem_tests(void);
void register_openapi_tests(void);
void register_cache_tests(void);

int main(void)
{
    const tk_register_fn suites[] = {register_config_tests, register_router_tests,
                                     register_problem_tests, register_openapi_tests,
                                     register_cache_tests};
    return tk_run("unit", suites, (int)(sizeof suites / sizeof suites[0]));
}
