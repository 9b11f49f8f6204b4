/*
 * Who a request comes from. The client is the TCP peer, or, when the peer is a reverse proxy
 * named by --trust-proxy, the last address in X-Forwarded-For that is not one of those proxies
 * (each proxy appends the address it was reached from, so everything right of the first
 * untrusted address was written by proxies we trust, and everything left of it by the client).
 *
 * Per-client limits count by a client key: an IPv4 address, or an IPv6 /64 (one home's or one
 * phone's network; a single host can hold a whole /64, so counting by address would let it
 * take any number of turns).
 */
#ifndef M44_API_CLIENTS_H
#define M44_API_CLIENTS_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Parses --trust-proxy: "ADDR[/PREFIX],..." (IPv4 or IPv6; "" trusts nobody). false with a
 * message naming the bad entry. Call once, before serving. */
bool clients_set_trusted(const char *list, char *err, size_t errlen);

/* Whether the TCP peer `sa` is a trusted proxy. */
bool clients_peer_trusted(const struct sockaddr *sa);

/* The client's address as text (at most 45 characters; "" when unknown): the peer, or behind
 * a trusted proxy the address X-Forwarded-For names. */
void clients_address(struct MHD_Connection *conn, char *out, size_t outlen);

/* The same from the peer's address and the X-Forwarded-For headers joined with commas (NULL:
 * none). */
void clients_resolve(const struct sockaddr *peer, const char *xff, char *out, size_t outlen);

struct client_key {
    uint8_t b[17]; /* family (4 or 6), then the address (IPv6: its first 64 bits) */
};

/* The key of a textual address (from clients_address) or of a socket address. false when it
 * is not an address (then every such request shares one key). */
bool client_key_text(const char *text, struct client_key *k);
bool client_key_sockaddr(const struct sockaddr *sa, struct client_key *k);

/*
 * Counts per client key (connections per peer, long polls per client), in a hash table that
 * holds only keys whose count is above zero.
 */
struct client_counts {
    pthread_mutex_t lock;
    struct count_entry **slots;
    size_t nslots;
};
#define CLIENT_COUNTS_INIT                                                                         \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, NULL, 0                                                         \
    }

/* Adds `delta` to k's count unless that would take it above `limit` (limit < 0: no limit);
 * returns whether it was added. A count falling to zero is forgotten. */
bool client_counts_add(struct client_counts *c, const struct client_key *k, int delta, long limit);

/* k's count now. */
long client_counts_get(struct client_counts *c, const struct client_key *k);

#endif
