/*
 * Idempotency-Key: a repeat of a POST gets the first response byte for byte. The response is
 * stored sealed (it may hold a campaign's keys): the row is found by a hash of the request's
 * scope and its Idempotency-Key, and sealed under a key derived from the same two, so the
 * database holds nothing usable without the Idempotency-Key itself (docs: README, "Keys at
 * rest"). Rows expire after --idempotency-ttl seconds (swept by api/sweeper.c).
 */
#ifndef M44_API_IDEMPOTENCY_H
#define M44_API_IDEMPOTENCY_H

#include <stddef.h>
#include <stdint.h>

#define IDEM_KEY_MAX 128
/* The least length of a key for a request whose answer holds campaign keys. */
#define IDEM_KEY_MIN_SECRET 32

struct idem {
    char id_hex[65];  /* the row's key_hash, hex */
    uint8_t seal[32]; /* the key the response is sealed under */
};

/* Derives both from the scope ("<campaign id>", or the route and client for requests that
 * create one) and the Idempotency-Key. */
void idem_derive(const char *scope, const char *key, struct idem *out);

/* The response sealed (random nonce first), as hex; caller frees. NULL when out of memory. */
char *idem_seal(const struct idem *k, const char *body, size_t len);

/* The response opened from idem_seal's hex, NUL-terminated; caller frees. NULL when it does not
 * open (tampered, or sealed under another key). */
char *idem_open(const struct idem *k, const char *hex);

/* Zeroes the derived keys. */
void idem_forget(struct idem *k);

#endif
