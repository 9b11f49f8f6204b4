-- The secret that keys the tags of the standings' keys (key_tags): one per database, so every
-- m44d on it shows the same tags, and never served. Without it a tag would be a fingerprint of
-- the key anyone could compute, and a link partly seen (cut short, half hidden) could be
-- completed offline by trying the rest against it. gen_random_uuid() draws from PostgreSQL's
-- strong random source: two of them give 244 random bits.
-- (One row: its one check names both columns, as the checks of one column are domains'.)
CREATE TABLE m44_key_tag_secret (
    one    boolean PRIMARY KEY DEFAULT true,
    secret bytea NOT NULL,
    CONSTRAINT key_tag_secret_row CHECK (one AND octet_length(secret) = 32)
);
INSERT INTO m44_key_tag_secret (secret)
    VALUES (decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
