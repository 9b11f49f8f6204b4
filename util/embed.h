/* Files compiled into the binaries by tools/embed (migrations, rulesets, dashboard, OpenAPI). */
#ifndef M44_UTIL_EMBED_H
#define M44_UTIL_EMBED_H

#include <stddef.h>

struct embedded_file {
    const char *name; /* path relative to its group's directory, e.g. "0001-core.sql" */
    const unsigned char *data;
    size_t len; /* data[len] is always '\0', so text files are C strings */
};

/* Each group is a table ending with an entry whose name is NULL, sorted by name. */
extern const struct embedded_file embedded_migrations[];
extern const struct embedded_file embedded_rulesets[];
extern const struct embedded_file embedded_grand[];
extern const struct embedded_file embedded_web[];
extern const struct embedded_file embedded_openapi[];

/* Returns the file called `name` in `group`, or NULL. */
const struct embedded_file *embedded_find(const struct embedded_file *group, const char *name);

#endif
