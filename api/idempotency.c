#include "api/idempotency.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

/* BLAKE2b-256 of "m44d idempotency <purpose>", 0, scope, 0, key: one hash per purpose. */
static void derive(const char *purpose, const char *scope, const char *key, uint8_t out[32])
{
    crypto_generichash_state st;
    static const char zero = 0;
    crypto_generichash_init(&st, NULL, 0, 32);
    crypto_generichash_update(&st, (const unsigned char *)"m44d idempotency ", 17);
    crypto_generichash_update(&st, (const unsigned char *)purpose, strlen(purpose));
    crypto_generichash_update(&st, (const unsigned char *)&zero, 1);
    crypto_generichash_update(&st, (const unsigned char *)scope, strlen(scope));
    crypto_generichash_update(&st, (const unsigned char *)&zero, 1);
    crypto_generichash_update(&st, (const unsigned char *)key, strlen(key));
    crypto_generichash_final(&st, out, 32);
}

void idem_derive(const char *scope, const char *key, struct idem *out)
{
    uint8_t id[32];
    derive("row", scope, key, id);
    sodium_bin2hex(out->id_hex, sizeof out->id_hex, id, sizeof id);
    derive("seal", scope, key, out->seal);
}

char *idem_seal(const struct idem *k, const char *body, size_t len)
{
    size_t sealed_len = crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + len;
    unsigned char *sealed = malloc(sealed_len);
    char *hex = malloc(2 * sealed_len + 1);
    if (!sealed || !hex) {
        free(sealed);
        free(hex);
        return NULL;
    }
    randombytes_buf(sealed, crypto_secretbox_NONCEBYTES);
    crypto_secretbox_easy(sealed + crypto_secretbox_NONCEBYTES, (const unsigned char *)body, len,
                          sealed, k->seal);
    sodium_bin2hex(hex, 2 * sealed_len + 1, sealed, sealed_len);
    free(sealed);
    return hex;
}

char *idem_open(const struct idem *k, const char *hex)
{
    size_t hexlen = strlen(hex), len = 0;
    unsigned char *sealed = malloc(hexlen / 2 + 1);
    if (!sealed || sodium_hex2bin(sealed, hexlen / 2 + 1, hex, hexlen, NULL, &len, NULL) != 0 ||
        len < crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES) {
        free(sealed);
        return NULL;
    }
    size_t body_len = len - crypto_secretbox_NONCEBYTES - crypto_secretbox_MACBYTES;
    char *body = malloc(body_len + 1);
    if (!body ||
        crypto_secretbox_open_easy((unsigned char *)body, sealed + crypto_secretbox_NONCEBYTES,
                                   len - crypto_secretbox_NONCEBYTES, sealed, k->seal) != 0) {
        free(sealed);
        free(body);
        return NULL;
    }
    free(sealed);
    body[body_len] = '\0';
    return body;
}

void idem_forget(struct idem *k)
{
    sodium_memzero(k, sizeof *k);
}
