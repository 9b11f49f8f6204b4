/* Statements on the group's chat (README, "The group's chat"): the webhook URLs, and the
 * outbox of messages a worker delivers in order, each chat's one at a time. */
#include "db/store.h"

/* ---- setting a chat ---- */

static struct db_statement st_campaign_set = {
    "chat_campaign_set",
    "WITH u AS (UPDATE campaigns SET webhook_url = $2, webhook_kind = $3 WHERE id = $1::uuid "
    "RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'chat_campaign_set') FROM u",
    3, 0};
static struct db_statement st_grand_set = {
    "chat_grand_set",
    "WITH u AS (UPDATE grand_campaigns SET webhook_url = $2, webhook_kind = $3 "
    "WHERE id = $1::uuid RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'chat_grand_set') FROM u",
    3, 0};

bool db_chat_set(struct db *db, bool grand, const char *id, const char *url, const char *kind)
{
    const char *p[] = {id, url, kind};
    return db_defer(db, grand ? &st_grand_set : &st_campaign_set, p);
}

static struct db_statement st_chat_of = {
    "chat_of",
    "SELECT coalesce(c.webhook_url, g.webhook_url), coalesce(c.webhook_kind, g.webhook_kind), "
    "c.webhook_url IS NOT NULL FROM campaigns c LEFT JOIN grand_campaigns g ON g.id = "
    "c.grand_campaign_id WHERE c.id = $1::uuid",
    1, 0};

PGresult *db_chat_of(struct db *db, const char *campaign_id)
{
    const char *p[] = {campaign_id};
    return db_exec(db, &st_chat_of, p);
}

/* Messages not yet delivered follow the chat to its new URL, or are not sent when it is gone. */
/* The time a message is due is left alone: one being sent now (leased) must not be taken by
 * another sender; the sender checks the row again just before it posts (db_outbox_still). */
static struct db_statement st_reroute = {
    "outbox_reroute",
    "UPDATE outbox SET url = $2, kind = $3 WHERE scope = $1::uuid AND state = 'pending'", 3, 0};
static struct db_statement st_drop = {
    "outbox_drop",
    "UPDATE outbox SET state = 'failed', url = NULL, last_error = $2 WHERE scope = $1::uuid "
    "AND state = 'pending'",
    2, 0};

bool db_outbox_reroute(struct db *db, const char *scope, const char *url, const char *kind,
                       const char *why_dropped)
{
    if (!url) {
        const char *p[] = {scope, why_dropped};
        return db_defer(db, &st_drop, p);
    }
    const char *p[] = {scope, url, kind};
    return db_defer(db, &st_reroute, p);
}

/* ---- writing a message ---- */

static struct db_statement st_insert = {
    "outbox_insert",
    "INSERT INTO outbox (scope, campaign_id, url, kind, message) VALUES ($1::uuid, $2::uuid, $3, "
    "$4, $5::jsonb || jsonb_build_object('at', " DB_TS("now()") "))",
    5, 0};

bool db_outbox_insert(struct db *db, const char *const p[5])
{
    return db_defer(db, &st_insert, p);
}

/* ---- delivering ---- */

/*
 * Up to $1 due messages, each the first not yet delivered of its chat, leased for $2 seconds
 * (next_at moves past the lease: should this process die while sending, the message is sent
 * again once it ends). SKIP LOCKED: other workers, in this process or another, take others.
 * The attempt number is the lease's token: the sender's later updates name it, so a sender
 * whose lease ran out and was taken over changes nothing. Fewest attempts first: a message tried
 * before (its chat failing, or never answering) waits behind every due message not yet tried,
 * so chats that keep failing hold the workers only for their first attempts.
 */
static struct db_statement st_claim = {
    "outbox_claim",
    "WITH due AS (SELECT o.id FROM outbox o WHERE o.state = 'pending' AND o.next_at <= now() "
    "AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.scope = o.scope AND p.state = 'pending' "
    "AND p.id < o.id) ORDER BY o.attempts, o.next_at, o.id LIMIT $1::int FOR UPDATE SKIP LOCKED) "
    "UPDATE outbox o SET attempts = o.attempts + 1, next_at = now() + make_interval(secs => "
    "$2::int) FROM due WHERE o.id = due.id RETURNING o.id, o.url, o.kind, o.message::text, "
    "o.attempts",
    2, 0};

PGresult *db_outbox_claim(struct db *db, const char *limit, const char *lease_seconds)
{
    const char *p[] = {limit, lease_seconds};
    return db_exec(db, &st_claim, p);
}

/* Still ours to send ($2: the attempt we leased), and where to now. */
static struct db_statement st_still = {
    "outbox_still",
    "SELECT url, kind FROM outbox WHERE id = $1::bigint AND state = 'pending' AND "
    "attempts = $2::int",
    2, 0};
static struct db_statement st_delivered = {
    "outbox_delivered",
    "UPDATE outbox SET state = 'delivered', delivered_at = now(), last_error = NULL, url = NULL "
    "WHERE id = $1::bigint AND state = 'pending' AND attempts = $2::int",
    2, 0};
/* $3: seconds to wait, or NULL: give up. */
static struct db_statement st_retry = {
    "outbox_retry",
    "UPDATE outbox SET last_error = $4, state = CASE WHEN $3::int IS NULL THEN 'failed' ELSE "
    "'pending' END, url = CASE WHEN $3::int IS NULL THEN NULL ELSE url END, next_at = now() + "
    "make_interval(secs => coalesce($3::int, 0)) WHERE id = $1::bigint AND state = 'pending' AND "
    "attempts = $2::int",
    4, 0};

PGresult *db_outbox_still(struct db *db, const char *id, const char *attempt)
{
    const char *p[] = {id, attempt};
    return db_exec(db, &st_still, p);
}

bool db_outbox_delivered(struct db *db, const char *id, const char *attempt)
{
    const char *p[] = {id, attempt};
    return db_command(db, &st_delivered, p) >= 0;
}

bool db_outbox_retry(struct db *db, const char *id, const char *attempt, const char *wait_seconds,
                     const char *error)
{
    const char *p[] = {id, attempt, wait_seconds, error};
    return db_command(db, &st_retry, p) >= 0;
}

/* ---- status ---- */

/* The error said is the chat's as it is now: the error of the message being tried (the first
 * one pending; none while it has not been tried), or with none pending, of the last message
 * given up on, unless a later one was delivered. A link set again after a failure sends its
 * greeting, so the failure before it is said no more; the counts keep every message. */
#define OUTBOX_ERROR_NOW                                                                           \
    "CASE WHEN count(*) FILTER (WHERE state = 'pending') > 0 THEN (SELECT p.last_error FROM "      \
    "outbox p WHERE p.scope = $1::uuid AND p.state = 'pending' ORDER BY p.id LIMIT 1) ELSE "       \
    "(SELECT e.last_error FROM outbox e WHERE e.scope = $1::uuid ORDER BY e.id DESC LIMIT 1) END"

static struct db_statement st_status = {
    "outbox_status",
    "SELECT count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = "
    "'delivered'), count(*) FILTER (WHERE state = 'failed'), " DB_TS(
        "max(delivered_at)") ", " OUTBOX_ERROR_NOW
                             ", " DB_TS("min(next_at) FILTER (WHERE state = 'pending' AND "
                                        "attempts > 0)") " FROM outbox WHERE scope = $1::uuid",
    1, 0};

PGresult *db_outbox_status(struct db *db, const char *scope)
{
    const char *p[] = {scope};
    return db_exec(db, &st_status, p);
}
