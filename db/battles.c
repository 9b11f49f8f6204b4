/* Statements on battles and reserve choices. */
#include "db/store.h"

static struct db_statement st_insert = {
    "battle_insert",
    "INSERT INTO battles (campaign_id, number, scenario, first_player, cards_allies, "
    "cards_axis, medals_to_win, commissar, phase, maps, features, setup_first_player, "
    "setup_commissar) VALUES ($1::uuid, $2::int, $3, $4, $5::int, $6::int, $7::int, $8, $9, "
    "$10::text[], $11::text[], $12, $13)",
    13, 0};
/* $3, the phase, is typed where it is used (see campaign_save in campaigns.c). */
static struct db_statement st_update = {
    "battle_update",
    "WITH u AS (UPDATE battles SET phase = $3::text, winner = $4, medals_allies = $5::int, "
    "medals_axis = $6::int, undeployed_allies = $7::int, undeployed_axis = $8::int, "
    "objective_allies = $9::int, objective_axis = $10::int, sudden_death = $11::boolean, "
    "first_player = $12, commissar = $13, "
    "finished_at = CASE WHEN $3::text = 'finished' THEN coalesce(finished_at, now()) END "
    "WHERE campaign_id = $1::uuid AND number = $2::int RETURNING 1) "
    "SELECT m44_expect_rows(count(*), 1, 'battle_update') FROM u",
    13, 0};

bool db_battle_insert(struct db *db, const char *const p[13])
{
    return db_defer(db, &st_insert, p);
}

bool db_battle_update(struct db *db, const char *const p[13])
{
    return db_defer(db, &st_update, p);
}

static struct db_statement st_choice_insert = {
    "choice_insert",
    "INSERT INTO reserve_choices (campaign_id, battle, side, chosen, cost, tokens_after) "
    "VALUES ($1::uuid, $2::int, $3, $4::jsonb, $5::int, $6::int)",
    6, 0};

bool db_choice_insert(struct db *db, const char *const p[6])
{
    return db_defer(db, &st_choice_insert, p);
}

static struct db_statement st_held_insert = {
    "held_insert",
    "INSERT INTO holdings (campaign_id, id, side, grant_id, battle) VALUES ($1::uuid, $2::int, $3, "
    "$4, $5::int)",
    5, 0};
static struct db_statement st_held_set = {
    "held_set",
    "WITH u AS (UPDATE holdings SET state = $3, changed_at = now() WHERE campaign_id = $1::uuid "
    "AND id = $2::int RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'held_set') FROM u",
    3, 0};
static struct db_statement st_held_remove = {
    "held_remove",
    "UPDATE holdings SET state = 'removed', changed_at = now() WHERE campaign_id = $1::uuid AND "
    "state = 'held'",
    1, 0};

bool db_held_insert(struct db *db, const char *const p[5])
{
    return db_defer(db, &st_held_insert, p);
}

bool db_held_set(struct db *db, const char *campaign, const char *id, const char *state)
{
    const char *p[] = {campaign, id, state};
    return db_defer(db, &st_held_set, p);
}

bool db_held_remove_all(struct db *db, const char *campaign)
{
    const char *p[] = {campaign};
    return db_defer(db, &st_held_remove, p);
}
