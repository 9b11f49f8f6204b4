/* Helpers shared by the endpoint handlers. */
#ifndef M44_API_COMMON_H
#define M44_API_COMMON_H

#include "api/json_in.h"
#include "api/write.h"
#include "campaign/campaign.h"

/*
 * The body of a rolling POST: {} or {"client_seed": "..."} for a server roll, or
 * {"faces": [...]} with the faces rolled at the table. Replies 400 and returns false when the
 * body is malformed; the count of faces is checked later against the roll.
 */
bool parse_roll_body(struct req *r, struct roll_input *in, struct write_op *op);

/*
 * Reads campaign params[0] (no lock: campaign_read, which takes the copy held in memory when
 * the database is at its versions, else loads it) and calls `fn`, all in one read transaction;
 * replies with 404 / 503 itself. On success `fn` replies, or leaves it to the caller (which
 * sees r->status still 0); `fn` may refuse by filling `err` and returning C_REFUSED.
 */
typedef enum cres (*read_fn)(struct db *db, struct req *r, struct campaign *c, struct cerr *err,
                             void *arg);
void read_campaign(struct req *r, read_fn fn, void *arg);

/* The same, answered by the standby (--read-database) when it may be read now and holds the
 * campaign at a version at least as new as this daemon heard of, the client shows in
 * If-None-Match, or r->read_at_least; else by the primary. For reads that check no key: a key
 * replaced on the primary would still open the standby's copy until the standby catches up. */
void read_campaign_replica(struct req *r, read_fn fn, void *arg);

/* --check-state: c, as held in memory, against the campaign stored (loaded now; see
 * campaign_check_stored for `locked`). A difference is logged with r's route and returned as
 * C_DBERR (the request fails with 500). */
enum cres check_held_state(struct db *db, const struct req *r, const struct campaign *c,
                           bool locked);

/* The same for grand campaign params[0]. */
typedef enum cres (*grand_read_fn)(struct db *db, struct req *r, struct grand *g, struct cerr *err,
                                   void *arg);
void read_grand_campaign(struct req *r, grand_read_fn fn, void *arg);
void read_grand_campaign_replica(struct req *r, grand_read_fn fn, void *arg);

/* A read transaction of no one campaign (a list), on the standby when it may be read now (its
 * staleness bounded by --read-max-lag-ms), else on the primary; a standby that fails or refuses
 * it sends it to the primary. `fn` must start afresh each time it runs. */
enum db_result read_anywhere(struct req *r, db_tx_fn fn, void *x);

/* 401 for a key that is not one of this campaign's (or grand campaign's, `what`), saying so
 * when it is one a re-issue replaced. */
enum cres refuse_key(struct cerr *err, const char *key, enum role replaced, const char *what);

/* The role named by path parameter `i` (allies, axis, organizer); replies 404 and returns false
 * for any other. */
bool path_role(struct req *r, int i, enum role *role);

/* Reads a body that must have no fields ({} or empty); replies 400 and returns false otherwise. */
bool empty_body(struct req *r);

/* The reply of a grand campaign's creation or import (api/grand_campaigns_create.c): its id,
 * its three keys, and the dashboard's links. */
json_t *grand_keys_reply(const struct grand_output *out, const char *location, long long version);

/* Replies 503 (database unavailable) or 500 (logged) for a transaction that did not commit. */
void reply_db_failure(struct req *r, enum db_result res);

/* The side a side's key acts for (valid after write_run's checks with NEED_SIDE). */
static inline enum side acting_side(const struct write_ctx *w)
{
    return role_side(w->role);
}

#endif
