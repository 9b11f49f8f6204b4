/*
 * Long polls: requests parked until their campaign changes. A write through this process wakes
 * the parked requests of its campaign as it commits (waiters_changed); a change made by another
 * m44d process sharing the database is recorded by PostgreSQL in the write's transaction, and
 * seen by the listener within 20 ms on its own connection (db/listener.h, waiters_heard). While the
 * listener is not current (its connection lost, or not yet caught up), a thread with its own
 * connection reads the versions of the parked campaigns a few times a second instead. Woken
 * requests go back to a database worker, where the handler runs again and replies, most often
 * with the rendering every viewer of that version shares (api/cache.h).
 */
#ifndef M44_API_WAITERS_H
#define M44_API_WAITERS_H

#include <stdbool.h>

struct req;

/* Starts the thread that ends expired waits, answers those whose client has hung up and,
 * every `poll_ms` milliseconds (0: never), looks for changes made by other processes. At most
 * `max_parked` requests wait at once, and at most `per_client` from one client (r->client_key),
 * so that waiting readers can never take every slot. */
bool waiters_start(unsigned poll_ms, unsigned max_parked, unsigned per_client);

/* Wakes every parked request (they reply at once) and refuses new parking. */
void waiters_release_all(void);

/* Stops that thread. Call after waiters_release_all and once no request is left. */
void waiters_stop(void);

enum park_result {
    PARKED,      /* r now belongs to the waiters */
    PARK_CLOSED, /* shutting down: answer now */
    PARK_FULL,   /* too many waiting, in all or from this client: refuse (429) */
};

/*
 * Parks `r` until campaign `id` changes from version `seen` or `seconds` pass; then it goes
 * back to a database worker and its handler runs again with r->waited set. The caller must not
 * touch `r` after PARKED. A parked request whose client hangs up is answered (and so freed)
 * within half a second.
 */
enum park_result waiters_park(struct req *r, const char *campaign_id, long long seen,
                              double seconds);

/* Campaign `id` has changed (a write through this process committed): wake its waiters. */
void waiters_changed(const char *campaign_id);

/* The listener saw that campaign `id` is now at `version` (db/listener.h): wake those
 * of its waiters that have not seen it. */
void waiters_heard(const char *campaign_id, long long version);

/*
 * Reads campaign `id`'s version (on the calling thread's connection) and wakes its waiters if
 * it is no longer `seen`: closes the gap between a handler's read and its parking.
 */
void waiters_recheck(const char *campaign_id, long long seen);

/* Parked requests now (for tests and metrics). */
long waiters_count(void);

/* Why parked requests were woken, counted for /metrics (the tests tell the causes apart). */
enum wake_cause {
    WAKE_WRITE,        /* a write through this process (waiters_changed) */
    WAKE_RECHECK,      /* the version moved between the handler's read and its parking */
    WAKE_OTHER_DAEMON, /* the version poll saw another process's change */
    WAKE_TIMEOUT,      /* the wait ended */
    WAKE_SHUTDOWN,
    WAKE_CLIENT_GONE, /* the client closed its connection */
    WAKE_HEARD,       /* the listener saw a change in the database (db/listener.h) */
    WAKE_CAUSES
};
const char *wake_cause_name(enum wake_cause c);
unsigned long waiters_wakes(enum wake_cause c);

/* Rounds of the version poll (for /metrics: none while the listener is current). */
unsigned long waiters_polls(void);

#endif
