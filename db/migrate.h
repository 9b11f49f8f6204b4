/* Schema migrations: numbered SQL files in db/migrations/, compiled into the binary. */
#ifndef M44_DB_MIGRATE_H
#define M44_DB_MIGRATE_H

#include "db/db.h"

/*
 * Applies every pending migration in order, each in its own transaction and recorded in
 * schema_migrations, while holding a PostgreSQL advisory lock (so daemons starting together
 * take turns). Returns the number applied, or -1 on failure (logged with the file name).
 */
int db_migrate(struct db *db);

#endif
