-- A key a grand campaign re-issues is logged in each of its campaigns (API.md: every key change
-- is in the log, with who and when). One re-issued before its first campaign began waits here,
-- as a list of {"role", "at"}, and goes into that campaign's log when it begins, at the time it
-- was made.
CREATE DOMAIN m44_key_log AS jsonb CONSTRAINT key_log_list CHECK (jsonb_typeof(VALUE) = 'array');
ALTER TABLE grand_campaigns ADD COLUMN keys_reissued m44_key_log NOT NULL DEFAULT '[]';
