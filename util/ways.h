/*
 * The shape both in-memory caches share (the rendering cache, api/cache.c, and the campaigns
 * held in memory, campaign/state_cache.c): eight-way set associative. An id may sit in
 * any of the eight slots of its set, and a new entry replaces the one used longest ago, so a few
 * hot campaigns whose ids collide do not evict one another. The set is chosen by a keyed hash
 * (SipHash, a random key drawn at start): imported campaigns choose their ids, and must not be
 * able to crowd one set.
 */
#ifndef M44_UTIL_WAYS_H
#define M44_UTIL_WAYS_H

#define WAYS 8

struct ways {
    unsigned long nsets, nslots; /* both 0: the cache is off */
    unsigned char key[16];
};

/* Sizes the table for `entries` (rounded up to whole sets; 0 or less: off) and draws the key.
 * Returns the number of slots to allocate. */
unsigned long ways_init(struct ways *w, long entries);

/* The index of the first slot of `id`'s set (its WAYS slots follow). */
unsigned long ways_set(const struct ways *w, const char *id);

#endif
