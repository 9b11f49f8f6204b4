/* Fuzz target: the router, with any method and path. */
#include "api/router.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    static const char *const methods[] = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS"};
    char path[4097];
    memcpy(path, data + 1, size - 1);
    path[size - 1] = '\0';
    const struct route *found = NULL;
    const char *params[4];
    int n = -1;
    char buf[256], allow[64];
    enum route_match m = router_match(methods[data[0] % 6], path, &found, params, &n, 4, buf,
                                      sizeof buf, allow, sizeof allow);
    if (m == ROUTE_FOUND) {
        if (!found || n < 0 || n > 4)
            abort();
        for (int i = 0; i < n; i++)
            if (params[i] < buf || params[i] >= buf + sizeof buf || !*params[i] ||
                strchr(params[i], '/'))
                abort();
    }
    return 0;
}
