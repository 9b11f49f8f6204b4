/* Statements on stored responses for Idempotency-Key. */
#include "db/store.h"

static struct db_statement st_get = {
    "idem_get",
    "SELECT method, path, encode(request_hash, 'hex'), status, body, etag, location "
    "FROM idempotency WHERE scope = $1 AND key = $2",
    2, 0};
static struct db_statement st_insert = {
    "idem_insert",
    "INSERT INTO idempotency (scope, key, method, path, request_hash, status, body, etag, "
    "location) VALUES ($1, $2, $3, $4, decode($5, 'hex'), $6::int, $7, $8, $9)",
    9, 0};
/* Serialises requests that share a key but have no campaign row to lock (creation, import). */
static struct db_statement st_lock = {
    "idem_lock", "SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 44))", 2, 0};

PGresult *db_idem_get(struct db *db, const char *scope, const char *key)
{
    const char *p[] = {scope, key};
    return db_exec(db, &st_get, p);
}

bool db_idem_insert(struct db *db, const char *const p[9])
{
    return db_defer(db, &st_insert, p);
}

long db_idem_lock(struct db *db, const char *scope, const char *key)
{
    const char *p[] = {scope, key};
    PGresult *r = db_exec(db, &st_lock, p);
    PQclear(r);
    return r ? 1 : -1;
}
