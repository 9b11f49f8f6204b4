/* What the db suites share: a database of their own, and its end. */
#ifndef M44_TESTS_DB_FIXTURE_H
#define M44_TESTS_DB_FIXTURE_H

#include <libpq-fe.h>
#include <stdbool.h>

/* A new database named after `prefix`, opened as m44d's (db_init), migrated, with one campaign
 * `id` (standard ruleset, server dice, 3 tokens a side, no battles). Its connection string
 * (caller ends it with fixture_end), or NULL on failure. */
char *fixture_campaign(const char *prefix, const char *id);

/* Adds that campaign to the database m44d's connections are open on (db_init). */
bool fixture_add_campaign(const char *id, const char *name);

/* Runs `sql` on `c` (a connection of the test's own); true when it succeeded. A failure's
 * message goes to stderr. */
bool fixture_sql(PGconn *c, const char *sql);

/* Closes m44d's connections and frees the connection string. For CUnit: returns 0. */
int fixture_end(char **conninfo);

#endif
