/*
 * Per-client rate limits: a token bucket per client key (api/clients.h) and limit class
 * (api/router.h), in memory. Each class has a rate (tokens per minute) and a burst (the
 * bucket's size); a request takes one token or is refused with the seconds until one is back.
 *
 * The buckets live in one process: with several m44d behind one proxy, each keeps its own, so
 * a client may get up to N times the rate. The proxy's own limit (deploy/nginx/m44d.conf) is
 * the one that holds across daemons.
 */
#ifndef M44_API_RATELIMIT_H
#define M44_API_RATELIMIT_H

#include "api/clients.h"
#include "api/router.h"

struct rate_limit {
    long per_minute; /* 0: no limit */
    long burst;
};

/* Sets the limits of LIMIT_READ, LIMIT_WRITE and LIMIT_CREATE (LIMIT_HEAVY counts against
 * LIMIT_CREATE's bucket), and of creations by all the clients of one IPv6 /48 (a site: a
 * client is a /64, and one site may hold 65,536 of them), and forgets every bucket. */
void ratelimit_init(const struct rate_limit *read, const struct rate_limit *write,
                    const struct rate_limit *create, const struct rate_limit *create_site);

/* Takes a token for client `k` in `cls`: 0 when allowed, else the whole seconds (at least 1)
 * until a token is back. */
unsigned ratelimit_take(const struct client_key *k, enum limit_class cls);

/* Requests refused so far, by class (for /metrics). */
unsigned long ratelimit_refused(enum limit_class cls);

#endif
