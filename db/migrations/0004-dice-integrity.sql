-- Dice integrity and keys at rest (the second round's "Dice integrity").
--
-- Seeds say where they came from. A seed drawn by this server ('server') may be rolled with
-- while it is a secret; one that came in an imported document ('import') never is: its value,
-- if the document had it, is public. Seeds without a value were only ever imported.
CREATE DOMAIN m44_seed_origin AS text
    CONSTRAINT seed_origin_value CHECK (VALUE IN ('server', 'import'));
ALTER TABLE seeds ADD COLUMN origin m44_seed_origin NOT NULL DEFAULT 'server';
UPDATE seeds SET origin = 'import' WHERE seed IS NULL;
ALTER TABLE seeds ALTER COLUMN origin DROP DEFAULT;

-- Stored responses for Idempotency-Key, encrypted: a creation's response holds the campaign's
-- three keys, and nothing at rest may. The row is found by a hash of the request's scope and
-- its Idempotency-Key; the response is sealed (XSalsa20-Poly1305) under a key derived from the
-- same two, so only a client holding the Idempotency-Key can have it replayed. Rows expire
-- (--idempotency-ttl). The old rows held responses in clear: they go.
DROP TABLE idempotency;
CREATE TABLE idempotency (
    key_hash     bytea PRIMARY KEY,  -- BLAKE2b of ("id", scope, Idempotency-Key)
    request_hash bytea NOT NULL,     -- SHA-256 of method, path, role and body
    status       integer NOT NULL,
    body         bytea NOT NULL,     -- nonce || sealed response
    etag         text,
    location     text,
    at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX idempotency_at ON idempotency (at);
