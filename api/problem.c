#include "api/problem.h"

#include <stdio.h>

json_t *problem_body(enum problem_code code, const char *detail)
{
    const struct problem_info *p = problem_info(code);
    char type[96];
    snprintf(type, sizeof type, "urn:m44d:problem:%s", p->slug);
    /* A detail that is not valid UTF-8 (it may quote client bytes) falls back to the title. */
    json_t *d = json_string(detail ? detail : p->title);
    if (!d)
        d = json_string(p->title);
    return json_pack("{s:s, s:s, s:i, s:o, s:s}", "type", type, "title", p->title, "status",
                     p->status, "detail", d, "code", p->slug);
}
