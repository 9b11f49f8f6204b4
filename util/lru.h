/*
 * The index both in-memory caches share (the rendering cache, api/cache.c, and the campaigns
 * held in memory, campaign/state_cache.c): a fixed number of slots, each holding one id, found
 * through a hash table and kept in the order they were used. A full cache gives up the entry
 * used longest ago, whichever it is, so a cache of N entries holds the N ids used last, whatever
 * the ids. (A table of small sets, as before, gave up an entry of a full set while other sets had
 * room, and a load that went round a few more campaigns than a set holds missed on every one.)
 * (Within the limit of its classes: the state cache's reads never push out what writes hold.)
 * The hash is keyed (SipHash, a random key drawn at start): imported campaigns choose their ids,
 * and must not be able to make one long chain.
 *
 * Each entry is in one of LRU_CLASSES classes, a list of its own in order of use; the victim may
 * be asked for among some classes only (the state cache: a read's campaign replaces only what a
 * read filled). The caller keeps what each slot holds in an array of its own, by slot number,
 * and holds its own lock around every call.
 */
#ifndef M44_UTIL_LRU_H
#define M44_UTIL_LRU_H

#include <stdbool.h>
#include <stdint.h>

#define LRU_ID_MAX  40 /* with its NUL (a UUID takes 37); a longer id is never held */
#define LRU_CLASSES 2
#define LRU_ALL     ((1u << LRU_CLASSES) - 1)

struct lru_node {
    char id[LRU_ID_MAX];
    uint64_t used;       /* tick of the last take or touch */
    uint32_t chain;      /* next slot in the same hash bucket */
    uint32_t prev, next; /* in its class's list (more, less recently used); the free list: next */
    unsigned char cls;
    bool live;
};

struct lru {
    unsigned long n, nbuckets; /* n = 0: off */
    struct lru_node *node;
    uint32_t *bucket;
    uint32_t head[LRU_CLASSES], tail[LRU_CLASSES]; /* most and least recently used */
    uint32_t free;
    uint64_t tick;
    unsigned long live;
    unsigned char key[16];
};

/* Sizes the index for `entries` slots (0 or less: off) and draws the key. Returns the number of
 * slots (0: off, or out of memory). */
unsigned long lru_init(struct lru *l, long entries);
void lru_free(struct lru *l);

/* The slot holding `id`, or -1. Does not count as a use. */
long lru_find(const struct lru *l, const char *id);
/* Counts as a use of the slot (live). */
void lru_touch(struct lru *l, long slot);
/* The slot a new id would take: a free one, else the live one used longest ago among the classes
 * in the mask (1 << class); -1 when there is none, or when `id` is too long to hold. */
long lru_victim(const struct lru *l, const char *id, unsigned classes);
/* The slot holds `id` from now on, in class `cls`, as the one used last; the id it held before,
 * if another, is no longer found. The slot is the one lru_find or (for an id not held)
 * lru_victim just gave for this id, with no call that changes the index in between. */
void lru_take(struct lru *l, long slot, const char *id, int cls);
/* The slot (live) holds nothing. */
void lru_drop(struct lru *l, long slot);
int lru_class(const struct lru *l, long slot);

#endif
