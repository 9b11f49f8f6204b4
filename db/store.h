/*
 * Every statement m44d runs against its schema, one function each. Parameters are text
 * (libpq's text format), NULL for SQL NULL. Loads return a PGresult the caller clears (NULL on
 * failure); writes return the rows affected, or -1, except the writes that return bool: those
 * are held back (db_defer) and go to the server with the transaction's next round trip, often
 * with COMMIT; false means they could not be queued, and a failure on the server fails the
 * transaction. Each writes exactly one row or fails. Times come back as ISO 8601 UTC text.
 */
#ifndef M44_DB_STORE_H
#define M44_DB_STORE_H

#include "db/db.h"

/* A timestamp column as the API shows it: UTC, milliseconds, "2026-05-01T18:30:00.000Z". */
#define DB_TS(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
/* Whether event_log line `line` (an SQL alias) is undone (migration 0014); and the lines that
 * are not actions on the game (an undo, a key re-issued, the chat's link). */
#define DB_LOG_UNDONE(line) line ".undone"
/* The one list of them, for SQL (DB_LOG_NOT_GAME) and for C (campaign_note_last):
 * DB_LOG_NOT_GAME_LIST(item, sep) gives item("undo") sep item("key_reissued") sep .... */
#define DB_LOG_NOT_GAME_LIST(item, sep) item("undo") sep item("key_reissued") sep item("chat_set")
#define DB_SQL_TEXT(s)                  "'" s "'"
#define DB_LOG_NOT_GAME                 "(" DB_LOG_NOT_GAME_LIST(DB_SQL_TEXT, ", ") ")"

/* campaigns (db/campaigns.c) */
long db_campaign_insert(struct db *db, const char *const p[15]);
/* id, name, ruleset, what_if, dice, status, version, next_roll, seed_epoch, player_allies,
 * player_axis, tokens_allies, tokens_axis, organizer_hash(hex), allies_hash, axis_hash,
 * scenarios, winner, created_at, finished_at, then JSON arrays: battles [[number, scenario,
 * first_player, cards_allies, cards_axis, medals_to_win, commissar, phase, winner,
 * medals_allies, medals_axis, undeployed_allies, undeployed_axis, objective_allies,
 * objective_axis, created_at, finished_at]], seeds [[epoch, seed_hex, commitment,
 * revealed_at, origin]], effects [[event_id, rolled_by, data]], What-if rolls [[side, faces,
 * event]] */
PGresult *db_campaign_get(struct db *db, const char *id, bool lock);
/* Held back for the transaction's next round trip: takes the campaign's row lock and fails the
 * transaction with 40M44 unless the campaign and its grand campaign (NULL: none) are at these
 * versions. */
bool db_campaign_at(struct db *db, const char *id, const char *version, const char *grand_version);
/* id, next_roll, seed_epoch, tokens_allies, tokens_axis, status, winner, expected version */
bool db_campaign_save(struct db *db, const char *const p[8]);
/* The same as the first statement of a write that started from the campaign held in memory, in
 * place of its version check (db_campaign_at) if that has not been sent yet: false then. */
bool db_campaign_save_first(struct db *db, const char *const p[8]);
/* Whether the version check (db_campaign_at) is still held back: false once a read has sent it
 * (and, as the transaction goes on, it passed: the campaign is locked at the versions held). */
bool db_campaign_at_unsent(const struct db *db);
/* Held back as by db_defer, but sent right after the version check of a write that started from
 * the campaign held in memory (db_campaign_at, or the version bump in its place), ahead of the
 * writes that follow it; once the check has gone, ahead of every write still held back. */
bool db_campaign_defer_after_check(struct db *db, struct db_statement *st,
                                   const char *const *params);
PGresult *db_campaign_version(struct db *db, const char *id);
/* The campaign's version and its grand campaign's (NULL when it has none): no row when there is
 * no such campaign. */
PGresult *db_campaign_versions_of(struct db *db, const char *id);
/* id, version of each campaign or grand campaign in `ids`, a PostgreSQL array literal of UUIDs
 * ("{a,b}") */
PGresult *db_campaign_versions(struct db *db, const char *ids);
PGresult *db_campaign_list(struct db *db, const char *before_seq, const char *limit);
long db_campaign_exists(struct db *db, const char *id);

/* seeds (db/campaigns.c): epoch, seed(hex or NULL), commitment, revealed_at, origin ("server"
 * or "import") */
long db_seed_insert(struct db *db, const char *campaign, const char *epoch, const char *seed_hex,
                    const char *commitment, bool revealed, const char *origin);
