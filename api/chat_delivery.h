/*
 * Delivers the group's chat messages (campaign/chat.h) from the outbox: --chat-workers threads,
 * each with its own database connection, take due messages one at a time, the first not yet
 * delivered of a chat, and post each to its webhook with libcurl (so a slow chat holds up one
 * worker, not every chat); a failed attempt is tried again later, waiting twice as long
 * each time (up to --chat-retry-max), until --chat-attempts have failed (then it is marked
 * failed, and the organizer's page says so).
 *
 * Each message is posted until one attempt succeeds and never by two senders at once (in this
 * process or another: a message being sent is leased); it carries its id (Idempotency-Key:
 * m44d-msg-<id>), so a receiver can drop the one repeat a crash between its answer and our
 * record of it could cause. Only http and https, no redirects, --chat-timeout for the whole
 * attempt, at most 64 KiB of answer read; and unless --chat-private allow, never to a loopback,
 * private, link-local or other special-purpose address, or one of this host's own (checked on
 * the address connected to, so a name that resolves there is refused too).
 */
#ifndef M44_API_CHAT_DELIVERY_H
#define M44_API_CHAT_DELIVERY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define CHAT_WORKERS_MAX 32

struct chat_options {
    unsigned workers;   /* threads posting at once (each its own database connection) */
    unsigned timeout;   /* seconds for one attempt */
    unsigned attempts;  /* attempts before a message is given up */
    unsigned retry_max; /* longest wait between attempts, seconds */
    bool allow_private; /* deliver to loopback and private addresses too (tests, a LAN) */
};

bool chat_delivery_start(const struct chat_options *o);
void chat_delivery_stop(void);

/* A write that may have queued messages committed: look now rather than at the next tick. */
void chat_delivery_wake(void);

/* Whether an address is one m44d does not deliver to by default: loopback, private,
 * link-local, shared, multicast, unspecified (also as IPv4 mapped into IPv6). */
bool chat_address_private(const struct sockaddr *a);

/* Whether an address is one of this host's own, whatever its kind (a public server's own address
 * reaches whatever it listens on): refused by default too. */
bool chat_address_own(const struct sockaddr *a);

/* Counters for /metrics. */
uint64_t chat_delivered_total(void);
uint64_t chat_failed_attempts_total(void);
uint64_t chat_given_up_total(void);

#endif
