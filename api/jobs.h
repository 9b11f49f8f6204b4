/*
 * Database workers. Handlers that use PostgreSQL do not run on libmicrohttpd's threads: the
 * connection is suspended and the request queued here; one of N workers (each with its own
 * PGconn) runs the handler, which queues its reply, and the connection is resumed. So a slow
 * query never holds up the other connections of an HTTP thread.
 */
#ifndef M44_API_JOBS_H
#define M44_API_JOBS_H

#include <stdbool.h>
#include <stddef.h>

struct req;

/* Starts `n` workers, and `heavy_n` more for exports and imports (LIMIT_HEAVY routes), of
 * which at most `heavy_waiting` may wait. Returns false when a thread cannot be created. */
bool jobs_start(unsigned n, unsigned heavy_n, unsigned heavy_waiting);

/* Queues a suspended request for a worker; once the workers are stopping, answers it 503, and
 * an export or import beyond the heavy queue's bound 503 with Retry-After. */
void jobs_push(struct req *r);

/* Requests waiting for a worker now: play's (every other database route) and the exports' and
 * imports' (for /metrics). */
size_t jobs_waiting_play(void);
size_t jobs_waiting_heavy(void);

/* Lets queued requests finish, then stops the workers and closes their connections. */
void jobs_stop(void);

#endif
