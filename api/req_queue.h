/*
 * A queue of suspended requests between threads: libmicrohttpd's threads put requests in, a
 * database worker (api/jobs.c) or the version-batch thread (api/version_batch.c) takes them
 * out. Requests are linked through req->queued_next, so queueing never allocates.
 */
#ifndef M44_API_REQ_QUEUE_H
#define M44_API_REQ_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct req;

struct req_queue {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct req *head, *tail;
    bool closed;
    size_t len;
};

#define REQ_QUEUE_INIT                                                                             \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, true, 0                   \
    }

/* Lets requests in (a queue starts closed). */
void req_queue_open(struct req_queue *q);

/* Queues r and wakes one taker. false, with r untouched, when the queue is closed. */
bool req_queue_push(struct req_queue *q, struct req *r);

enum queue_push { QUEUED, QUEUE_CLOSED, QUEUE_FULL };

/* The same, at the front when `urgent` (taken before everything waiting), and refused with
 * QUEUE_FULL when `max_waiting` (>= 0) requests are already waiting. */
enum queue_push req_queue_push_ex(struct req_queue *q, struct req *r, bool urgent,
                                  long max_waiting);

/* Waits for requests and takes up to `max` of them, oldest first. Once the queue is closed,
 * returns what is left, then 0. */
size_t req_queue_take(struct req_queue *q, struct req **out, size_t max);

/* How many requests are waiting now. */
size_t req_queue_waiting(struct req_queue *q);

/* Refuses new requests and wakes every taker; they take what is left, then get 0. */
void req_queue_close(struct req_queue *q);

#endif
