/* Starting and stopping the real bin/m44d for API tests. */
#ifndef M44_TEST_DAEMON_H
#define M44_TEST_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

struct daemon {
    pid_t pid;
    int port;
    char base[64]; /* "http://127.0.0.1:PORT" */
    char log[512]; /* its stderr, under tests/out/logs */
};

/*
 * Starts m44d (from $M44_TEST_BIN) against `conninfo` on a free port with `extra` arguments
 * (NULL-terminated, may be NULL), and waits until /healthz answers. $M44_TEST_WRAPPER, when
 * set, is prepended to the command (valgrind). Returns false if it did not come up.
 */
bool daemon_start(struct daemon *d, const char *conninfo, const char *const *extra);

/* The same on a given port (to restart a daemon where its clients expect it). */
bool daemon_start_port(struct daemon *d, const char *conninfo, int port, const char *const *extra);

/* Sends `sig` and waits up to `timeout_s`; returns the exit status, or -1 (killed / timeout). */
int daemon_stop(struct daemon *d, int sig, int timeout_s);

/* A value of its /metrics ("name{labels}" as printed), or -1. */
long daemon_metric(const struct daemon *d, const char *name);

/* Waits (up to timeout_ms) until that value is `want`; false (said on stderr) if it never is. */
bool daemon_metric_becomes(const struct daemon *d, const char *name, long want, int timeout_ms);

/* Waits (up to timeout_ms) until the daemon has looked at the changes of versions twice more
 * (m44d_version_looks_total): every change committed before the call has been seen. False (said
 * on stderr) if it has not. */
bool daemon_seen_all(const struct daemon *d, int timeout_ms);

/* "http://127.0.0.1:PORT/path" into buf. */
const char *daemon_url(const struct daemon *d, const char *path, char *buf, size_t len);

#endif
