/* Statements on campaigns and seeds. */
#include "db/store.h"

#include <string.h>

/* The campaign row, then its battles, seeds, effects and What-if rolls as JSON arrays, so
 * that loading a campaign is one round trip. */
// clang-format off
#define AGG(row, rest) "coalesce((SELECT json_agg(json_build_array(" row ") " rest "), '[]')"
#define CAMPAIGN_ROW                                                                                \
    "c.id, c.name, c.ruleset, c.what_if, c.dice, c.status, c.version, c.next_roll, "                \
    "c.seed_epoch, c.player_allies, c.player_axis, c.tokens_allies, c.tokens_axis, "                \
    "encode(c.organizer_key_hash, 'hex'), encode(c.allies_key_hash, 'hex'), "                       \
    "encode(c.axis_key_hash, 'hex'), c.scenarios, c.winner, "                                       \
    DB_TS("c.created_at") ", " DB_TS("c.finished_at")
#define CAMPAIGN_BATTLES                                                                            \
    AGG("b.number, b.scenario, b.first_player, b.cards_allies, b.cards_axis, b.medals_to_win, "     \
        "b.commissar, b.phase, b.winner, b.medals_allies, b.medals_axis, b.undeployed_allies, "     \
        "b.undeployed_axis, b.objective_allies, b.objective_axis, "                                 \
        DB_TS("b.created_at") ", " DB_TS("b.finished_at") ", b.maps, b.features, "                  \
        "b.sudden_death, coalesce(b.setup_first_player, b.first_player), "                          \
        "CASE WHEN b.setup_first_player IS NULL THEN b.commissar ELSE b.setup_commissar END",                                  \
        "ORDER BY b.number) FROM battles b WHERE b.campaign_id = c.id")
#define CAMPAIGN_SEEDS                                                                              \
    AGG("s.epoch, encode(s.seed, 'hex'), s.commitment, " DB_TS("s.revealed_at") ", s.origin",                    \
        "ORDER BY s.epoch) FROM seeds s WHERE s.campaign_id = c.id")
#define CAMPAIGN_EFFECTS                                                                            \
    AGG("e.event_id, e.rolled_by, e.data, e.picked_battle",                                        \
        "ORDER BY e.seq) FROM effects e WHERE e.campaign_id = c.id")
#define CAMPAIGN_WHAT_IF                                                                            \
    AGG("r.side, r.faces, r.detail->>'event', r.battle",                                           \
        "ORDER BY r.n) FROM rolls r WHERE r.campaign_id = c.id AND r.purpose = 'what_if' "          \
        "AND NOT r.voided")
#define CAMPAIGN_HELD                                                                               \
    AGG("h.id, h.side, h.grant_id, h.battle, h.state",                                             \
        "ORDER BY h.id) FROM holdings h WHERE h.campaign_id = c.id")
/* The last action that was not undone (undo, key re-issues and the chat's link are not actions
 * on the game): [seq, actor, action, detail], or null. */
#define CAMPAIGN_LAST_ACTION                                                                        \
    "(SELECT json_build_array(l.seq, l.actor, l.action, l.detail) FROM event_log l "                 \
    "WHERE l.campaign_id = c.id AND l.action NOT IN " DB_LOG_NOT_GAME " "                            \
    "AND NOT " DB_LOG_UNDONE("l") " ORDER BY l.seq DESC LIMIT 1)"
#define CAMPAIGN_COLUMNS                                                                            \
    CAMPAIGN_ROW ", " CAMPAIGN_BATTLES ", " CAMPAIGN_SEEDS ", "                                     \
    CAMPAIGN_EFFECTS ", " CAMPAIGN_WHAT_IF ", " CAMPAIGN_HELD ", " CAMPAIGN_LAST_ACTION ", "         \
    "c.undo_from, encode(c.allies_key_prev, 'hex'), encode(c.axis_key_prev, 'hex'), "               \
    "encode(c.organizer_key_prev, 'hex'), c.grand_campaign_id, c.grand_index, "                     \
    "coalesce(c.webhook_url, (SELECT g.webhook_url FROM grand_campaigns g "                         \
    "WHERE g.id = c.grand_campaign_id)), "                                                          \
    "(SELECT g.name FROM grand_campaigns g WHERE g.id = c.grand_campaign_id), "                    \
    "(SELECT g.grand_ruleset FROM grand_campaigns g WHERE g.id = c.grand_campaign_id), "            \
    "CASE WHEN c.webhook_url IS NOT NULL THEN c.webhook_kind ELSE (SELECT g.webhook_kind "         \
    "FROM grand_campaigns g WHERE g.id = c.grand_campaign_id) END, c.webhook_url IS NOT NULL, "  \
    "(SELECT g.version FROM grand_campaigns g WHERE g.id = c.grand_campaign_id)"
