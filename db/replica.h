/*
 * Reads from a hot standby (--read-database), and when they are allowed.
 *
 * A probe thread asks the primary for its WAL position (pg_current_wal_lsn) every PROBE_MS,
 * then asks the standby how far it has replayed (pg_last_wal_replay_lsn). A standby that has
 * replayed a position the primary had at time t holds every transaction committed before t:
 * it is at most (now - t) behind. The standby may be read while that is at most `max_lag_ms`
 * (--read-max-lag-ms); it may not when it is behind more, when it is not in recovery (it was
 * promoted, or the URL names a primary), from when the standby's probe fails until one answers,
 * and from `max_lag_ms` after the primary's probe last answered (a new connection to either
 * starts over: it may be to another server). Staleness is judged when a read starts, so a
 * probe thread that stops makes the standby unused within `max_lag_ms`.
 *
 * That bounds staleness; read-your-writes is the caller's part: a read of a campaign that
 * must show at least a version (the one this daemon heard of, or one the client shows in
 * If-None-Match) and finds an older one on the standby is made again on the primary
 * (api/common.c).
 */
#ifndef M44_DB_REPLICA_H
#define M44_DB_REPLICA_H

#include "db/db.h"

#include <stdbool.h>

/* How a read that could have gone to the standby went. */
enum replica_outcome {
    REPLICA_READ,    /* answered by the standby */
    REPLICA_LAGGING, /* not sent: the standby was behind more than the bound, or not one */
    REPLICA_BEHIND,  /* the standby had an older version than the read must show: primary */
    REPLICA_REFUSED, /* the standby refused it (not found there yet...): the primary decides */
    REPLICA_FAILED,  /* the standby failed or was unavailable: primary */
    REPLICA_OUTCOMES,
};

/* Starts the probe (nothing without db_init_standby). false: the thread could not start. */
bool replica_start(unsigned max_lag_ms);
void replica_stop(void);

/* The calling thread's standby connection when the standby may be read now, else NULL (then
 * counted as REPLICA_LAGGING when a standby is configured). */
struct db *replica_db(void);

void replica_count(enum replica_outcome outcome);

/* For /metrics. */
unsigned long replica_outcomes(enum replica_outcome outcome);
const char *replica_outcome_name(enum replica_outcome outcome);
/* How far behind the standby was at the last probe, in seconds; -1 when not known (no probe
 * has answered, or it is not a standby). */
double replica_lag_seconds(void);

#endif
