/* Statements for correcting mistakes (API.md, second round): undo and key re-issue. */
#include "db/store.h"

/* The token changes and held tokens an action wrote carry its log entry (the last one): run
 * once the action is done, so that an undo removes exactly them. */
static struct db_statement st_stamp = {
    "action_stamp",
    "WITH l AS (SELECT max(seq) AS seq FROM event_log WHERE campaign_id = $1::uuid), "
    "t AS (UPDATE token_ledger SET log_seq = (SELECT seq FROM l) "
    "WHERE campaign_id = $1::uuid AND log_seq IS NULL RETURNING 1), "
    "h AS (UPDATE holdings SET log_seq = (SELECT seq FROM l) "
    "WHERE campaign_id = $1::uuid AND log_seq IS NULL RETURNING 1) "
    "SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM h)",
    1, 0};

bool db_action_stamp(struct db *db, const char *campaign)
{
    const char *p[] = {campaign};
    return db_defer(db, &st_stamp, p);
}

/* What an action wrote to the token ledger and the held tokens, removed. */
static struct db_statement st_unwrite = {
    "action_unwrite",
    "WITH t AS (DELETE FROM token_ledger WHERE campaign_id = $1::uuid AND log_seq = $2::bigint "
    "RETURNING 1), h AS (DELETE FROM holdings WHERE campaign_id = $1::uuid AND "
    "log_seq = $2::bigint RETURNING 1) SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM h)",
    2, 0};

bool db_action_unwrite(struct db *db, const char *campaign, const char *seq)
{
    const char *p[] = {campaign, seq};
    return db_defer(db, &st_unwrite, p);
}

/* Each side's Reserve Tokens as the ledger now says: [side, balance] rows (a side with no row
 * has none). */
static struct db_statement st_balances = {
    "ledger_balances",
    "SELECT DISTINCT ON (side) side, balance FROM token_ledger WHERE campaign_id = $1::uuid "
    "ORDER BY side, seq DESC",
    1, 0};

PGresult *db_ledger_balances(struct db *db, const char *campaign)
{
    const char *p[] = {campaign};
    return db_exec(db, &st_balances, p);
}

#define LOG_UNDONE DB_LOG_UNDONE("l")
static struct db_statement st_log_from = {
    "log_from",
    "WITH t AS (SELECT l.seq FROM event_log l WHERE l.campaign_id = $1::uuid AND l.action = $2 "
    "AND (l.detail ->> CASE WHEN $2 = 'roll' THEN 'n' ELSE 'battle' END)::int = $3::int "
    "AND ($2 = 'roll' OR l.detail ->> 'side' = $4) ORDER BY " LOG_UNDONE ", l.seq DESC LIMIT 1) "
    "SELECT l.seq, l.actor, l.action, l.detail::text, " LOG_UNDONE " FROM event_log l, t "
    "WHERE l.campaign_id = $1::uuid AND l.seq >= t.seq AND (l.seq = t.seq OR l.action NOT "
    "IN " DB_LOG_NOT_GAME ") ORDER BY l.seq",
    4, 0};

PGresult *db_log_from(struct db *db, const char *campaign, const char *action, const char *n,
                      const char *side)
{
    const char *p[] = {campaign, action, n, side};
    return db_exec(db, &st_log_from, p);
}

static struct db_statement st_log_undone = {
    "log_undone",
    "WITH u AS (UPDATE event_log SET undone = true WHERE campaign_id = $1::uuid AND seq = "
    "$2::bigint AND NOT undone RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'log_undone') "
    "FROM u",
    2, 0};

bool db_log_undone(struct db *db, const char *campaign, const char *seq)
{
    const char *p[] = {campaign, seq};
    return db_defer(db, &st_log_undone, p);
}

/* A table roll voided (the rolls trigger allows nothing else, and never on a server roll). */
static struct db_statement st_roll_void = {
    "roll_void",
    "WITH u AS (UPDATE rolls SET voided = true WHERE campaign_id = $1::uuid AND n = $2::int "
    "AND source = 'table' AND NOT voided RETURNING 1) "
    "SELECT m44_expect_rows(count(*), 1, 'roll_void') FROM u",
    2, 0};