// clang-format on

static struct db_statement st_insert = {
    "campaign_insert",
    "INSERT INTO campaigns (id, name, ruleset, what_if, dice, player_allies, player_axis, "
    "tokens_allies, tokens_axis, organizer_key_hash, allies_key_hash, axis_key_hash, scenarios, "
    "grand_campaign_id, grand_index) "
    "VALUES ($1::uuid, $2, $3, $4::boolean, $5, $6, $7, $8::int, $9::int, decode($10, 'hex'), "
    "decode($11, 'hex'), decode($12, 'hex'), $13::jsonb, $14::uuid, $15::int)",
    15, 0};
static struct db_statement st_get = {
    "campaign_get", "SELECT " CAMPAIGN_COLUMNS " FROM campaigns c WHERE c.id = $1::uuid", 1, 0};
/* The same, locked, and then the version as the statement's snapshot saw it (see below). */
static struct db_statement st_lock = {"campaign_lock",
                                      "SELECT " CAMPAIGN_COLUMNS
                                      ", (SELECT s.version FROM campaigns s WHERE s.id = c.id) "
                                      "FROM campaigns c WHERE c.id = $1::uuid FOR UPDATE OF c",
                                      1, 0};
/* $6, the status, is typed where it is used: used twice untyped, PostgreSQL would deduce two
 * types for it (the column's domain, and text). */
static struct db_statement st_save = {
    "campaign_save",
    "WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = $2::int, "
    "seed_epoch = $3::int, tokens_allies = $4::int, tokens_axis = $5::int, status = $6::text, "
    "winner = $7, "
    "finished_at = CASE WHEN $6::text = 'finished' THEN coalesce(finished_at, now()) END "
    "WHERE id = $1::uuid AND version = $8::bigint RETURNING grand_campaign_id), "
    /* a change to a campaign of a grand campaign is a change to the grand campaign too */
    "g AS (UPDATE grand_campaigns SET version = version + 1 "
    "WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) "
    "SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u",
    8, 0};
/* The same as the first statement of a write that starts from a campaign held in memory
 * (migration 0016): the version check itself, made only if the campaign is still at the version
 * held, which fails the transaction as one that moved on otherwise. Not for a campaign of a
 * grand campaign (its grand campaign's version is checked by m44_campaign_at). */
static struct db_statement st_save_first = {
    "campaign_save_first",
    "WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = $2::int, "
    "seed_epoch = $3::int, tokens_allies = $4::int, tokens_axis = $5::int, status = $6::text, "
    "winner = $7, "
    "finished_at = CASE WHEN $6::text = 'finished' THEN coalesce(finished_at, now()) END "
    "WHERE id = $1::uuid AND version = $8::bigint AND grand_campaign_id IS NULL RETURNING 1) "
    "SELECT m44_still(count(*) = 1, 'campaign ' || $1 || ' is no longer at version ' || $8) "
    "FROM u",
    8, 0};
/* The version check of a write that starts from a campaign held in memory (migration 0009). */
static struct db_statement st_at = {
    "campaign_at", "SELECT m44_campaign_at($1::uuid, $2::bigint, $3::bigint)", 3, 0};
static struct db_statement st_versions = {
    "campaign_versions",
    "SELECT id::text, version, 'c' FROM campaigns WHERE id = ANY($1::uuid[]) UNION ALL "
    "SELECT id::text, version, 'g' FROM grand_campaigns WHERE id = ANY($1::uuid[])",
    1, 0};
static struct db_statement st_version = {"campaign_version",
                                         "SELECT version FROM campaigns WHERE id = $1::uuid", 1, 0};
/* What a read compares with the campaign held in memory: its version, its grand campaign's. */
static struct db_statement st_versions_of = {
    "campaign_versions_of",
    "SELECT c.version, g.version FROM campaigns c LEFT JOIN grand_campaigns g ON g.id = "
    "c.grand_campaign_id WHERE c.id = $1::uuid",
    1, 0};
