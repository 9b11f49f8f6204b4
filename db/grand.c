/* Statements on grand campaigns (RULES.md 8): the row, its campaigns, its keys, its version. */
#include "db/store.h"

static struct db_statement st_insert = {
    "grand_insert",
    "INSERT INTO grand_campaigns (id, name, grand_ruleset, what_if, dice, player_allies, "
    "player_axis, organizer_key_hash, allies_key_hash, axis_key_hash, created_at) VALUES "
    "($1::uuid, $2, $3, $4::boolean, $5, $6, $7, decode($8, 'hex'), decode($9, 'hex'), "
    "decode($10, 'hex'), coalesce($11::timestamptz, now()))",
    11, 0};

long db_grand_insert(struct db *db, const char *const p[11])
{
    return db_command(db, &st_insert, p);
}

/* The row, then its campaigns as [id, place, version] in order. */
#define GRAND_COLUMNS                                                                              \
    "g.id, g.name, g.grand_ruleset, g.what_if, g.dice, g.player_allies, g.player_axis, "           \
    "encode(g.allies_key_hash, 'hex'), encode(g.axis_key_hash, 'hex'), "                           \
    "encode(g.organizer_key_hash, 'hex'), encode(g.allies_key_prev, 'hex'), "                      \
    "encode(g.axis_key_prev, 'hex'), encode(g.organizer_key_prev, 'hex'), g.version, " DB_TS(      \
        "g.created_at") ", g.webhook_url, g.webhook_kind, "                                        \
                        "coalesce((SELECT json_agg(json_build_array(c.id, c.grand_index, "         \
                        "c.version) ORDER BY c.grand_index) FROM campaigns c "                     \
                        "WHERE c.grand_campaign_id = g.id), '[]')"
static struct db_statement st_get = {
    "grand_get", "SELECT " GRAND_COLUMNS " FROM grand_campaigns g WHERE g.id = $1::uuid", 1, 0};
/* Its campaigns first, in the order of their ids, then its row (m44_lock_members, migration
 * 0012): a write to one of them locks the campaign, then the grand campaign (its version), so a
 * grand campaign's writes take the same order and never deadlock with them. A write through one
 * campaign that writes to all of them (a new key) locks them all first in the same order
 * (db_grand_lock_members_of). A campaign added while the locks were awaited starts the
 * transaction again. The read comes after, in a statement of its own, so that it sees what a
 * write it waited for committed. */
static struct db_statement st_lock = {"grand_lock", "SELECT m44_lock_members($1::uuid, true)", 1,
                                      0};

/* The campaigns of the grand campaign of campaign $1 (none if it has none), as st_lock locks
 * them. Which grand campaign a campaign is part of never changes after its creation. */
static struct db_statement st_lock_members_of = {
    "grand_lock_members_of",
    "SELECT m44_lock_members((SELECT grand_campaign_id FROM campaigns WHERE id = $1::uuid), "
    "false)",
    1, 0};

bool db_grand_lock_members_of(struct db *db, const char *campaign_id)
{
    const char *p[] = {campaign_id};
    PGresult *m = db_exec(db, &st_lock_members_of, p);
    if (!m)
        return false;
    PQclear(m);
    return true;
}

PGresult *db_grand_get(struct db *db, const char *id, bool lock)
{
    const char *p[] = {id};
    if (lock) {
        PGresult *m = db_exec(db, &st_lock, p);
        if (!m)
            return NULL;
        PQclear(m);
    }
    return db_exec(db, &st_get, p);
}

/* Every campaign of the grand campaign but `except_id` (NULL: none) moves on a version: what
 * changed them (a line in each one's log) was written beside them, not by a write to each. */
static struct db_statement st_members_touch = {
    "grand_members_touch",
    "UPDATE campaigns SET version = version + 1 WHERE grand_campaign_id = $1::uuid "
    "AND id IS DISTINCT FROM $2::uuid",
    2, 0};

bool db_grand_members_touch(struct db *db, const char *grand_id, const char *except_id)
{
    const char *p[] = {grand_id, except_id};
    return db_defer(db, &st_members_touch, p);
}

