/*
 * Version lookups in batches. GET /api/v1/campaigns/{id} is the dashboard's poll and the most
 * frequent request, and most of them are answered by the campaign's version alone: 304 Not
 * Modified, or the standing cached for that version (api/cache.h). One thread, with its own
 * connection, takes every such request waiting, reads all their versions in one query, answers
 * those it can (the route's by_version) and hands the others to the database workers
 * (api/jobs.h), where the handler runs as usual. Under load one query serves many requests;
 * alone, a request costs the same one primary-key lookup as before.
 */
#ifndef M44_API_VERSION_BATCH_H
#define M44_API_VERSION_BATCH_H

#include <stdbool.h>

struct req;

/* Starts the thread. Returns false when it cannot be created. */
bool version_batch_start(void);

/* Queues a suspended request whose route has by_version (to the workers when stopped). */
void version_batch_push(struct req *r);

/* Answers what is queued and stops the thread. Call before jobs_stop. */
void version_batch_stop(void);

#endif