static struct db_statement st_list = {
    "campaign_list",
    "SELECT id, name, ruleset, status, version, player_allies, player_axis, " DB_TS(
        "created_at") ", seq FROM campaigns WHERE $1::bigint IS NULL OR seq < $1::bigint "
                      "ORDER BY seq DESC LIMIT $2::int",
    2, 0};
/* Campaigns and grand campaigns share one space of ids (their GETs, caches and long polls are
 * keyed by id alone). */
static struct db_statement st_exists = {
    "campaign_exists",
    "SELECT 1 FROM campaigns WHERE id = $1::uuid UNION ALL SELECT 1 FROM grand_campaigns WHERE "
    "id = $1::uuid",
    1, 0};

long db_campaign_insert(struct db *db, const char *const p[15])
{
    return db_command(db, &st_insert, p);
}

/*
 * Under READ COMMITTED, a locking statement that found the row changed by a transaction that
 * committed after the statement began (it may have waited for it) returns the row as it is now,
 * but reads the other tables, in the subqueries, as they were when it began. Every write bumps
 * the version, so a snapshot version older than the row's means the battles, seeds and effects
 * may be stale: they are read again by a new statement, with the lock held. Uncontended, the
 * lock and the load are one round trip.
 */
PGresult *db_campaign_get(struct db *db, const char *id, bool lock)
{
    const char *p[] = {id};
    if (!lock)
        return db_exec(db, &st_get, p);
    PGresult *r = db_exec(db, &st_lock, p);
    if (!r || PQntuples(r) != 1)
        return r;
    const int version = 6, snapshot_version = PQnfields(r) - 1;
    if (strcmp(PQgetvalue(r, 0, version), PQgetvalue(r, 0, snapshot_version)) == 0)
        return r;
    PQclear(r);
    return db_exec(db, &st_get, p);
}

bool db_campaign_at(struct db *db, const char *id, const char *version, const char *grand_version)
{
    const char *p[] = {id, version, grand_version};
    return db_defer(db, &st_at, p);
}

bool db_campaign_save(struct db *db, const char *const p[8])
{
    return db_defer(db, &st_save, p);
}

bool db_campaign_save_first(struct db *db, const char *const p[8])
{
    return db_defer_instead(db, &st_at, &st_save_first, p);
}

bool db_campaign_defer_after_check(struct db *db, struct db_statement *st,
                                   const char *const *params)
{
    return db_defer_after(db, db_unsent(db, &st_save_first) ? &st_save_first : &st_at, st, params);
}

bool db_campaign_at_unsent(const struct db *db)
{
    return db_unsent(db, &st_at);
}

PGresult *db_campaign_version(struct db *db, const char *id)
{
    const char *p[] = {id};
    return db_exec(db, &st_version, p);
}

PGresult *db_campaign_versions_of(struct db *db, const char *id)
{
    const char *p[] = {id};
    return db_exec(db, &st_versions_of, p);
}

PGresult *db_campaign_versions(struct db *db, const char *ids)
{
    const char *p[] = {ids};
    return db_exec(db, &st_versions, p);
}

PGresult *db_campaign_list(struct db *db, const char *before_seq, const char *limit)
{
    const char *p[] = {before_seq, limit};
    return db_exec(db, &st_list, p);
}

long db_campaign_exists(struct db *db, const char *id)
{
    const char *p[] = {id};
    PGresult *r = db_exec(db, &st_exists, p);
    if (!r)
        return -1;
    long n = PQntuples(r);
    PQclear(r);
    return n;
}

static struct db_statement st_seed_insert = {
    "seed_insert",
    "INSERT INTO seeds (campaign_id, epoch, seed, commitment, revealed_at, origin) VALUES "
    "($1::uuid, $2::int, decode($3, 'hex'), $4, CASE WHEN $5::boolean THEN now() END, $6)",
    6, 0};
static struct db_statement st_reveal = {"seeds_reveal",
                                        "UPDATE seeds SET revealed_at = now() WHERE campaign_id = "
                                        "$1::uuid AND revealed_at IS NULL AND seed IS NOT NULL",
                                        1, 0};
static struct db_statement st_id_lock = {
    "campaign_id_lock", "SELECT pg_advisory_xact_lock(hashtextextended($1, 4444))", 1, 0};

