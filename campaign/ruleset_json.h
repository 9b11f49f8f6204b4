/* Internal to the ruleset loader: the validation context and JSON readers shared by its files. */
#ifndef M44_CAMPAIGN_RULESET_JSON_H
#define M44_CAMPAIGN_RULESET_JSON_H

#include "rules/rules.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Validation context: the file, the JSON path being read, and where the message goes. */
struct ctx {
    const char *file;
    char path[512];
    char *err;
    size_t errlen;
    struct ruleset *rs;
};

/* Writes "file: $.path: reason" into c->err; returns -1. */
int rj_fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends ".key" or "[i]" to the path; returns the old length for rj_pop. */
size_t rj_push(struct ctx *c, const char *key);
size_t rj_push_index(struct ctx *c, size_t i);
void rj_pop(struct ctx *c, size_t len);

/* Every key of obj must be in the space-separated list. */
int rj_check_keys(struct ctx *c, json_t *obj, const char *allowed);

/* Field readers: 0 on success, -1 (with c->err set) on a missing or invalid value. */
int rj_get_string(struct ctx *c, json_t *obj, const char *key, bool required, char *out,
                  size_t outlen);
int rj_get_int(struct ctx *c, json_t *obj, const char *key, bool required, int def, int min,
               int max, int *out);
int rj_get_bool(struct ctx *c, json_t *obj, const char *key, bool def, bool *out);
int rj_get_pair(struct ctx *c, json_t *obj, const char *key, bool required, int min, int max,
                int out[SIDE_COUNT]);
int rj_as_face(struct ctx *c, json_t *v, enum face *out);
int rj_as_side(struct ctx *c, json_t *v, enum side *out);

/* The *.json files of `dir` (not hidden), sorted by name, into names (each malloc'd: the caller
 * frees them). Their count, or -1 with the reason in err (unreadable, more than `max`). */
int rj_json_files(const char *dir, char **names, int max, char *err, size_t errlen);

/* Lowercase letters, digits and '-', non-empty, shorter than max. */
bool rj_valid_id(const char *s, size_t max);

/* The whole document into c->rs (campaign/ruleset_doc.c). */
int rj_load_doc(struct ctx *c, json_t *doc);

/* $.what_if into c->rs (campaign/ruleset_events.c). */
int rj_load_what_if(struct ctx *c, json_t *doc);

/* A grant id of c->rs's $.grants into out (campaign/ruleset_doc.c). */
int rj_check_grant(struct ctx *c, json_t *v, char *out);

#endif
