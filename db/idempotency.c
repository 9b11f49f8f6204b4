/* Statements on stored responses for Idempotency-Key (sealed; see migration 0004). */
#include "db/store.h"

/* Rows older than the time to live are as good as gone, swept or not. */
static struct db_statement st_get = {
    "idem_get",
    "SELECT encode(request_hash, 'hex'), status, encode(body, 'hex'), etag, location "
    "FROM idempotency WHERE key_hash = decode($1, 'hex') "
    "AND at > now() - $2::int * interval '1 second'",
    2, 0};
/* An expired row with the same hash gives way to the new one. */
static struct db_statement st_insert = {
    "idem_insert",
    "INSERT INTO idempotency (key_hash, request_hash, status, body, etag, location) VALUES "
    "(decode($1, 'hex'), decode($2, 'hex'), $3::int, decode($4, 'hex'), $5, $6) "
    "ON CONFLICT (key_hash) DO UPDATE SET request_hash = EXCLUDED.request_hash, "
    "status = EXCLUDED.status, body = EXCLUDED.body, etag = EXCLUDED.etag, "
    "location = EXCLUDED.location, at = now()",
    6, 0};
/* An answer stored for a key that was not looked up first: an expired row gives way, a live one
 * fails the transaction (m44_key_new, migration 0018). */
static struct db_statement st_insert_new = {
    "idem_insert_new",
    "WITH i AS (INSERT INTO idempotency (key_hash, request_hash, status, body, etag, location) "
    "VALUES (decode($1, 'hex'), decode($2, 'hex'), $3::int, decode($4, 'hex'), $5, $6) "
    "ON CONFLICT (key_hash) DO UPDATE SET request_hash = EXCLUDED.request_hash, "
    "status = EXCLUDED.status, body = EXCLUDED.body, etag = EXCLUDED.etag, "
    "location = EXCLUDED.location, at = now() "
    "WHERE idempotency.at <= now() - $7::int * interval '1 second' RETURNING 1) "
    "SELECT m44_key_new(count(*) = 1) FROM i",
    7, 0};
/* Serialises requests that share a key but have no campaign row to lock (creation, import). */
static struct db_statement st_lock = {
    "idem_lock", "SELECT pg_advisory_xact_lock(hashtextextended($1, 44))", 1, 0};
static struct db_statement st_sweep = {
    "idem_sweep", "DELETE FROM idempotency WHERE at < now() - $1::int * interval '1 second'", 1, 0};

PGresult *db_idem_get(struct db *db, const char *key_hash, const char *ttl)
{
    const char *p[] = {key_hash, ttl};
    return db_exec(db, &st_get, p);
}

bool db_idem_insert(struct db *db, const char *const p[6])
{
    return db_defer(db, &st_insert, p);
}

bool db_idem_insert_new(struct db *db, const char *const p[6], const char *ttl)
{
    const char *q[7];
    for (int i = 0; i < 6; i++)
        q[i] = p[i];
    q[6] = ttl;
    return db_campaign_defer_after_check(db, &st_insert_new, q);
}

long db_idem_lock(struct db *db, const char *key_hash)
{
    const char *p[] = {key_hash};
    PGresult *r = db_exec(db, &st_lock, p);
    PQclear(r);
    return r ? 1 : -1;
}

long db_idem_sweep(struct db *db, const char *ttl)
{
    const char *p[] = {ttl};
    return db_command(db, &st_sweep, p);
}
