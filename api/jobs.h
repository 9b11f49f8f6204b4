/*
 * Database workers. Handlers that use PostgreSQL do not run on libmicrohttpd's threads: the
 * connection is suspended and the request queued here; one of N workers (each with its own
 * PGconn) runs the handler, which queues its reply, and the connection is resumed. So a slow
 * query never holds up the other connections of an HTTP thread.
 */
#ifndef M44_API_JOBS_H
#define M44_API_JOBS_H

#include <stdbool.h>

struct req;

/* Starts `n` workers. Returns false when a thread cannot be created. */
bool jobs_start(unsigned n);

/* Queues a suspended request for a worker; once the workers are stopping, answers it 503. */
void jobs_push(struct req *r);

/* Lets queued requests finish, then stops the workers and closes their connections. */
void jobs_stop(void);

#endif
