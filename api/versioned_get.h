/*
 * GET of a resource with a version (a campaign's standing, a grand campaign's): the version is
 * the ETag; If-None-Match with it gets 304, or, with ?wait=N (seconds, up to --max-wait), waits
 * until the version moves (long polling). A rendering is cached by id and version, so a
 * repeated GET is one primary-key lookup.
 */
#ifndef M44_API_VERSIONED_GET_H
#define M44_API_VERSIONED_GET_H

#include "api/http.h"
#include "db/listener.h"
#include "db/db.h"

struct versioned {
    const char *missing; /* the 404's detail, e.g. "There is no campaign with that id." */
    PGresult *(*version)(struct db *db, const char *id); /* one row: the version */
    /* The rendering of params[0] and the version it is of; false when it replied itself. */
    bool (*render)(struct req *r, char **body, long long *version);
};

void versioned_get(struct req *r, const struct versioned *v);

/* The same, answered from the version alone where it can be (304, or the cached rendering);
 * false, with nothing replied, when it needs versioned_get. */
bool versioned_get_by_version(struct req *r, long long version);

/* The version of `id` as heard from the database (db/listener.h), when it is current and not
 * older than one the client shows in If-None-Match (a client may have seen a change through
 * another daemon before this one hears of it: then the database is asked). */
bool versioned_known(const struct req *r, const char *id, long long *version);

/* What the request's path names by its id: a grand campaign (/grand-campaigns/...) or a
 * campaign. */
enum vkind req_kind(const struct req *r);

/* A GET of what a campaign's version decides (a battle, the roll log), read at `version`: 304
 * with its ETag when If-None-Match names it (replied: true); false otherwise. */
bool versioned_unchanged(struct req *r, long long version);
/* Its answer with the version as ETag: 200 with `body` (taken), or 304 when `body` is NULL. */
void reply_versioned(struct req *r, long long version, json_t *body);

/* The newest version the client shows in If-None-Match ("N" or W/"N"); 0 when none. */
long long seen_version(const struct req *r);

#endif
