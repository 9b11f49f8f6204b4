/* Shared test helpers: running CUnit suites, the throwaway PostgreSQL, temporary databases. */
#ifndef M44_TESTKIT_H
#define M44_TESTKIT_H

#include <CUnit/CUnit.h>
#include <stdbool.h>

/* Each test file provides one of these; it adds its suite(s) to the registry. */
typedef void (*tk_register_fn)(void);

/* Runs the suites, prints CUnit's summary, returns the process exit status (0 = all passed). */
int tk_run(const char *program, const tk_register_fn *registers, int n);

/* An environment variable the test runner (tests/run.sh) sets; exits with a message if unset. */
const char *tk_env(const char *name);

/* The test cluster's connection string for database `dbname`. Caller frees. */
char *tk_conninfo(const char *dbname);

/* Creates an empty database with a unique name; returns its connection string (caller frees). */
char *tk_new_database(const char *prefix);

/* Stops or starts the test cluster (scripts/pg.sh). Returns true on success. */
bool tk_pg(const char *action);

/* Path of a file under the test output directory (tests/out); the directory is created. */
const char *tk_out_path(const char *name, char *buf, size_t len);

/* The whole of a file as a string (caller frees), or NULL when it cannot be read. */
char *tk_slurp(const char *path);

/* Sleeps for `ms` milliseconds. */
void tk_sleep_ms(long ms);

/* The ids of every built-in ruleset (rules/data), the six of the rule book first. */
extern const char *const tk_rulesets[];
extern const int tk_nrulesets;

#endif
