/*
 * What this daemon knows of the versions of campaigns and grand campaigns without asking.
 *
 * Every change of a version is announced by the database itself (a trigger: NOTIFY
 * m44d_versions '<id> <version>', migration 0008), at commit and only then, whoever wrote it:
 * this daemon, another one, or a hand-made UPDATE. One thread listens on a connection of its
 * own and keeps the versions heard, and the versions read from the database since, in a
 * bounded table (the oldest forgotten first: a version not known is read again).
 *
 * How stale it may be: the thread sends itself a ping through the same queue every 200 ms.
 * Notifications arrive in the order their transactions committed, so a ping back means every
 * change committed before that ping was sent has been heard. The versions are *current* only
 * while the last ping heard back was sent less than `max_lag_ms` ago. When they are not (the
 * connection is down, or the listener lags), nothing is answered from them: callers read the
 * database, as they would without a listener. A change is therefore never missed for longer
 * than `max_lag_ms`. Each new connection forgets everything known before it (what changed
 * while no one listened was not heard).
 */
#ifndef M44_DB_LISTENER_H
#define M44_DB_LISTENER_H

#include <stdbool.h>

/* Starts the thread. `changed` is called on it for every change heard (to wake long polls). */
bool listener_start(unsigned max_lag_ms, void (*changed)(const char *id, long long version));
void listener_stop(void);

/* Whether the versions are current (see above). */
bool listener_current(void);

/* What an id names. Campaigns and grand campaigns share one space of ids, so a version known
 * for one kind is never given for the other (GET /grand-campaigns/<a campaign's id> is a 404,
 * never the campaign). Every source says the kind: a change heard (its announcement names it),
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
 * announcement arrives, so this daemon reads its own writes). `ticket`: taken before the write
 * began. */
void listener_wrote(unsigned long ticket, const char *id, enum vkind kind, long long version);

/* A write through this daemon committed a change to `id` whose version it does not know (a
 * grand campaign moved by one of its campaigns, the other campaigns of a grand campaign moved by
 * its new key or chat link): `id` is read from the database again. */
void listener_doubt(const char *id);

/* Changes whenever everything known is forgotten (a new listener connection): a poll made under one
 * epoch covers what was not announced before it. */
unsigned long listener_epoch(void);

/* For /metrics: notifications heard, connections made (each one forgets all). */
unsigned long listener_heard(void);
unsigned long listener_connections(void);

#endif