long db_seed_insert(struct db *db, const char *campaign, const char *epoch, const char *seed_hex,
                    const char *commitment, bool revealed, const char *origin)
{
    const char *p[] = {campaign, epoch, seed_hex, commitment, revealed ? "true" : "false", origin};
    return db_command(db, &st_seed_insert, p);
}

long db_campaign_id_lock(struct db *db, const char *id)
{
    const char *p[] = {id};
    PGresult *r = db_exec(db, &st_id_lock, p);
    PQclear(r);
    return r ? 1 : -1;
}

long db_seeds_reveal(struct db *db, const char *campaign)
{
    const char *p[] = {campaign};
    return db_command(db, &st_reveal, p);
}

/* An import: what the action just replayed wrote bears the transaction's time, now(); it takes
 * the time the document gives that action instead (each earlier action's rows have theirs, so
 * the rows still at now() are the newest).
 * Rolls are append-only: an imported roll is written with its time (db_roll_insert_at). */
static struct db_statement st_restamp = {
    "campaign_restamp",
    "WITH c AS (UPDATE campaigns SET created_at = CASE WHEN created_at = now() THEN "
    "$2::timestamptz "
    "ELSE created_at END, finished_at = CASE WHEN finished_at = now() THEN $2::timestamptz ELSE "
    "finished_at END WHERE id = $1::uuid AND (created_at = now() OR finished_at = now()) RETURNING "
    "1), "
    "s AS (UPDATE seeds SET revealed_at = $2::timestamptz WHERE campaign_id = $1::uuid AND "
    "revealed_at = now() RETURNING 1), "
    "b AS (UPDATE battles SET created_at = CASE WHEN created_at = now() THEN $2::timestamptz ELSE "
    "created_at END, finished_at = CASE WHEN finished_at = now() THEN $2::timestamptz ELSE "
    "finished_at END WHERE campaign_id = $1::uuid AND (created_at = now() OR finished_at = now()) "
    "RETURNING 1), "
    "rc AS (UPDATE reserve_choices SET at = $2::timestamptz WHERE campaign_id = $1::uuid AND at = "
    "now() RETURNING 1), "
    "e AS (UPDATE effects SET at = $2::timestamptz WHERE campaign_id = $1::uuid AND at = now() "
    "RETURNING 1), "
    "t AS (UPDATE token_ledger SET at = $2::timestamptz WHERE campaign_id = $1::uuid AND at = "
    "now() "
    "RETURNING 1), "
    /* The log's lines of this action are its newest: found from the end (the log of a long
     * campaign is long), back to the last line that has its own time. */
    "l AS (UPDATE event_log SET at = $2::timestamptz WHERE campaign_id = $1::uuid AND at = now() "
    "AND seq > coalesce((SELECT max(o.seq) FROM event_log o WHERE o.campaign_id = $1::uuid AND "
    "o.at <> now()), 0) RETURNING 1), "
    "h AS (UPDATE holdings SET at = CASE WHEN at = now() THEN $2::timestamptz ELSE at END, "
    "changed_at = CASE WHEN changed_at = now() THEN $2::timestamptz ELSE changed_at END WHERE "
    "campaign_id = $1::uuid AND (at = now() OR changed_at = now()) RETURNING 1) "
    "SELECT (SELECT count(*) FROM c) + (SELECT count(*) FROM s) + (SELECT count(*) FROM b) + "
    "(SELECT count(*) FROM rc) + (SELECT count(*) FROM e) + (SELECT "
    "count(*) FROM t) + (SELECT count(*) FROM l) + (SELECT count(*) FROM h)",
    2, 0};

bool db_campaign_restamp(struct db *db, const char *campaign, const char *at)
{
    const char *p[] = {campaign, at};
    return db_defer(db, &st_restamp, p);
}

static struct db_statement st_seed_revealed_at = {
    "seed_revealed_at",
    "WITH u AS (UPDATE seeds SET revealed_at = $3::timestamptz WHERE campaign_id = $1::uuid AND "
    "epoch = $2::int AND revealed_at IS NOT NULL RETURNING 1) SELECT m44_expect_rows(count(*), 1, "
    "'seed_revealed_at') FROM u",
    3, 0};

bool db_seed_revealed_at(struct db *db, const char *campaign, const char *epoch, const char *at)
{
    const char *p[] = {campaign, epoch, at};
    return db_defer(db, &st_seed_revealed_at, p);
}
