#include "db/migrate.h"

#include "util/embed.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "m44d" as a number: the advisory lock every migrator takes. */
#define MIGRATION_LOCK "1832186980"

static struct db_statement st_applied = {
    "migrate_applied", "SELECT version FROM schema_migrations ORDER BY version", 0, 0};
static struct db_statement st_record = {
    "migrate_record", "INSERT INTO schema_migrations (version, name) VALUES ($1::int, $2)", 2, 0};

static bool exec_ok(struct db *db, const char *sql)
{
    PGresult *r = db_exec_sql(db, sql);
    PQclear(r);
    return r != NULL;
}

static int apply_one(struct db *db, const struct embedded_file *f, long version)
{
    char vbuf[24];
    snprintf(vbuf, sizeof vbuf, "%ld", version);
    const char *params[] = {vbuf, f->name};
    if (!exec_ok(db, "BEGIN"))
        return -1;
    if (!exec_ok(db, (const char *)f->data) || db_command(db, &st_record, params) != 1) {
        log_msg(LOG_ERROR, "migrate", "%s failed: %s", f->name, db_last_error(db));
        exec_ok(db, "ROLLBACK");
        return -1;
    }
    if (!exec_ok(db, "COMMIT"))
        return -1;
    log_msg(LOG_INFO, "migrate", "applied %s", f->name);
    return 0;
}

int db_migrate(struct db *db)
{
    if (!db_ensure(db)) {
        log_msg(LOG_ERROR, "migrate", "database unavailable: %s", db_last_error(db));
        return -1;
    }
    if (!exec_ok(db, "SELECT pg_advisory_lock(" MIGRATION_LOCK ")"))
        return -1;
    int applied = 0;
    PGresult *done = NULL;
    if (!exec_ok(db, "CREATE TABLE IF NOT EXISTS schema_migrations ("
                     " version int PRIMARY KEY,"
                     " name text NOT NULL,"
                     " applied_at timestamptz NOT NULL DEFAULT now())") ||
        !(done = db_exec(db, &st_applied, NULL))) {
        applied = -1;
        goto out;
    }
    long newest_known = 0;
    for (const struct embedded_file *f = embedded_migrations; f->name; f++) {
        char *end;
        long version = strtol(f->name, &end, 10);
        if (end == f->name || *end != '-') {
            log_msg(LOG_ERROR, "migrate", "%s: name must start with a number and '-'", f->name);
            applied = -1;
            goto out;
        }
        newest_known = version;
        bool is_done = false;
        for (int i = 0; i < PQntuples(done); i++)
            if (db_ll(done, i, 0) == version)
                is_done = true;
        if (is_done)
            continue;
        if (apply_one(db, f, version)) {
            applied = -1;
            goto out;
        }
        applied++;
    }
    for (int i = 0; i < PQntuples(done); i++)
        if (db_ll(done, i, 0) > newest_known)
            log_msg(LOG_WARN, "migrate",
                    "database has migration %lld, newer than this m44d knows (%ld)",
                    db_ll(done, i, 0), newest_known);
out:
    PQclear(done);
    exec_ok(db, "SELECT pg_advisory_unlock(" MIGRATION_LOCK ")");
    if (applied == 0)
        log_msg(LOG_INFO, "migrate", "schema is up to date");
    return applied;
}

bool db_key_tag_secret(struct db *db, uint8_t out[32])
{
    PGresult *r = db_exec_sql(db, "SELECT secret FROM m44_key_tag_secret");
    size_t len = 0;
    unsigned char *bytes = r && PQntuples(r) == 1
                               ? PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, 0), &len)
                               : NULL;
    bool ok = bytes && len == 32;
    if (ok)
        memcpy(out, bytes, 32);
    PQfreemem(bytes);
    if (r && !ok)
        log_msg(LOG_ERROR, "db", "the secret of the key tags is missing or malformed");
    PQclear(r);
    return ok;
}
