-- A write sent ahead of its result (held back and pipelined with COMMIT) cannot have its row
-- count checked by the client before the COMMIT runs, so it checks it itself: a statement
-- ends with SELECT m44_expect_rows(count(*), 1, 'what') over its RETURNING rows, and fails the
-- transaction when the count is wrong.
CREATE FUNCTION m44_expect_rows(got bigint, want bigint, what text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF got IS DISTINCT FROM want THEN
        RAISE EXCEPTION '% changed % rows, not %', what, got, want USING ERRCODE = 'P0004';
    END IF;
END
$$;
