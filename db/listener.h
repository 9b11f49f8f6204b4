/*
 * What this daemon knows of the versions of campaigns and grand campaigns without asking.
 *
 * Every change of a version is written down by the database itself, in the transaction that
 * makes it (a trigger: a row of m44_changes, migration 0015), whoever made it: this daemon,
 * another one, or a hand-made UPDATE. One thread looks at the changes every 20 ms on a
 * connection of its own: each look is one statement, whose snapshot says which transactions
 * have committed, and which reads the rows of those that committed since the look before. It
 * keeps the versions seen, and the versions read from the database since, in a bounded table
 * (the oldest forgotten first: a version not known is read again).
 *
 * How stale it may be: a look answered means every change committed before it was sent is
 * known. The versions are *current* only while the last look answered was sent less than
 * `max_lag_ms` ago. When they are not (the connection is down, or the database slow to
 * answer), nothing is answered from them: callers read the database, as they would without a
 * listener. A change is therefore never missed for longer than `max_lag_ms`, and is usually seen
 * within 20 ms. Each new connection forgets everything known before it (what changed while no
 * one looked was not seen), and so does a look that finds rows it needed deleted (the daemons
 * delete the rows a minute old, and say below which transaction; one that was stopped longer
 * has missed them).
 *
 * (Not NOTIFY: PostgreSQL makes the commits of transactions that notify wait for one another,
 * each until the one before it is on disk.)
 */
#ifndef M44_DB_LISTENER_H
#define M44_DB_LISTENER_H

#include <stdbool.h>

/* Starts the thread. `keep_s`: how long the changes stay in the database before this daemon
 * deletes them (a daemon that looks less often starts over). `changed` is called on the thread
 * for every change seen (to wake long polls). */
bool listener_start(unsigned max_lag_ms, unsigned keep_s,
                    void (*changed)(const char *id, long long version));
void listener_stop(void);

/* Whether the versions are current (see above). */
bool listener_current(void);

/* What an id names. Campaigns and grand campaigns share one space of ids, so a version known
 * for one kind is never given for the other (GET /grand-campaigns/<a campaign's id> is a 404,
 * never the campaign). Every source says the kind: a change seen (its row names it),
 * a read, a write. VK_ANY: an entry made by a doubt alone, or asked for whatever it is. */
enum vkind { VK_ANY, VK_CAMPAIGN, VK_GRAND };

/* The version of `id` (a canonical UUID) when it is known and current, and known to be of
 * `kind` (VK_ANY: whatever it is). */
bool listener_version(const char *id, enum vkind kind, long long *version);

/* A version read from the database: take a ticket before the read, and give it back with what
 * was read. A read that began before the listener's latest connection is not kept. */
unsigned long listener_ticket(void);
void listener_learned(unsigned long ticket, const char *id, enum vkind kind, long long version);

/* A write through this daemon committed: `id` is now at `version` (known before its
 * listener sees it, so this daemon reads its own writes). `ticket`: taken before the write
 * began. */
void listener_wrote(unsigned long ticket, const char *id, enum vkind kind, long long version);

/* A write through this daemon committed a change to `id` whose version it does not know (a
 * grand campaign moved by one of its campaigns, the other campaigns of a grand campaign moved by
 * its new key or chat link): `id` is read from the database again. */
void listener_doubt(const char *id);

/* Changes whenever everything known is forgotten (a new listener connection, or changes deleted
 * before it saw them): a poll made under one epoch covers what was not seen before it. */
unsigned long listener_epoch(void);

/* For /metrics: changes seen, looks answered, connections made (each one forgets all). */
unsigned long listener_heard(void);
unsigned long listener_looks(void);
unsigned long listener_connections(void);

#endif
