/*
 * Every open connection, so that slots are freed when they should be:
 * - a connection from one peer beyond --per-ip-limit is refused as it is accepted (a peer that
 *   is a --trust-proxy proxy is not counted: behind it are many clients);
 * - a request head must arrive whole within --head-timeout of the connection opening or of the
 *   previous reply (libmicrohttpd's own timeout counts idle time only, so a head sent a byte
 *   at a time would hold a slot for ever); a connection past it is shut down;
 * - when more than 7/8 of --max-connections are open, connections idle for a second or more
 *   (no request in progress) are shut down, longest idle first, so that a new client is not
 *   kept waiting behind idle ones (as nginx reuses its idle keep-alive connections).
 */
#ifndef M44_API_CONNS_H
#define M44_API_CONNS_H

#include <microhttpd.h>
#include <stdbool.h>
#include <sys/socket.h>

/* Starts the thread that enforces the head deadline. At most `max_connections` are admitted
 * (libmicrohttpd's own limit is set far above, so that it never refuses one admitted here). */
bool conns_start(unsigned per_peer_limit, unsigned head_timeout_s, unsigned max_connections);
void conns_stop(void);

/* libmicrohttpd callbacks: MHD_OPTION_ACCEPT_POLICY and MHD_OPTION_NOTIFY_CONNECTION. */
enum MHD_Result conns_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
void conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                  enum MHD_ConnectionNotificationCode code);

/* Whether another connection may be admitted now (fewer than --max-connections are). While
 * not, new clients are left waiting in the listen queue rather than accepted and refused. */
bool conns_room(void);

/* A request's head has arrived (its first callback) / its reply is done. */
void conns_request_started(struct MHD_Connection *conn);
void conns_request_done(struct MHD_Connection *conn);

/* Counters for /metrics: connections refused for the per-peer limit, heads cut. */
unsigned long conns_refused(void);
unsigned long conns_head_timeouts(void);
unsigned long conns_idle_shed(void);
long conns_open(void);

#endif
