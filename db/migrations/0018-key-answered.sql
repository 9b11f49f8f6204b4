-- A write that started from a campaign held in memory takes its Idempotency-Key as new and
-- stores its answer only if none is stored for the key (db/idempotency.c). When one is, the
-- transaction fails with a code of its own, in the class of transaction rollbacks (40M45): the
-- daemon runs the write again at once, the key looked up first, and the answer stored is given
-- again (or the key refused as used for another request). Unlike 40M44, the campaign held was
-- current (its version bump went before): it stays held, and the rerun is counted apart.
CREATE FUNCTION m44_key_new(ok boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT ok THEN
        RAISE EXCEPTION 'an answer is stored for this Idempotency-Key' USING ERRCODE = '40M45';
    END IF;
END
$$;
