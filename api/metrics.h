/* Prometheus metrics: requests by route and status, latency histogram, in-flight, DB stats. */
#ifndef M44_API_METRICS_H
#define M44_API_METRICS_H

#include <stddef.h>

/* `route` is an index into the routing table, or -1 for a request that matched none. */
void metrics_request_done(int route, int status, double seconds);
void metrics_inflight_add(int delta);
long metrics_inflight(void);

/* The text exposition format; caller frees. */
char *metrics_render(size_t *len);

#endif
