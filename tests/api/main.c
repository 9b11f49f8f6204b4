/* API tests: the real bin/m44d on a free port, real HTTP, the throwaway PostgreSQL. */
#include "tests/api/client.h"
#include "tests/common/contract.h"
#include "tests/common/testkit.h"

#include <curl/curl.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

void register_health_tests(void);
void register_flow_tests(void);
void register_walkthrough_tests(void);
void register_error_tests(void);
void register_concurrency_tests(void);
void register_export_tests(void);
void register_hostile_tests(void);
void register_integrity_tests(void);
void register_rules_tests(void);
void register_corrections_tests(void);
void register_grand_tests(void);
void register_chat_tests(void);

static int start_shared(void)
{
    api_conninfo = tk_new_database("api");
    return daemon_start(&api_daemon, api_conninfo, NULL) ? 0 : 1;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (sodium_init() < 0)
        return 1;
    /* The health suite stops and starts PostgreSQL; it runs first, with its own daemon. */
    const tk_register_fn suites[] = {
        register_health_tests,      register_flow_tests,        register_walkthrough_tests,
        register_error_tests,       register_concurrency_tests, register_export_tests,
        register_hostile_tests,     register_integrity_tests,   register_rules_tests,
        register_corrections_tests, register_grand_tests,       register_chat_tests};
    /* Every response the suites get is checked against api/openapi.json. */
    if (!contract_start())
        return 1;
    if (start_shared()) {
        fprintf(stderr, "the shared m44d did not start (see tests/out/logs)\n");
        contract_stop();
        return 1;
    }
    int rc = tk_run("api", suites, (int)(sizeof suites / sizeof suites[0]));
    int st = daemon_stop(&api_daemon, SIGTERM, 60);
    if (st != 0) {
        fprintf(stderr, "the shared m44d exited with status %d (see %s)\n", st, api_daemon.log);
        rc = 1;
    }
    free(api_conninfo);
    printf("api: %ld responses checked against api/openapi.json, %ld mismatch(es)\n",
           contract_checked(), contract_mismatches());
    if (contract_checked() == 0 || contract_outside() > 0)
        rc = 1; /* the check did not run, or found a mismatch outside any test (printed) */
    contract_stop();
    curl_global_cleanup();
    return rc;
}
