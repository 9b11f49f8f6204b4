/* Unit tests: configuration, router, error helper, OpenAPI document, standings cache, the
 * chat's links and addresses, names that show nothing, log lines, and the test runner
 * itself. */
#include "tests/common/testkit.h"

#include <string.h>

void register_config_tests(void);
void register_router_tests(void);
void register_problem_tests(void);
void register_openapi_tests(void);
void register_cache_tests(void);
void register_testkit_tests(void);
void register_chat_tests(void);
void register_clients_tests(void);
void register_text_tests(void);
void register_state_cache_tests(void);
void register_log_tests(void);
void register_lru_tests(void);
int testkit_child(const char *which);

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--testkit-child") == 0)
        return testkit_child(argv[2]); /* see test_testkit.c */
    const tk_register_fn suites[] = {
        register_config_tests,      register_router_tests,  register_problem_tests,
        register_openapi_tests,     register_cache_tests,   register_testkit_tests,
        register_chat_tests,        register_clients_tests, register_text_tests,
        register_state_cache_tests, register_log_tests,     register_lru_tests};
    return tk_run("unit", suites, (int)(sizeof suites / sizeof suites[0]));
}
