-- One battle of m44d's battle cycle (bench/run.sh, "battle cycle") as pgbench runs it: the eight
-- actions' transactions on a campaign held in memory, each in the two pipelines m44d sends
-- (BEGIN, the version check and what the action must read | its writes, the campaign's version
-- bump, COMMIT), but the reserve rolls, which read nothing: one pipeline each (BEGIN, the
-- version bump made only at the version held, the roll, COMMIT). A roll made from the campaign
-- held that clashes with one stored fails the transaction, which m44d runs again from a load
-- (db/db.c, clash_means_moved_on). The statements and their order are those PostgreSQL logged
-- (log_statement = all) while m44d played one such battle; the values are the ones it wrote,
-- with the campaign, battle and roll numbers in place. Keep it in step with db/: the db test suite checks every
-- statement here against the statements m44d prepares (tests/db/test_bench_sql.c).
-- Each client plays battle after battle on campaign client_id + 1 (run with -D b=1000: the
-- battle number goes on from there, each battle's rolls are numbered 4b to 4b + 3). pgbench
-- does not hold the version, so it reads it in the check's argument (one primary-key lookup
-- more than m44d). Timestamps are formatted without ':' (pgbench would read ":MI" as a
-- variable), which costs the same.
\set cid :client_id + 1
\set b :b + 1
-- 1. POST .../battles (the organizer sets the battle up)
\startpipeline
BEGIN;
SELECT m44_campaign_at(md5('c' || :cid::text)::uuid, (SELECT version FROM campaigns WHERE id = md5('c' || :cid::text)::uuid)::bigint, NULL::bigint);
SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"');
\endpipeline
\startpipeline
INSERT INTO battles (campaign_id, number, scenario, first_player, cards_allies, cards_axis, medals_to_win, commissar, phase, maps, features, setup_first_player, setup_commissar) VALUES (md5('c' || :cid::text)::uuid, :b::int, 'Battle ' || :b::int, 'allies', 5::int, 5::int, 6::int, NULL, 'victory_events', NULL::text[], '{}'::text[], 'allies', NULL);
INSERT INTO event_log (campaign_id, actor, action, detail) VALUES (md5('c' || :cid::text)::uuid, 'organizer', 'battle_created', format('{"cards": {"axis": 5, "allies": 5}, "number": %s, "scenario": "Battle %s", "commissar": null, "first_player": "allies", "medals_to_win": 6}', :b::int, :b::int)::jsonb);
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 0)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint RETURNING grand_campaign_id), g AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u;
COMMIT;
\endpipeline
-- 2. POST .../victory-events (the Allies)
\startpipeline
BEGIN;
SELECT m44_campaign_at(md5('c' || :cid::text)::uuid, (SELECT version FROM campaigns WHERE id = md5('c' || :cid::text)::uuid)::bigint, NULL::bigint);
SELECT n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), NULL::int, NULL::int FROM rolls WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int AND NOT voided UNION ALL SELECT NULL, side, 'choice', battle, NULL, NULL, NULL, NULL, chosen, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), cost, tokens_after FROM reserve_choices WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int ORDER BY 1 NULLS LAST;
\endpipeline
\startpipeline
WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail) VALUES (md5('c' || :cid::text)::uuid, (:b * 4 + 0)::int, 'allies', 'victory_events', :b::int, 'server', '', 1::int, '{grenade,armor,star,flag,star,infantry,flag}'::text[], NULL::jsonb) RETURNING campaign_id) INSERT INTO event_log (campaign_id, actor, action, detail) SELECT campaign_id, 'allies', 'roll', format('{"n": %s, "side": "allies", "faces": ["grenade", "armor", "star", "flag", "star", "infantry", "flag"], "battle": %s, "source": "server", "purpose": "victory_events", "seed_epoch": 1, "client_seed": ""}', (:b * 4 + 0), :b::int)::jsonb FROM r;
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 1)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint RETURNING grand_campaign_id), g AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u;
COMMIT;
\endpipeline
-- 3. POST .../victory-events (the Axis; the battle goes on to the Reserve Rolls)
\startpipeline
BEGIN;
SELECT m44_campaign_at(md5('c' || :cid::text)::uuid, (SELECT version FROM campaigns WHERE id = md5('c' || :cid::text)::uuid)::bigint, NULL::bigint);
SELECT n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), NULL::int, NULL::int FROM rolls WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int AND NOT voided UNION ALL SELECT NULL, side, 'choice', battle, NULL, NULL, NULL, NULL, chosen, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), cost, tokens_after FROM reserve_choices WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int ORDER BY 1 NULLS LAST;
\endpipeline
\startpipeline
WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail) VALUES (md5('c' || :cid::text)::uuid, (:b * 4 + 1)::int, 'axis', 'victory_events', :b::int, 'server', '', 1::int, '{grenade,infantry}'::text[], NULL::jsonb) RETURNING campaign_id) INSERT INTO event_log (campaign_id, actor, action, detail) SELECT campaign_id, 'axis', 'roll', format('{"n": %s, "side": "axis", "faces": ["grenade", "infantry"], "battle": %s, "source": "server", "purpose": "victory_events", "seed_epoch": 1, "client_seed": ""}', (:b * 4 + 1), :b::int)::jsonb FROM r;
WITH u AS (UPDATE battles SET phase = 'reserves'::text, winner = NULL, medals_allies = NULL::int, medals_axis = NULL::int, undeployed_allies = NULL::int, undeployed_axis = NULL::int, objective_allies = NULL::int, objective_axis = NULL::int, sudden_death = 'f'::boolean, first_player = 'allies', commissar = NULL, finished_at = CASE WHEN 'reserves'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE campaign_id = md5('c' || :cid::text)::uuid AND number = :b::int RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'battle_update') FROM u;
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 2)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint RETURNING grand_campaign_id), g AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u;
COMMIT;
\endpipeline
-- 4. POST .../reserve-roll (the Allies)
\startpipeline
BEGIN;
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 3)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint AND grand_campaign_id IS NULL RETURNING 1) SELECT m44_still(count(*) = 1, 'campaign ' || md5('c' || :cid::text) || ' is no longer at version ' || 'held') FROM u;
WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail) VALUES (md5('c' || :cid::text)::uuid, (:b * 4 + 2)::int, 'allies', 'reserve', :b::int, 'server', '', 1::int, '{flag,flag}'::text[], '{"options": [{"id": "flag@0", "cost": 0, "dice": [0], "text": "Flag: a sandbag for one of your units, at no Reserve Token cost", "costs": [0], "grants": ["sandbag"]}, {"id": "flag@1", "cost": 0, "dice": [1], "text": "Flag: a sandbag for one of your units, at no Reserve Token cost", "costs": [0], "grants": ["sandbag"]}]}'::jsonb) RETURNING campaign_id) INSERT INTO event_log (campaign_id, actor, action, detail) SELECT campaign_id, 'allies', 'roll', format('{"n": %s, "side": "allies", "faces": ["flag", "flag"], "battle": %s, "source": "server", "purpose": "reserve", "seed_epoch": 1, "client_seed": ""}', (:b * 4 + 2), :b::int)::jsonb FROM r;
COMMIT;
\endpipeline
-- 5. POST .../reserve-roll (the Axis)
\startpipeline
BEGIN;
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 4)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint AND grand_campaign_id IS NULL RETURNING 1) SELECT m44_still(count(*) = 1, 'campaign ' || md5('c' || :cid::text) || ' is no longer at version ' || 'held') FROM u;
WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail) VALUES (md5('c' || :cid::text)::uuid, (:b * 4 + 3)::int, 'axis', 'reserve', :b::int, 'server', '', 1::int, '{infantry,flag}'::text[], '{"options": [{"id": "infantry@0", "cost": 1, "dice": [0], "text": "Infantry: exchange a Reserve Token for an infantry unit", "costs": [1], "grants": ["infantry"]}, {"id": "flag@1", "cost": 0, "dice": [1], "text": "Flag: a sandbag for one of your units, at no Reserve Token cost", "costs": [0], "grants": ["sandbag"]}]}'::jsonb) RETURNING campaign_id) INSERT INTO event_log (campaign_id, actor, action, detail) SELECT campaign_id, 'axis', 'roll', format('{"n": %s, "side": "axis", "faces": ["infantry", "flag"], "battle": %s, "source": "server", "purpose": "reserve", "seed_epoch": 1, "client_seed": ""}', (:b * 4 + 3), :b::int)::jsonb FROM r;
COMMIT;
\endpipeline
-- 6. POST .../reserve-choice (the Allies)
\startpipeline
BEGIN;
SELECT m44_campaign_at(md5('c' || :cid::text)::uuid, (SELECT version FROM campaigns WHERE id = md5('c' || :cid::text)::uuid)::bigint, NULL::bigint);
SELECT n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), NULL::int, NULL::int FROM rolls WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int AND NOT voided UNION ALL SELECT NULL, side, 'choice', battle, NULL, NULL, NULL, NULL, chosen, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), cost, tokens_after FROM reserve_choices WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int ORDER BY 1 NULLS LAST;
\endpipeline
\startpipeline
INSERT INTO reserve_choices (campaign_id, battle, side, chosen, cost, tokens_after) VALUES (md5('c' || :cid::text)::uuid, :b::int, 'allies', '[]'::jsonb, 0::int, 3::int);
INSERT INTO event_log (campaign_id, actor, action, detail) VALUES (md5('c' || :cid::text)::uuid, 'allies', 'reserve_choice', format('{"cost": 0, "side": "allies", "battle": %s, "tokens": 3, "options": []}', :b::int)::jsonb);
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 4)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint RETURNING grand_campaign_id), g AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u;
COMMIT;
\endpipeline
-- 7. POST .../reserve-choice (the Axis; the battle is ready to play)
\startpipeline
BEGIN;
SELECT m44_campaign_at(md5('c' || :cid::text)::uuid, (SELECT version FROM campaigns WHERE id = md5('c' || :cid::text)::uuid)::bigint, NULL::bigint);
SELECT n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), NULL::int, NULL::int FROM rolls WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int AND NOT voided UNION ALL SELECT NULL, side, 'choice', battle, NULL, NULL, NULL, NULL, chosen, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), cost, tokens_after FROM reserve_choices WHERE campaign_id = md5('c' || :cid::text)::uuid AND battle = :b::int ORDER BY 1 NULLS LAST;
\endpipeline
\startpipeline
INSERT INTO reserve_choices (campaign_id, battle, side, chosen, cost, tokens_after) VALUES (md5('c' || :cid::text)::uuid, :b::int, 'axis', '[]'::jsonb, 0::int, 3::int);
INSERT INTO event_log (campaign_id, actor, action, detail) VALUES (md5('c' || :cid::text)::uuid, 'axis', 'reserve_choice', format('{"cost": 0, "side": "axis", "battle": %s, "tokens": 3, "options": []}', :b::int)::jsonb);
WITH u AS (UPDATE battles SET phase = 'ready'::text, winner = NULL, medals_allies = NULL::int, medals_axis = NULL::int, undeployed_allies = NULL::int, undeployed_axis = NULL::int, objective_allies = NULL::int, objective_axis = NULL::int, sudden_death = 'f'::boolean, first_player = 'allies', commissar = NULL, finished_at = CASE WHEN 'ready'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE campaign_id = md5('c' || :cid::text)::uuid AND number = :b::int RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'battle_update') FROM u;
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 4)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint RETURNING grand_campaign_id), g AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u;
COMMIT;
\endpipeline
-- 8. POST .../result (the organizer records who won)
\startpipeline
BEGIN;
SELECT m44_campaign_at(md5('c' || :cid::text)::uuid, (SELECT version FROM campaigns WHERE id = md5('c' || :cid::text)::uuid)::bigint, NULL::bigint);
SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"');
\endpipeline
\startpipeline
WITH u AS (UPDATE battles SET phase = 'finished'::text, winner = 'allies', medals_allies = 6::int, medals_axis = 3::int, undeployed_allies = 0::int, undeployed_axis = 0::int, objective_allies = 0::int, objective_axis = 0::int, sudden_death = 'f'::boolean, first_player = 'allies', commissar = NULL, finished_at = CASE WHEN 'finished'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE campaign_id = md5('c' || :cid::text)::uuid AND number = :b::int RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'battle_update') FROM u;
INSERT INTO event_log (campaign_id, actor, action, detail) VALUES (md5('c' || :cid::text)::uuid, 'organizer', 'result', format('{"battle": %s, "medals": {"axis": 3, "allies": 6}, "winner": "allies", "sudden_death": false, "objective_medals": {"axis": 0, "allies": 0}, "undeployed_reserves": {"axis": 0, "allies": 0}}', :b::int)::jsonb);
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = (:b * 4 + 4)::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :cid::text)::uuid AND version = version::bigint RETURNING grand_campaign_id), g AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u;
COMMIT;
\endpipeline
