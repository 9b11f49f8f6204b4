/* Schema migrations: numbered SQL files in db/migrations/, compiled into the binary. */
#ifndef M44_DB_MIGRATE_H
#define M44_DB_MIGRATE_H

#include "db/db.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * Applies every pending migration in order, each in its own transaction and recorded in
 * schema_migrations, while holding a PostgreSQL advisory lock (so daemons starting together
 * take turns). Returns the number applied, or -1 on failure (logged with the file name).
 */
int db_migrate(struct db *db);

/* The database's secret for the tags of keys (migration 0013), into `out`; false on failure. */
bool db_key_tag_secret(struct db *db, uint8_t out[32]);

#endif
