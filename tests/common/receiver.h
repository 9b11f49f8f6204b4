/*
 * A chat that records what it is sent: a real HTTP server (libmicrohttpd) on 127.0.0.1 that the
 * API tests point a campaign's webhook at. It keeps every POST (path, Idempotency-Key, body) in
 * arrival order, and answers as the test says: 204, a status of the test's choosing, or not at
 * all for a while (a hanging chat). Stopped, its port refuses connections (a chat that is down).
 */
#ifndef M44_TEST_RECEIVER_H
#define M44_TEST_RECEIVER_H

#include <stdbool.h>

enum receiver_mode {
    RECV_OK,     /* 204 */
    RECV_STATUS, /* the status given with receiver_mode */
    RECV_HANG,   /* record, then answer nothing until the mode changes or it stops */
};

struct receiver;

/* Listens on 127.0.0.1:`port` (0: a free one); NULL if it cannot. */
struct receiver *receiver_start(int port);
/* Stops listening (the port then refuses); what was recorded is kept. */
void receiver_down(struct receiver *r);
/* Listens again on the same port. */
bool receiver_up(struct receiver *r);
void receiver_free(struct receiver *r);

int receiver_port(const struct receiver *r);
void receiver_mode(struct receiver *r, enum receiver_mode m, int status);
/* Every answer from now on comes `ms` milliseconds after the request (a slow chat). */
void receiver_delay(struct receiver *r, int ms);

/* How many POSTs were recorded; waits up to `timeout_s` for at least `n` (true if reached). */
int receiver_count(struct receiver *r);
bool receiver_wait(struct receiver *r, int n, int timeout_s);
/* The i-th POST (from 0): copies valid until receiver_free. NULL when there is none. */
const char *receiver_body(struct receiver *r, int i);
const char *receiver_key(struct receiver *r, int i);
const char *receiver_path(struct receiver *r, int i);
/* Forgets what was recorded. */
void receiver_clear(struct receiver *r);

#endif
