-- The campaigns of a grand campaign are locked in the order of their ids, before the grand
-- campaign's row (db/grand.c), so that writes through several of them never wait for each other
-- in a circle. A lock statement that waited reads the campaigns as they were when it began: a
-- campaign another write added meanwhile (POST .../next) would be missed, and locked only later,
-- out of that order. So the set is counted again once locked; if it grew, the transaction starts
-- again at once, with the code of a state that moved on (40M44, as m44_campaign_at).
-- `with_row`: the grand campaign's row is locked too, after its campaigns. A NULL grand
-- campaign (a campaign that is part of none) locks nothing.
CREATE FUNCTION m44_lock_members(grand uuid, with_row boolean) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    held bigint;
    now_there bigint;
BEGIN
    IF grand IS NULL THEN
        RETURN 0;
    END IF;
    SELECT count(*) INTO held FROM (SELECT 1 FROM campaigns WHERE grand_campaign_id = grand
                                    ORDER BY id FOR UPDATE) m;
    IF with_row THEN
        PERFORM 1 FROM grand_campaigns WHERE id = grand FOR UPDATE;
    END IF;
    SELECT count(*) INTO now_there FROM campaigns WHERE grand_campaign_id = grand;
    IF now_there <> held THEN
        RAISE EXCEPTION 'grand campaign %: % campaigns locked, % there now', grand, held, now_there
            USING ERRCODE = '40M44';
    END IF;
    RETURN held;
END
$$;
