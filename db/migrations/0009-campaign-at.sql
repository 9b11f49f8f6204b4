-- A write that starts from a campaign this daemon holds in memory (campaign/state_cache.c) does
-- not read the campaign again: its first statement is m44_campaign_at, sent ahead of its
-- result with the rest of the write. It takes the row lock, as loading the campaign FOR UPDATE
-- does, and fails the transaction unless the campaign (and its grand campaign, whose name and
-- chat a campaign shows) are at the versions held. Every change to a campaign moves its
-- version, or (for what a grand campaign changes in its campaigns: their keys on a re-issue,
-- its name, its chat) its grand campaign's, so equal versions mean the state held is the state
-- stored. The failure has a code of its own in the class of transaction rollbacks (40M44): the
-- daemon runs the write again at once, from a fresh load, and does not count it as an error.
CREATE FUNCTION m44_campaign_at(campaign uuid, held bigint, grand_held bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v bigint;
    gv bigint;
BEGIN
    SELECT c.version INTO v FROM campaigns c WHERE c.id = campaign FOR UPDATE;
    SELECT g.version INTO gv FROM campaigns c JOIN grand_campaigns g ON g.id = c.grand_campaign_id
        WHERE c.id = campaign;
    IF v IS DISTINCT FROM held OR gv IS DISTINCT FROM grand_held THEN
        RAISE EXCEPTION 'campaign % is at version %/%, not %/%', campaign, v, gv, held, grand_held
            USING ERRCODE = '40M44';
    END IF;
END
$$;
