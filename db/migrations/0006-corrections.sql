-- Correcting mistakes at the table (API.md, second round): undo and key re-issue.

-- An undone table roll stays in the roll log, marked voided: its number is never used again,
-- and the side enters the roll again. Only that mark may ever change on a roll, only from false
-- to true, and only on a roll entered from the table: a server roll is never undone.
ALTER TABLE rolls ADD COLUMN voided boolean NOT NULL DEFAULT false;
ALTER TABLE rolls DROP CONSTRAINT rolls_campaign_id_purpose_battle_side_key;
CREATE UNIQUE INDEX rolls_one_per_purpose ON rolls (campaign_id, purpose, battle, side)
    WHERE NOT voided;
CREATE OR REPLACE FUNCTION rolls_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NOT OLD.voided AND NEW.voided AND OLD.source = 'table'
       AND ROW(NEW.campaign_id, NEW.n, NEW.side, NEW.purpose, NEW.battle, NEW.source,
               NEW.client_seed, NEW.seed_epoch, NEW.faces, NEW.detail, NEW.at)
           IS NOT DISTINCT FROM
           ROW(OLD.campaign_id, OLD.n, OLD.side, OLD.purpose, OLD.battle, OLD.source,
               OLD.client_seed, OLD.seed_epoch, OLD.faces, OLD.detail, OLD.at) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'rolls are append-only (a table roll may only be voided)';
END
$$;

-- The token changes and held tokens an action made carry its log entry, so that undoing the
-- action removes exactly them. Rows from before this migration carry 0, and their campaigns
-- can undo only what is done from now on (undo_from: the last log entry before).
ALTER TABLE token_ledger ADD COLUMN log_seq bigint;
ALTER TABLE holdings ADD COLUMN log_seq bigint;
UPDATE token_ledger SET log_seq = 0;
UPDATE holdings SET log_seq = 0;
CREATE INDEX token_ledger_unstamped ON token_ledger (campaign_id) WHERE log_seq IS NULL;
CREATE INDEX holdings_unstamped ON holdings (campaign_id) WHERE log_seq IS NULL;
ALTER TABLE campaigns ADD COLUMN undo_from bigint NOT NULL DEFAULT 0;
UPDATE campaigns c SET undo_from = coalesce(
    (SELECT max(e.seq) FROM event_log e WHERE e.campaign_id = c.id), 0);

-- A battle's set-up as the organizer gave it, before What-if events changed it (Soviet Invasion
-- at Szack): what the events change is worked out again when one of them is undone. Battles from
-- before keep the set-up they have (a NULL first player is the battle's own).
ALTER TABLE battles ADD COLUMN setup_first_player m44_side, ADD COLUMN setup_commissar m44_side;
UPDATE battles SET setup_first_player = first_player, setup_commissar = commissar;

-- A re-issued key's predecessor, per role: a request made with it is refused, but one that is
-- the same request again with the same Idempotency-Key (its answer was lost) gets the stored
-- answer, so a lost answer to the organizer's own re-issue does not lock the organizer out.
ALTER TABLE campaigns ADD COLUMN organizer_key_prev bytea, ADD COLUMN allies_key_prev bytea,
    ADD COLUMN axis_key_prev bytea;

-- Which log entries were undone: found by the undo entries that name them.
CREATE INDEX event_log_undid ON event_log (campaign_id, ((detail ->> 'undid')::bigint))
    WHERE action = 'undo';
