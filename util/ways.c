#include "util/ways.h"

#include <sodium.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof((struct ways *)0)->key == crypto_shorthash_KEYBYTES, "SipHash key size");

unsigned long ways_init(struct ways *w, long entries)
{
    w->nsets = entries > 0 ? ((unsigned long)entries + WAYS - 1) / WAYS : 0;
    w->nslots = w->nsets * WAYS;
    if (sodium_init() < 0)
        w->nsets = w->nslots = 0;
    else
        randombytes_buf(w->key, sizeof w->key);
    return w->nslots;
}

unsigned long ways_set(const struct ways *w, const char *id)
{
    uint64_t h;
    crypto_shorthash((unsigned char *)&h, (const unsigned char *)id, strlen(id), w->key);
    return (unsigned long)(h % w->nsets) * WAYS;
}
