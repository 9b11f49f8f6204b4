/* The HTTP server: libmicrohttpd with an internal polling thread, epoll and a thread pool. */
#ifndef M44_API_SERVER_H
#define M44_API_SERVER_H

#include "api/chat_delivery.h"

#include <stdbool.h>
#include <stddef.h>

struct http_options {
    const char *host;
    unsigned port;
    unsigned threads;      /* database workers */
    unsigned http_threads; /* libmicrohttpd polling threads */
    size_t max_body;
    unsigned timeout;
    unsigned max_connections;
    unsigned per_ip_limit;
    unsigned head_timeout; /* seconds for a whole request head (api/conns.h) */
    long rate_read, burst_read, rate_write, burst_write, rate_create, burst_create,
        rate_create_site, burst_create_site;
    unsigned max_parked, parked_per_client; /* api/waiters.h */
    unsigned heavy_workers, heavy_queue;    /* api/jobs.h */
    size_t conn_memory;
    unsigned max_wait;               /* longest long-poll, seconds */
    unsigned version_poll_ms;        /* see waiters_start */
    unsigned version_max_lag_ms;     /* see db/listener.h; 0: no listener */
    unsigned version_changes_keep_s; /* see listener_start */
    unsigned idempotency_ttl;        /* seconds a stored response is replayed (api/idempotency.h) */
    bool check_state;         /* writes and reads compare the campaign in memory with the stored */
    struct chat_options chat; /* the group's chat (api/chat_delivery.h) */
};

/* Starts serving. Returns false (logged) when the address cannot be bound. */
bool http_start(const struct http_options *opts);

/* The options the server runs with (valid after http_start). */
const struct http_options *http_options(void);

/* Versioned GETs answered from the versions heard, with no database worker (for /metrics). */
unsigned long http_memory_answers(void);

/* Stops accepting new connections; requests already in flight go on. */
void http_quiesce(void);

/* Closes every connection and stops the threads. */
void http_stop(void);

#endif
