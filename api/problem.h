/* Problems as application/problem+json bodies (the codes: campaign/problem.h). */
#ifndef M44_API_PROBLEM_H
#define M44_API_PROBLEM_H

#include "campaign/problem.h"

#include <jansson.h>

/* {"type","title","status","detail","code"}; caller owns the result. */
json_t *problem_body(enum problem_code code, const char *detail);

#endif
