/* API tests: the real bin/m44d on a free port, real HTTP, the throwaway PostgreSQL. */
#include "tests/common/testkit.h"

#include <curl/curl.h>

void register_health_tests(void);

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const tk_register_fn suites[] = {register_health_tests};
    int rc = tk_run("api", suites, (int)(sizeof suites / sizeof suites[0]));
    curl_global_cleanup();
    return rc;
}
