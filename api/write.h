/*
 * Every POST runs through write_run: one transaction that locks the campaign row, checks the
 * key's role, replays a stored response for a repeated Idempotency-Key, checks If-Match, runs
 * the handler's action, bumps the campaign version, and stores the response for the key.
 * A refusal anywhere rolls everything back: nothing is written.
 */
#ifndef M44_API_WRITE_H
#define M44_API_WRITE_H

#include "api/http.h"
#include "api/idempotency.h"
#include "campaign/campaign.h"
#include "campaign/grand.h"

/* NEED_KEY: any of the campaign's keys (the action decides what each role may do). */
enum need { NEED_NONE, NEED_ORGANIZER, NEED_SIDE, NEED_KEY };

struct write_ctx;

/* The action: on C_OK it sets w->status and w->body (a new reference). */
typedef enum cres (*write_action)(struct db *db, struct write_ctx *w);

struct write_op {
    bool campaign;  /* the path's first parameter is a campaign id to lock */
    bool grand;     /* ... or a grand campaign's (its keys decide) */
    enum need need; /* who may do this */
    write_action action;
    void *arg; /* the handler's parsed request */
    /* the body named the side it acts for (NEED_SIDE): the key must be that side's */
    bool names_side;
    enum side side;
    /* the battle whose rolls and choices the action reads (0: none), read in the same round
     * trip as the campaign */
    int battle;
    /* the answer holds keys (creation, import): an Idempotency-Key, which can replay it, must
     * be long enough not to be guessed (IDEM_KEY_MIN_SECRET) */
    bool returns_keys;
    /* a re-issue: the role whose new key the answer holds. A key a re-issue replaced has its own
     * lost answers replayed (a page that lost its connection asks again), but of answers that
     * hold a key only the re-issue of that key itself: the organizer who replaced their own
     * key gets the new one, an organizer key replaced since never gets a side's key again. */
    const enum role *reissues;
    /* the reply is the standing after the write, with the action's body merged in */
    bool reply_standing;
    /* the action needs or writes what a campaign kept in memory cannot know (a log number the
     * database gives, or a time other than the transaction's, which db_tx_time tells): it loads
     * the campaign, and the next write loads it again.
     * Every other action starts from the campaign as the last write here left it, and leaves
     * it so for the next (campaign/state_cache.h; --check-state compares it with the stored) */
    bool reloads;
    /* on a campaign of a grand campaign, the action may write to every campaign of it (a new
     * key): they are locked first, in the order a grand campaign's writes lock them. w->g is
     * the action's, to load the grand campaign into (its members_moved then says whether
     * the action moved the other campaigns, which this daemon reads again after the commit) */
    bool grand_wide;
};

struct write_ctx {
    struct req *r;
    const struct write_op *op;
    struct campaign *c; /* loaded and locked (op->campaign) */
    /* this attempt started from the campaign held in memory, its versions checked by the
     * first statement (db_campaign_at) */
    bool held;
    bool first_done; /* the first attempt has begun (only it may start from the held one) */
    struct grand *g; /* loaded and locked (op->grand), or the action's (op->grand_wide) */
    enum role role;
    struct cerr err;
    int status;
    json_t *body;
    char location[160];
    long long version; /* of what a creation or import made (its ETag), when not 1 */
    /* the action found nothing to change (a chat removed that was not there): its answer is
     * given, and nothing is written (no version, no log line, no stored answer for an
     * Idempotency-Key: the same request again is done again, as if first sent then, which for
     * a removal is what its sender asked for) */
    bool unchanged;
    /* a repeat of an earlier request with the same Idempotency-Key */
    bool replay;
    int replay_status;
    char *replay_body;
    char replay_etag[40], replay_location[160];
    /* the request's Idempotency-Key, derived, and the hash of the request it is for (hex);
     * zeroed after the reply */
    struct idem idem;
    char request_hash[65];
    /* this attempt took the key as new, its lookup waiting (api/write.c, key_first), and the
     * role of the key a re-issue replaced, if it is one */
    bool key_later;
    enum role replaced;
};

void write_run(struct req *r, const struct write_op *op);

/* The key of "Authorization: Bearer <key>", or NULL. */
const char *bearer_key(const struct req *r, char *buf, size_t len);

/* "\"<version>\"" */
void etag_of(long long version, char *buf, size_t len);

/* Replies with a refusal from campaign/ (problem+json with field / phase). */
void reply_cerr(struct req *r, const struct cerr *e);

/*
 * The campaign id in a path (its first parameter) must be a UUID; replies 404 and returns
 * false otherwise. Rewrites it as PostgreSQL writes a uuid (a path may spell it in capitals),
 * so that everything after compares it with the database's ids as text.
 */
bool check_campaign_id(struct req *r);

/* A battle number in a path: 1..MAX_BATTLES; replies 404 and returns -1 otherwise. */
int path_battle(struct req *r, const char *text);

#endif
