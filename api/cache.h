/*
 * Rendered campaign standings, by campaign id and version. A version changes with every write
 * (in any m44d process, since the version comes from the database), so an entry is never
 * stale: GET reads the version (one primary-key lookup) and serves the rendering it has.
 */
#ifndef M44_API_CACHE_H
#define M44_API_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* Sets the number of entries (0 turns the cache off). Call once before serving. */
void cache_init(long entries);
void cache_shutdown(void);

struct req;

/* Replies 200 to `r` with the rendering of (id, version), shared with every other request that
 * gets it (no copy per request); false when there is none. */
bool cache_reply(struct req *r, const char *id, long long version);

/* A copy of the body for (id, version) into *body (caller frees), or false (the unit test reads
 * the cache so; replies use cache_reply). */
bool cache_get(const char *id, long long version, char **body, size_t *len);

/* Keeps a copy of `body` as the rendering of (id, version), sent as application/json with
 * `headers` (name, value, ..., NULL). */
void cache_put(const char *id, long long version, const char *body, size_t len,
               const char *const *headers);

#endif