static struct db_statement st_bump = {
    "grand_bump",
    "WITH u AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = $1::uuid AND "
    "version = $2::bigint RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'grand_bump') FROM u",
    2, 0};

bool db_grand_bump(struct db *db, const char *id, const char *version)
{
    const char *p[] = {id, version};
    return db_defer(db, &st_bump, p);
}

/* A role's key replaced in the grand campaign and every campaign of it ($2: the role). */
#define KEY_SET(table, where)                                                                      \
    "UPDATE " table " SET "                                                                        \
    "organizer_key_prev = CASE WHEN $2 = 'organizer' THEN organizer_key_hash "                     \
    "ELSE organizer_key_prev END, "                                                                \
    "allies_key_prev = CASE WHEN $2 = 'allies' THEN allies_key_hash ELSE allies_key_prev END, "    \
    "axis_key_prev = CASE WHEN $2 = 'axis' THEN axis_key_hash ELSE axis_key_prev END, "            \
    "organizer_key_hash = CASE WHEN $2 = 'organizer' THEN decode($3, 'hex') "                      \
    "ELSE organizer_key_hash END, "                                                                \
    "allies_key_hash = CASE WHEN $2 = 'allies' THEN decode($3, 'hex') ELSE allies_key_hash END, "  \
    "axis_key_hash = CASE WHEN $2 = 'axis' THEN decode($3, 'hex') ELSE axis_key_hash END "         \
    "WHERE " where
static struct db_statement st_key_set = {
    "grand_key_set",
    "WITH c AS (" KEY_SET(
        "campaigns",
        "grand_campaign_id = $1::uuid") " RETURNING 1), "
                                        "g AS (" KEY_SET(
                                            "grand_campaigns",
                                            "id = $1::uuid") " RETURNING 1) "
                                                             "SELECT m44_expect_rows((SELECT "
                                                             "count(*) FROM g), 1, "
                                                             "'grand_key_set')",
    3, 0};

bool db_grand_key_set(struct db *db, const char *grand, const char *role, const char *hash_hex)
{
    const char *p[] = {grand, role, hash_hex};
    return db_defer(db, &st_key_set, p);
}

/* A key re-issued while the grand campaign has no campaign yet: kept for the first one's log. */
static struct db_statement st_key_kept = {
    "grand_key_kept",
    "UPDATE grand_campaigns SET keys_reissued = keys_reissued || "
    "jsonb_build_array(jsonb_build_object('role', $2::text, 'at', now())) WHERE id = $1::uuid",
    2, 0};

bool db_grand_key_kept(struct db *db, const char *grand, const char *role)
{
    const char *p[] = {grand, role};
    return db_defer(db, &st_key_kept, p);
}

/* Those kept, into the log of the campaign that begins ($2), at their own times, in order. */
static struct db_statement st_keys_to_log = {
    "grand_keys_to_log",
    "WITH k AS (SELECT e.value, e.n FROM grand_campaigns g, "
    "jsonb_array_elements(g.keys_reissued) WITH ORDINALITY AS e(value, n) WHERE g.id = $1::uuid), "
    "cleared AS (UPDATE grand_campaigns SET keys_reissued = '[]' WHERE id = $1::uuid "
    "AND keys_reissued <> '[]') "
    "INSERT INTO event_log (campaign_id, actor, action, detail, at) "
    "SELECT $2::uuid, 'organizer', 'key_reissued', jsonb_build_object('role', k.value ->> 'role'), "
    "(k.value ->> 'at')::timestamptz FROM k ORDER BY k.n",
    2, 0};

bool db_grand_keys_to_log(struct db *db, const char *grand, const char *campaign)
{
    const char *p[] = {grand, campaign};
    return db_defer(db, &st_keys_to_log, p);
}

static struct db_statement st_version = {
    "grand_version", "SELECT version FROM grand_campaigns WHERE id = $1::uuid", 1, 0};

PGresult *db_grand_version(struct db *db, const char *id)
{
    const char *p[] = {id};
    return db_exec(db, &st_version, p);
}
