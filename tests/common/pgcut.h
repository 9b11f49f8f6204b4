/*
 * A TCP link between m44d and the test cluster's unix socket that can be cut at
 * the worst moment: armed, it waits for a transaction whose statements name
 * `marker` (a prepared statement, e.g. "roll_insert"), lets PostgreSQL carry
 * out its COMMIT, and closes both ends instead of passing on "COMMIT done". The
 * change is in the database; m44d cannot know it.
 */
#ifndef M44_TEST_PGCUT_H
#define M44_TEST_PGCUT_H

#include <stdbool.h>

struct pgcut;

/* Listens on 127.0.0.1 (a free port); each connection is passed to the
 * cluster's socket in `socket_dir`. NULL if it cannot. */
struct pgcut *pgcut_start(const char *socket_dir);
int pgcut_port(const struct pgcut *p);

/* Cut the next COMMIT of a transaction that used `marker`. */
void pgcut_arm(struct pgcut *p, const char *marker);
/* From now on, cut every link at once when a statement that names `marker` comes, before
 * PostgreSQL sees it (connections are still taken: a pooler whose server is down); "" stops. */
void pgcut_break(struct pgcut *p, const char *marker);
/* Tells the client of every open link what PgBouncer tells it when its server connection died
 * ("FATAL: server conn crashed?", without the non-localized severity PostgreSQL adds), and keeps
 * the link open until the client sends anything (then ends it): the end of the link comes after
 * the message, later than the next request. True once every open link has passed it on. */
bool pgcut_say_fatal(struct pgcut *p);
/* How many links were cut so far. */
int pgcut_cuts(struct pgcut *p);

void pgcut_stop(struct pgcut *p);

#endif
