/*
 * Long polls: requests parked until their campaign changes. Writes commit with
 * pg_notify('m44_campaign', id); a listener thread with its own connection wakes the parked
 * requests of that campaign (also those parked on another m44d process sharing the database)
 * and requeues them on a database worker, where the handler runs again and replies.
 */
#ifndef M44_API_WAITERS_H
#define M44_API_WAITERS_H

#include <stdbool.h>

struct req;

/* Starts the listener thread. */
bool waiters_start(void);

/* Wakes every parked request (they reply at once) and refuses new parking. */
void waiters_release_all(void);

/* Stops the listener thread. Call after waiters_release_all and once no request is left. */
void waiters_stop(void);

/*
 * Parks `r` until campaign `id` changes or `seconds` pass; then it goes back to a database
 * worker and its handler runs again with r->waited set. The caller must not touch `r` after a
 * successful call. Returns false when parking is not possible (shutting down).
 */
bool waiters_park(struct req *r, const char *campaign_id, double seconds);

/*
 * Reads campaign `id`'s version (on the calling thread's connection) and wakes its waiters if
 * it is no longer `seen`: closes the gap between a handler's read and its parking.
 */
void waiters_recheck(const char *campaign_id, long long seen);

/* Parked requests now (for tests and metrics). */
long waiters_count(void);

#endif
