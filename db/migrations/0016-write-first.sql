-- A write that starts from a campaign this daemon holds in memory, and needs nothing it does
-- not hold, goes to the database in one round trip whose first statement is the campaign's
-- version bump itself, made only if the campaign is still at the version held (it takes the
-- row lock, as m44_campaign_at does). The rows it adds then go in only if nothing clashes with
-- them (a side's second reserve roll of a battle: the campaign held does not say whether the
-- side rolled, the unique index does). m44_still fails the transaction with the code of a state
-- that moved on (40M44) when either did not hold: the daemon runs the write again at once from
-- a fresh load, which reads everything and refuses what must be refused.
CREATE FUNCTION m44_still(ok boolean, what text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT ok THEN
        RAISE EXCEPTION '%', what USING ERRCODE = '40M44';
    END IF;
END
$$;
