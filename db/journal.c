/* Statements on the event log, the token ledger, and effects. */
#include "db/store.h"

static struct db_statement st_effect_upsert = {
    "effect_upsert",
    "INSERT INTO effects (campaign_id, event_id, rolled_by, data) VALUES ($1::uuid, $2, "
    "$3::text[], $4::jsonb) ON CONFLICT (campaign_id, event_id) DO UPDATE SET rolled_by = "
    "EXCLUDED.rolled_by",
    4, 0};
long db_effect_upsert(struct db *db, const char *campaign, const char *event_id,
                      const char *rolled_by, const char *data)
{
    const char *p[] = {campaign, event_id, rolled_by, data};
    return db_command(db, &st_effect_upsert, p);
}

static struct db_statement st_ledger_insert = {
    "ledger_insert",
    "INSERT INTO token_ledger (campaign_id, side, delta, balance, reason, battle) VALUES "
    "($1::uuid, $2, $3::int, $4::int, $5, $6::int)",
    6, 0};
static struct db_statement st_ledger = {
    "ledger",
    "SELECT seq, side, delta, balance, reason, battle, " DB_TS(
        "at") " FROM token_ledger WHERE campaign_id = $1::uuid ORDER BY seq",
    1, 0};

bool db_ledger_insert(struct db *db, const char *const p[6])
{
    return db_defer(db, &st_ledger_insert, p);
}

PGresult *db_ledger(struct db *db, const char *campaign)
{
    const char *p[] = {campaign};
    return db_exec(db, &st_ledger, p);
}

static struct db_statement st_log_insert = {
    "log_insert",
    "INSERT INTO event_log (campaign_id, actor, action, detail) VALUES ($1::uuid, $2, $3, "
    "$4::jsonb)",
    4, 0};
static struct db_statement st_log = {
    "log",
    "SELECT seq, " DB_TS(
        "at") ", actor, action, detail FROM event_log WHERE campaign_id = $1::uuid "
              "ORDER BY seq",
    1, 0};

bool db_log_insert(struct db *db, const char *campaign, const char *actor, const char *action,
                   const char *detail)
{
    const char *p[] = {campaign, actor, action, detail};
    return db_defer(db, &st_log_insert, p);
}

PGresult *db_log(struct db *db, const char *campaign)
{
    const char *p[] = {campaign};
    return db_exec(db, &st_log, p);
}

static struct db_statement st_effect_pick = {
    "effect_pick",
    "WITH u AS (UPDATE effects SET picked_battle = $3::int WHERE campaign_id = $1::uuid AND "
    "event_id = $2 RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'effect_pick') FROM u",
    3, 0};

bool db_effect_pick(struct db *db, const char *campaign, const char *event_id, const char *battle)
{
    const char *p[] = {campaign, event_id, battle};
    return db_defer(db, &st_effect_pick, p);
}
