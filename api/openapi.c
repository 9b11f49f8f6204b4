/* GET /api/v1/openapi.json: the OpenAPI 3 document kept in api/openapi.json. */
#include "api/handlers.h"
#include "api/http.h"
#include "util/embed.h"

void handle_openapi(struct req *r)
{
    const struct embedded_file *f = embedded_find(embedded_openapi, "openapi.json");
    if (!f) {
        reply_problem(r, PROBLEM_INTERNAL, "The OpenAPI document is missing from this build.");
        return;
    }
    reply_bytes(r, 200, "application/json", f->data, f->len, NULL);
}
