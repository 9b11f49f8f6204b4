#include "util/lru.h"

#include <assert.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

_Static_assert(sizeof((struct lru *)0)->key == crypto_shorthash_KEYBYTES, "SipHash key size");

unsigned long lru_init(struct lru *l, long entries)
{
    memset(l, 0, sizeof *l);
    if (entries <= 0 || (unsigned long)entries >= NIL || sodium_init() < 0)
        return 0;
    unsigned long n = (unsigned long)entries, nb = 1;
    while (nb < n)
        nb <<= 1; /* at most one entry a bucket on average */
    l->node = calloc(n, sizeof *l->node);
    l->bucket = malloc(nb * sizeof *l->bucket);
    if (!l->node || !l->bucket) {
        lru_free(l);
        return 0;
    }
    for (unsigned long b = 0; b < nb; b++)
        l->bucket[b] = NIL;
    for (unsigned long i = 0; i < n; i++)
        l->node[i].next = i + 1 < n ? (uint32_t)(i + 1) : NIL;
    for (int c = 0; c < LRU_CLASSES; c++)
        l->head[c] = l->tail[c] = NIL;
    l->free = 0;
    l->n = n;
    l->nbuckets = nb;
    randombytes_buf(l->key, sizeof l->key);
    return n;
}

void lru_free(struct lru *l)
{
    free(l->node);
    free(l->bucket);
    memset(l, 0, sizeof *l);
}

static uint32_t *bucket_of(const struct lru *l, const char *id)
{
    uint64_t h;
    crypto_shorthash((unsigned char *)&h, (const unsigned char *)id, strlen(id), l->key);
    return &l->bucket[h & (l->nbuckets - 1)];
}

long lru_find(const struct lru *l, const char *id)
{
    if (!l->n)
        return -1;
    for (uint32_t s = *bucket_of(l, id); s != NIL; s = l->node[s].chain)
        if (strcmp(l->node[s].id, id) == 0)
            return s;
    return -1;
}

/* Out of its class's list. */
static void unlink_use(struct lru *l, uint32_t s)
{
    struct lru_node *x = &l->node[s];
    if (x->prev != NIL)
        l->node[x->prev].next = x->next;
    else
        l->head[x->cls] = x->next;
    if (x->next != NIL)
        l->node[x->next].prev = x->prev;
    else
        l->tail[x->cls] = x->prev;
}

/* At the head of its class's list, as the one used last. */
static void link_use(struct lru *l, uint32_t s)
{
    struct lru_node *x = &l->node[s];
    x->used = ++l->tick;
    x->prev = NIL;
    x->next = l->head[x->cls];
    if (x->next != NIL)
        l->node[x->next].prev = s;
    else
        l->tail[x->cls] = s;
    l->head[x->cls] = s;
}

/* Out of its hash bucket's chain. */
static void unlink_id(struct lru *l, uint32_t s)
{
    for (uint32_t *p = bucket_of(l, l->node[s].id); *p != NIL; p = &l->node[*p].chain)
        if (*p == s) {
            *p = l->node[s].chain;
            return;
        }
}

void lru_touch(struct lru *l, long slot)
{
    unlink_use(l, (uint32_t)slot);
    link_use(l, (uint32_t)slot);
}

long lru_victim(const struct lru *l, const char *id, unsigned classes)
{
    if (!l->n || strlen(id) >= LRU_ID_MAX)
        return -1;
    if (l->free != NIL)
        return l->free;
    uint32_t v = NIL;
    for (int c = 0; c < LRU_CLASSES; c++)
        if ((classes & (1u << c)) && l->tail[c] != NIL &&
            (v == NIL || l->node[l->tail[c]].used < l->node[v].used))
            v = l->tail[c];
    return v == NIL ? -1 : (long)v;
}

/* Into the hash bucket of its new id. */
static void link_id(struct lru *l, uint32_t s, const char *id)
{
    struct lru_node *x = &l->node[s];
    memcpy(x->id, id, strlen(id) + 1);
    uint32_t *b = bucket_of(l, id);
    x->chain = *b;
    *b = s;
}

void lru_take(struct lru *l, long slot, const char *id, int cls)
{
    uint32_t s = (uint32_t)slot;
    struct lru_node *x = &l->node[s];
    if (x->live) {
        unlink_use(l, s);
        if (strcmp(x->id, id) != 0) {
            unlink_id(l, s);
            link_id(l, s, id);
        }
    } else {
        assert(s == l->free); /* a free slot is only ever the free list's first */
        l->free = x->next;
        l->live++;
        x->live = true;
        link_id(l, s, id);
    }
    x->cls = (unsigned char)cls;
    link_use(l, s);
}

void lru_drop(struct lru *l, long slot)
{
    uint32_t s = (uint32_t)slot;
    struct lru_node *x = &l->node[s];
    unlink_use(l, s);
    unlink_id(l, s);
    x->live = false;
    x->id[0] = '\0';
    x->next = l->free;
    l->free = s;
    l->live--;
}

int lru_class(const struct lru *l, long slot)
{
    return l->node[slot].cls;
}