bool db_roll_void(struct db *db, const char *campaign, const char *n)
{
    const char *p[] = {campaign, n};
    return db_defer(db, &st_roll_void, p);
}

static struct db_statement st_choice_delete = {
    "choice_delete",
    "WITH d AS (DELETE FROM reserve_choices WHERE campaign_id = $1::uuid AND battle = $2::int "
    "AND side = $3 RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'choice_delete') FROM d",
    3, 0};

bool db_choice_delete(struct db *db, const char *campaign, const char *battle, const char *side)
{
    const char *p[] = {campaign, battle, side};
    return db_defer(db, &st_choice_delete, p);
}

static struct db_statement st_battle_delete = {
    "battle_delete",
    "WITH d AS (DELETE FROM battles WHERE campaign_id = $1::uuid AND number = $2::int "
    "RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'battle_delete') FROM d",
    2, 0};

bool db_battle_delete(struct db *db, const char *campaign, const char *battle)
{
    const char *p[] = {campaign, battle};
    return db_defer(db, &st_battle_delete, p);
}

/* A What-if roll of an event undone (its roll already voided): the event is rolled by the sides
 * whose What-if rolls in force still give it (a side may have rolled it twice: Forward Command),
 * and no longer in force when none does. */
static struct db_statement st_effect_unroll = {
    "effect_unroll",
    "UPDATE effects SET rolled_by = (SELECT coalesce(array_agg(DISTINCT r.side::text), '{}') "
    "FROM rolls r WHERE r.campaign_id = $1::uuid AND r.purpose = 'what_if' AND NOT r.voided "
    "AND r.detail ->> 'event' = $2) WHERE campaign_id = $1::uuid AND event_id = $2",
    2, 0};
static struct db_statement st_effect_drop = {
    "effect_drop",
    "DELETE FROM effects WHERE campaign_id = $1::uuid AND event_id = $2 AND rolled_by = '{}'", 2,
    0};

bool db_effect_unroll(struct db *db, const char *campaign, const char *event_id)
{
    const char *p[] = {campaign, event_id};
    return db_defer(db, &st_effect_unroll, p) && db_defer(db, &st_effect_drop, p);
}

static struct db_statement st_effect_unpick = {
    "effect_unpick",
    "WITH u AS (UPDATE effects SET picked_battle = NULL WHERE campaign_id = $1::uuid AND "
    "event_id = $2 RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'effect_unpick') FROM u",
    2, 0};

bool db_effect_unpick(struct db *db, const char *campaign, const char *event_id)
{
    const char *p[] = {campaign, event_id};
    return db_defer(db, &st_effect_unpick, p);
}

/* A role's key replaced by a new one ($2: organizer, allies or axis; $3: its SHA-256, hex). */
static struct db_statement st_key_set = {
    "key_set",
    "WITH u AS (UPDATE campaigns SET "
    "organizer_key_prev = CASE WHEN $2 = 'organizer' THEN organizer_key_hash "
    "ELSE organizer_key_prev END, "
    "allies_key_prev = CASE WHEN $2 = 'allies' THEN allies_key_hash ELSE allies_key_prev END, "
    "axis_key_prev = CASE WHEN $2 = 'axis' THEN axis_key_hash ELSE axis_key_prev END, "
    "organizer_key_hash = CASE WHEN $2 = 'organizer' THEN decode($3, 'hex') "
    "ELSE organizer_key_hash END, "
    "allies_key_hash = CASE WHEN $2 = 'allies' THEN decode($3, 'hex') ELSE allies_key_hash END, "
    "axis_key_hash = CASE WHEN $2 = 'axis' THEN decode($3, 'hex') ELSE axis_key_hash END "
    "WHERE id = $1::uuid RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'key_set') FROM u",
    3, 0};

bool db_key_set(struct db *db, const char *campaign, const char *role, const char *hash_hex)
{
    const char *p[] = {campaign, role, hash_hex};
    return db_defer(db, &st_key_set, p);
}