/* An import: the rows the action just replayed wrote (those at the transaction's time) take
 * the time the document gives that action; a seed imported revealed takes its time. */
bool db_campaign_restamp(struct db *db, const char *campaign, const char *at);
bool db_seed_revealed_at(struct db *db, const char *campaign, const char *epoch, const char *at);
/* Reveals every seed of the campaign whose value is held (not those only imported as a
 * commitment). */
long db_seeds_reveal(struct db *db, const char *campaign);
/* Takes a lock on a campaign id until the transaction ends, whether or not the campaign exists
 * (imports of one id wait for each other). */
long db_campaign_id_lock(struct db *db, const char *id);

/* battles (db/battles.c): campaign, number, scenario, first_player, cards_allies, cards_axis,
 * medals_to_win, commissar, phase, maps (text[] literal or NULL), features (text[] literal) */
bool db_battle_insert(struct db *db, const char *const p[13]);
/* number, scenario, first_player, cards_allies, cards_axis, medals_to_win, commissar, phase,
 * winner, medals_allies, medals_axis, undeployed_allies, undeployed_axis, objective_allies,
 * objective_axis, created_at, finished_at */
/* ... and to update: campaign, number, phase, winner, the six result numbers, sudden_death */
bool db_battle_update(struct db *db, const char *const p[13]);

/* holdings (db/battles.c): granted tokens and stars a side holds. Insert: campaign, id, side,
 * grant, battle. */
bool db_held_insert(struct db *db, const char *const p[5]);
bool db_held_set(struct db *db, const char *campaign, const char *id, const char *state);
bool db_held_remove_all(struct db *db, const char *campaign);

/* rolls (db/rolls.c): n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail,
 * at. Inserting a roll also writes its event-log line (actor, action, detail: p[10..12]). */
bool db_roll_insert(struct db *db, const char *const p[13]);
/* The same, from a campaign held in memory: a roll that clashes with one of the same side,
 * purpose and battle fails the transaction as one that moved on (DB_SQLSTATE_MOVED_ON). */
bool db_roll_insert_held(struct db *db, const char *const p[13]);
/* The same with the time it was rolled (an import), for the roll and its line. */
bool db_roll_insert_at(struct db *db, const char *const p[13], const char *at);
PGresult *db_rolls(struct db *db, const char *campaign);
/* A battle's rolls as above, with NULL cost and tokens_after, then its reserve choices: NULL n,
 * side, purpose 'choice', battle, four NULLs, chosen (as detail), at, cost, tokens_after. */
PGresult *db_battle_detail(struct db *db, const char *campaign, const char *battle);
/* Sends db_battle_detail with the transaction's next round trip (see db_prefetch). */
void db_battle_detail_prefetch(struct db *db, const char *campaign, const char *battle);

/* reserve choices (db/battles.c); read back with db_battle_detail */
bool db_choice_insert(struct db *db, const char *const p[6]);

/* effects (db/journal.c) */
long db_effect_upsert(struct db *db, const char *campaign, const char *event_id,
                      const char *rolled_by, const char *data);
/* The battle a side picked for an event (its effect row must exist). */
bool db_effect_pick(struct db *db, const char *campaign, const char *event_id, const char *battle);

/* token ledger (db/journal.c): seq, side, delta, balance, reason, battle, at */
bool db_ledger_insert(struct db *db, const char *const p[6]);
PGresult *db_ledger(struct db *db, const char *campaign);

/* event log (db/journal.c): seq, at, actor, action, detail */
bool db_log_insert(struct db *db, const char *campaign, const char *actor, const char *action,
                   const char *detail);
/* Log line `seq` of `campaign` marked undone (db/corrections.c; one row, or the transaction
 * fails). */
bool db_log_undone(struct db *db, const char *campaign, const char *seq);
PGresult *db_log(struct db *db, const char *campaign);

/* grand campaigns (db/grand.c). The row: id, name, grand_ruleset, what_if, dice, player_allies,
 * player_axis, key hashes (allies, axis, organizer; hex), their predecessors, version,
 * created_at, webhook url, its kind, campaigns [[id, place, version]]. */
long db_grand_insert(struct db *db, const char *const p[11]); /* [10]: created_at, NULL: now */
PGresult *db_grand_get(struct db *db, const char *id, bool lock);
bool db_grand_bump(struct db *db, const char *id, const char *version);
/* Before a write through campaign `campaign_id` that writes to every campaign of its grand
 * campaign: all of them locked, in the order a grand campaign's writes lock them (nothing when
 * the campaign is part of none). Locking the campaign first, then the others, two such writes
 * through two campaigns would each hold what the other waits for. */
