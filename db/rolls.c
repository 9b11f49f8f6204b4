/* Statements on rolls (append-only). */
#include "db/store.h"

#define ROLL_COLUMNS                                                                               \
    "n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail, " DB_TS("at")

static struct db_statement st_insert = {
    "roll_insert",
    "WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, "
    "seed_epoch, faces, detail) VALUES ($1::uuid, $2::int, $3, $4, $5::int, $6, $7, $8::int, "
    "$9::text[], $10::jsonb) RETURNING campaign_id) "
    "INSERT INTO event_log (campaign_id, actor, action, detail) SELECT campaign_id, $11, $12, "
    "$13::jsonb FROM r",
    13, 0};
/* Every roll, voided ones too (marked): numbers are never reused. */
static struct db_statement st_all = {
    "rolls", "SELECT " ROLL_COLUMNS ", voided FROM rolls WHERE campaign_id = $1::uuid ORDER BY n",
    1, 0};
/* A battle's rolls, then its reserve choices in the same columns (purpose 'choice', the
 * chosen options as detail) with cost and tokens_after added: one round trip. */
// clang-format off
static struct db_statement st_battle = {
    "battle_detail",
    "SELECT " ROLL_COLUMNS ", NULL::int, NULL::int FROM rolls "
    "WHERE campaign_id = $1::uuid AND battle = $2::int AND NOT voided UNION ALL "
    "SELECT NULL, side, 'choice', battle, NULL, NULL, NULL, NULL, chosen, " DB_TS("at") ", "
    "cost, tokens_after FROM reserve_choices WHERE campaign_id = $1::uuid AND battle = $2::int "
    "ORDER BY 1 NULLS LAST",
    2, 0};
// clang-format on

bool db_roll_insert(struct db *db, const char *const p[13])
{
    return db_defer(db, &st_insert, p);
}

/* The same in a write made from a campaign held in memory: that campaign does not say whether
 * the side rolled already, the unique index of one roll per side, purpose and battle (migration
 * 0006) does. A clash with it fails the transaction as one that moved on, and the write runs
 * again from a load, which reads the rolls and refuses the second. (Until the plain insert took
 * its place, it went in `ON CONFLICT DO NOTHING`, with m44_still counting the rows added, which
 * migration 0016 describes: a look for a clash before every insert, where a clash is rare.) */
bool db_roll_insert_held(struct db *db, const char *const p[13])
{
    return db_defer_clash_moved_on(db, &st_insert, p, "rolls_one_per_purpose");
}

/* The same, for an import: the roll and its line take the time it was rolled ($14). */
static struct db_statement st_insert_at = {
    "roll_insert_at",
    "WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, "
    "seed_epoch, faces, detail, at) VALUES ($1::uuid, $2::int, $3, $4, $5::int, $6, $7, $8::int, "
    "$9::text[], $10::jsonb, $14::timestamptz) RETURNING campaign_id) "
    "INSERT INTO event_log (campaign_id, actor, action, detail, at) SELECT campaign_id, $11, $12, "
    "$13::jsonb, $14::timestamptz FROM r",
    14, 0};

bool db_roll_insert_at(struct db *db, const char *const p[13], const char *at)
{
    const char *q[14];
    for (int i = 0; i < 13; i++)
        q[i] = p[i];
    q[13] = at;
    return db_defer(db, &st_insert_at, q);
}

PGresult *db_rolls(struct db *db, const char *campaign)
{
    const char *p[] = {campaign};
    return db_exec(db, &st_all, p);
}

PGresult *db_battle_detail(struct db *db, const char *campaign, const char *battle)
{
    const char *p[] = {campaign, battle};
    return db_exec(db, &st_battle, p);
}

void db_battle_detail_prefetch(struct db *db, const char *campaign, const char *battle)
{
    const char *p[] = {campaign, battle};
    db_prefetch(db, &st_battle, p);
}
