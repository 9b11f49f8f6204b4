-- m44d's reserve-roll transaction on a campaign it holds in memory (campaign/state_cache.h), as
-- pgbench runs it: one pipeline (BEGIN, the campaign's version bump made only at the version
-- held, which takes the row lock and is the write's version check, the roll with its event-log
-- line, COMMIT; a roll that clashes with one stored fails it, and m44d runs it again from a load). pgbench does not hold the version, so the bump compares
-- the column with itself (m44d sends the version it holds). The db test suite checks these
-- statements against m44d's as well.
-- Each client rolls on campaigns of its own (10001 + its number + 16 k, up to 60000), as m44d's
-- rows send each campaign to one connection: two clients never wait on one campaign's lock (nor,
-- on a campaign held, does the second find the version the first moved on, which aborts it).
-- For at most 16 clients (bench/run.sh runs 16).
\set i 10001 + :client_id + 16 * random(0, 3124)
\set bat random(1000, 1000000000)
\startpipeline
BEGIN;
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = 2::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :i::text)::uuid AND version = version::bigint AND grand_campaign_id IS NULL RETURNING 1) SELECT m44_still(count(*) = 1, 'campaign ' || md5('c' || :i::text) || ' is no longer at version ' || 'held') FROM u;
WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail) VALUES (md5('c' || :i::text)::uuid, :bat::int, 'allies', 'reserve', :bat::int, 'server', 'x', 1::int, '{infantry,grenade}'::text[], '[{"id":"infantry@0","dice":[0],"cost":1,"grants":["infantry"],"text":"Infantry: exchange a Reserve Token for an infantry unit"},{"id":"grenade@1","dice":[1],"cost":1,"grants":["infantry","armor","artillery"],"text":"Any: exchange a Reserve Token for a unit of any kind"}]'::jsonb) RETURNING campaign_id) INSERT INTO event_log (campaign_id, actor, action, detail) SELECT campaign_id, 'allies', 'roll', '{"n":1,"side":"allies","purpose":"reserve","battle":1,"source":"server","client_seed":"","seed_epoch":1,"faces":["infantry","grenade"]}'::jsonb FROM r;
COMMIT;
\endpipeline