bool db_grand_lock_members_of(struct db *db, const char *campaign_id);
/* Every campaign of the grand campaign moves on a version, but `except_id` (NULL: none): each
 * one's log got a line (a new key, the chat set) that no write to it made. */
bool db_grand_members_touch(struct db *db, const char *grand_id, const char *except_id);
bool db_grand_key_set(struct db *db, const char *grand, const char *role, const char *hash_hex);
/* A key re-issued before the grand campaign's first campaign; moved into its log as it begins. */
bool db_grand_key_kept(struct db *db, const char *grand, const char *role);
bool db_grand_keys_to_log(struct db *db, const char *grand, const char *campaign);
PGresult *db_grand_version(struct db *db, const char *id);

/* the chat (db/outbox.c). A chat is set with its URL and kind (NULL, NULL: removed). */
bool db_chat_set(struct db *db, bool grand, const char *id, const char *url, const char *kind);
bool db_outbox_reroute(struct db *db, const char *scope, const char *url, const char *kind,
                       const char *why_dropped);
/* scope, campaign (or NULL), url, kind, message (JSON; "at" is added) */
bool db_outbox_insert(struct db *db, const char *const p[5]);
/* id, url, kind, message, attempts */
PGresult *db_outbox_claim(struct db *db, const char *limit, const char *lease_seconds);
/* [url, kind] while the message is still pending under the attempt leased; no row otherwise */
PGresult *db_outbox_still(struct db *db, const char *id, const char *attempt);
bool db_outbox_delivered(struct db *db, const char *id, const char *attempt);
/* wait_seconds NULL: give up (failed) */
bool db_outbox_retry(struct db *db, const char *id, const char *attempt, const char *wait_seconds,
                     const char *error);
/* A campaign's chat: [url, kind, own] (its own, or its grand campaign's; NULLs: none) */
PGresult *db_chat_of(struct db *db, const char *campaign_id);
/* pending, delivered, failed, last delivered at, last error, next attempt at */
PGresult *db_outbox_status(struct db *db, const char *scope);

/* corrections (db/corrections.c): undo and key re-issue. */
bool db_action_stamp(struct db *db, const char *campaign);
bool db_action_unwrite(struct db *db, const char *campaign, const char *seq);
PGresult *db_ledger_balances(struct db *db, const char *campaign); /* side, balance */
/* The log line of roll `n` ($2 "roll") or of `side`'s reserve choice in battle `n` ($2
 * "reserve_choice": the one not undone, if any), then every action on the game logged after it:
 * rows of seq, actor, action, detail (JSON text), undone ("t"/"f"). No row: no such line. */
PGresult *db_log_from(struct db *db, const char *campaign, const char *action, const char *n,
                      const char *side);
bool db_roll_void(struct db *db, const char *campaign, const char *n);
bool db_choice_delete(struct db *db, const char *campaign, const char *battle, const char *side);
bool db_battle_delete(struct db *db, const char *campaign, const char *battle);
bool db_effect_unroll(struct db *db, const char *campaign, const char *event_id);
bool db_effect_unpick(struct db *db, const char *campaign, const char *event_id);
bool db_key_set(struct db *db, const char *campaign, const char *role, const char *hash_hex);

/* idempotency (db/idempotency.c): rows are found by a key hash (hex); a row older than `ttl`
 * seconds is not found. Columns: request_hash (hex), status, body (hex), etag, location. */
PGresult *db_idem_get(struct db *db, const char *key_hash, const char *ttl);
/* key_hash, request_hash, status, body (all hex but status), etag, location */
bool db_idem_insert(struct db *db, const char *const p[6]);
/* The same, for a key not looked up first (a write in one round trip from the campaign held in
 * memory, api/write.c): stored only if no row younger than `ttl` seconds has that key hash, else
 * the transaction fails as one that answered (DB_SQLSTATE_KEY_ANSWERED), to run again with the
 * key looked up. It goes right after the campaign's version check, ahead of the writes it answers
 * for: a request sent again fails on its stored answer, not on what it would clash with (a
 * side's reserve roll of the battle, which the campaign held does not show). */
bool db_idem_insert_new(struct db *db, const char *const p[6], const char *ttl);
long db_idem_lock(struct db *db, const char *key_hash);
/* Deletes the rows older than `ttl` seconds; returns how many, or -1. */
long db_idem_sweep(struct db *db, const char *ttl);

#endif
