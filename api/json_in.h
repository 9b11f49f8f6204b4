/*
 * Request bodies: parsing and declarative validation. A handler describes its body as a table
 * of fields; anything else in the body, a missing required field, a wrong type, an over-long
 * string or an out-of-range number is refused with a 400 that names the field by its path.
 */
#ifndef M44_API_JSON_IN_H
#define M44_API_JSON_IN_H

#include "api/http.h"

#include <jansson.h>
#include <stdbool.h>

enum jkind {
    JK_STRING, /* min/max: length in bytes */
    JK_NAME,   /* a string players read (a name): the same, and not only spaces */
    JK_INT,    /* min/max: value */
    JK_BOOL,
    JK_OBJECT, /* fields: its members */
    JK_ARRAY,  /* min/max: number of items (the handler checks the items) */
    JK_SIDE,   /* "allies" or "axis" */
    JK_ANY,    /* checked by the handler */
};

struct jfield {
    const char *name; /* NULL ends a table */
    enum jkind kind;
    bool required;
    bool nullable; /* null is accepted and means "not given" */
    long min, max;
    const struct jfield *fields;
};

struct jerr {
    enum problem_code code;
    char field[128];
    char detail[400];
};

/* The body as a JSON object: {} when empty. NULL with e set when it is not a JSON object. */
json_t *body_parse(const struct req *r, struct jerr *e);

/* Checks `obj` against `spec`; `path` prefixes field names ("" at the top). */
bool body_check(json_t *obj, const struct jfield *spec, const char *path, struct jerr *e);
/* The same for what an export recorded: names (JK_NAME) are taken as they were, also of only
 * spaces. */
bool body_check_recorded(json_t *obj, const struct jfield *spec, const char *path, struct jerr *e);

/* Fills e and returns false (for checks a handler makes itself). */
bool jerr_set(struct jerr *e, enum problem_code code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Replies with the problem in e, including its "field". */
void reply_jerr(struct req *r, const struct jerr *e);

/* A member, or NULL when absent or null. */
json_t *jget(json_t *obj, const char *name);

#endif
