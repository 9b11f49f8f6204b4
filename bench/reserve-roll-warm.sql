-- m44d's reserve-roll transaction on a campaign it holds in memory (campaign/state_cache.h), as
-- pgbench runs it: the same two pipelines as bench/reserve-roll.sql, with the version check
-- (m44_campaign_at, which takes the row lock) in place of the lock and load. pgbench does not
-- hold the version, so it reads it in the check's argument (one primary-key lookup more than
-- m44d). The db test suite checks these statements against m44d's as well.
-- Each client rolls on campaigns of its own (10001 + its number + 16 k, up to 60000), as m44d's
-- rows send each campaign to one connection: two clients never wait on one campaign's lock (nor,
-- on a campaign held, does the second find the version the first moved on, which aborts it).
-- For at most 16 clients (bench/run.sh runs 16).
\set i 10001 + :client_id + 16 * random(0, 3124)
\set bat random(1000, 1000000000)
\startpipeline
BEGIN;
SELECT m44_campaign_at(md5('c' || :i::text)::uuid, (SELECT version FROM campaigns WHERE id = md5('c' || :i::text)::uuid)::bigint, NULL::bigint);
SELECT n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), NULL::int, NULL::int FROM rolls WHERE campaign_id = md5('c' || :i::text)::uuid AND battle = :bat::int AND NOT voided UNION ALL SELECT NULL, side, 'choice', battle, NULL, NULL, NULL, NULL, chosen, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24"h"MI"m"SS.MS"Z"'), cost, tokens_after FROM reserve_choices WHERE campaign_id = md5('c' || :i::text)::uuid AND battle = :bat::int ORDER BY 1 NULLS LAST;
\endpipeline
\startpipeline
WITH r AS (INSERT INTO rolls (campaign_id, n, side, purpose, battle, source, client_seed, seed_epoch, faces, detail) VALUES (md5('c' || :i::text)::uuid, :bat::int, 'allies', 'reserve', :bat::int, 'server', 'x', 1::int, '{infantry,grenade}'::text[], '[{"id":"infantry@0","dice":[0],"cost":1,"grants":["infantry"],"text":"Infantry: exchange a Reserve Token for an infantry unit"},{"id":"grenade@1","dice":[1],"cost":1,"grants":["infantry","armor","artillery"],"text":"Any: exchange a Reserve Token for a unit of any kind"}]'::jsonb) RETURNING campaign_id) INSERT INTO event_log (campaign_id, actor, action, detail) SELECT campaign_id, 'allies', 'roll', '{"n":1,"side":"allies","purpose":"reserve","battle":1,"source":"server","client_seed":"","seed_epoch":1,"faces":["infantry","grenade"]}'::jsonb FROM r;
WITH u AS (UPDATE campaigns SET version = version + 1, next_roll = 2::int, seed_epoch = 1::int, tokens_allies = 3::int, tokens_axis = 3::int, status = 'active'::text, winner = NULL, finished_at = CASE WHEN 'active'::text = 'finished' THEN coalesce(finished_at, now()) END WHERE id = md5('c' || :i::text)::uuid AND version = version::bigint RETURNING grand_campaign_id), g AS (UPDATE grand_campaigns SET version = version + 1 WHERE id = (SELECT grand_campaign_id FROM u) RETURNING 1) SELECT m44_expect_rows(count(*), 1, 'campaign_save') FROM u;
COMMIT;
\endpipeline
