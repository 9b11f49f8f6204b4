/* A thread with its own database connection that deletes expired stored responses for
 * Idempotency-Key (api/idempotency.h), every half time-to-live and at least once a minute. */
#ifndef M44_API_SWEEPER_H
#define M44_API_SWEEPER_H

#include <stdbool.h>

bool sweeper_start(unsigned ttl_seconds);
void sweeper_stop(void);

/* Rows deleted so far (for /metrics). */
unsigned long sweeper_deleted(void);

#endif
