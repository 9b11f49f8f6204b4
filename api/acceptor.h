/*
 * The listening socket, and the thread that accepts on it and hands each connection to
 * libmicrohttpd (MHD_add_connection). libmicrohttpd is started without a listening socket of
 * its own: its way of stopping accepting (MHD_quiesce_daemon) races, in 0.9.75 with epoll and a
 * thread pool, with its workers removing the same socket from their epoll sets, and the loser
 * aborts the process ("Failed to remove listen FD from epoll set"). Stopping here is a thread
 * joined and a socket closed: from then on a new connection is refused by the kernel.
 */
#ifndef M44_API_ACCEPTOR_H
#define M44_API_ACCEPTOR_H

#include <microhttpd.h>
#include <stdbool.h>
#include <sys/socket.h>

/* Binds and listens on `addr` (SO_REUSEADDR; an IPv6 address takes IPv6 only). Returns the
 * socket, or -1 with errno set. */
int acceptor_listen(const struct sockaddr *addr, socklen_t addrlen);

/* Starts the thread that accepts on `fd` (from acceptor_listen) for `daemon`, which must have
 * been started with MHD_USE_NO_LISTEN_SOCKET and MHD_USE_ITC. While `room()` says no, no
 * connection is accepted: clients wait in the listen queue (as libmicrohttpd's own listening
 * did at its connection limit). The acceptor owns `fd` from here, even when it fails to
 * start. */
bool acceptor_start(struct MHD_Daemon *daemon, int fd, bool (*room)(void));

/* Stops accepting: the thread is joined and the socket closed (connections still in its
 * queue are reset). Connections already handed over stay. Safe to call twice. */
void acceptor_stop(void);

/* libmicrohttpd gives a connection handed to it to the thread of its pool numbered by the
 * socket's number (modulo the pool's size), where its own listening gave it to whichever
 * thread woke first: clients that come one at a time may all land on one thread, which is
 * then the only one busy. */

/* Times accepting paused because the process had no file (or memory) left. */
unsigned long acceptor_fd_waits(void);

#endif
