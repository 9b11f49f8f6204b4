#include "campaign/state_cache.h"

#include "util/lru.h"

#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Which slot holds which campaign, and which was used longest ago: util/lru.h. A campaign a read
 * filled is in the class READ, one a write left in WRITE. */
enum { WRITE, READ };

/* A campaign held: its struct without the unused ends of its arrays (a campaign of ten battles
 * takes about 12 KiB, not the struct's 77), and copies of what its pointers lead to (the
 * pointers within the bytes are the packed campaign's, never followed: unpack replaces them). */
struct packed {
    atomic_uint refs; /* the slot's, and one for each read unpacking it outside the lock */
    struct campaign_copies copies;
    long long version, grand_version; /* the campaign's, as in bytes */
    size_t len;
    unsigned char bytes[];
};

static struct packed **slots; /* by slot of `order`; NULL: empty */
static struct lru order;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_ulong uses[STATE_USES];

/* ---- packing ---- */

#define ARRAY_END(a) (offsetof(struct campaign, a) + sizeof(((struct campaign *)0)->a))
_Static_assert(offsetof(struct campaign, battles) < offsetof(struct campaign, seeds) &&
                   offsetof(struct campaign, seeds) < offsetof(struct campaign, effects) &&
                   offsetof(struct campaign, effects) < offsetof(struct campaign, held),
               "the arrays packed are in this order");
_Static_assert(offsetof(struct campaign, nbattles) < offsetof(struct campaign, battles) &&
                   offsetof(struct campaign, nseeds) >= ARRAY_END(battles) &&
                   offsetof(struct campaign, nseeds) < offsetof(struct campaign, seeds) &&
                   offsetof(struct campaign, neffects) >= ARRAY_END(seeds) &&
                   offsetof(struct campaign, neffects) < offsetof(struct campaign, effects) &&
                   offsetof(struct campaign, nheld) >= ARRAY_END(effects) &&
                   offsetof(struct campaign, nheld) < offsetof(struct campaign, held),
               "each array's count comes before it, after the array before");

#define NPARTS 9
struct part {
    size_t at, len;
};

/* The parts of c kept, in order: what lies between the arrays whole, each array up to its
 * count. Part i's length depends only on counts in the parts before it. */
static void parts(const struct campaign *c, struct part out[NPARTS])
{
    out[0] = (struct part){0, offsetof(struct campaign, battles)};
    out[1] = (struct part){offsetof(struct campaign, battles),
                           (size_t)c->nbattles * sizeof c->battles[0]};
    out[2] =
        (struct part){ARRAY_END(battles), offsetof(struct campaign, seeds) - ARRAY_END(battles)};
    out[3] =
        (struct part){offsetof(struct campaign, seeds), (size_t)c->nseeds * sizeof c->seeds[0]};
    out[4] = (struct part){ARRAY_END(seeds), offsetof(struct campaign, effects) - ARRAY_END(seeds)};
    out[5] = (struct part){offsetof(struct campaign, effects),
                           (size_t)c->neffects * sizeof c->effects[0]};
    out[6] =
        (struct part){ARRAY_END(effects), offsetof(struct campaign, held) - ARRAY_END(effects)};
    out[7] = (struct part){offsetof(struct campaign, held), (size_t)c->nheld * sizeof c->held[0]};
    out[8] = (struct part){ARRAY_END(held), sizeof *c - ARRAY_END(held)};
}

static void packed_free(struct packed *p)
{
    if (!p)
        return;
    campaign_copies_free(&p->copies);
    sodium_memzero(p->bytes, p->len); /* the seeds' secret bytes */
    free(p);
}

/* Lets go of one reference to p; the last one frees it. */
static void packed_release(struct packed *p)
{
    if (p && atomic_fetch_sub(&p->refs, 1) == 1)
        packed_free(p);
}

/* A packed copy of c that shares nothing with it (one reference: the slot's), or NULL. Only the
 * parts kept are copied: never the whole struct. */
static struct packed *pack(const struct campaign *c)
{
    struct part part[NPARTS];
    parts(c, part);
    size_t len = 0;
    for (int i = 0; i < NPARTS; i++)
        len += part[i].len;
    struct packed *p = calloc(1, sizeof *p + len);
    if (!p)
        return NULL;
    atomic_init(&p->refs, 1);
    p->len = len;
    p->version = c->version;
    p->grand_version = c->grand_version;
    unsigned char *at = p->bytes;
    for (int i = 0; i < NPARTS; i++) {
        memcpy(at, (const unsigned char *)c + part[i].at, part[i].len);
        at += part[i].len;
    }
    if (!campaign_copies_make(c, &p->copies)) {
        packed_free(p);
        return NULL;
    }
    return p;
}

/* p holds a later state than c: a higher version, or the same with a higher grand version (a
 * read may load a campaign at an older grand version: its grand campaign changed since). */
static bool packed_later(const struct packed *p, const struct campaign *c)
{
    return p->version > c->version ||
           (p->version == c->version && p->grand_version > c->grand_version);
}

/* c (emptied first) becomes a copy of the packed campaign that shares nothing with it. */
static bool unpack(const struct packed *p, struct campaign *c)
{
    campaign_clear(c);
    const unsigned char *at = p->bytes;
    for (int i = 0; i < NPARTS; i++) {
        struct part part[NPARTS];
        parts(c, part); /* with the counts copied so far */
        memcpy((unsigned char *)c + part[i].at, at, part[i].len);
        at += part[i].len;
    }
    /* Borrowed for a moment, then copied. */
    campaign_copies_lend(c, &p->copies);
    return campaign_own(c);
}

/* ---- the table ---- */

void state_cache_init(long entries)
{
    unsigned long n = lru_init(&order, entries);
    slots = n ? calloc(n, sizeof *slots) : NULL;
    if (!slots)
        lru_free(&order);
}

void state_cache_shutdown(void)
{
    for (unsigned long i = 0; i < order.n; i++)
        packed_release(slots[i]);
    free(slots);
    slots = NULL;
    lru_free(&order);
}

bool state_cache_get(const char *id, struct campaign *c)
{
    if (!slots)
        return false;
    /* The entry is unpacked outside the lock: a reference keeps it while a write replaces it. */
    struct packed *p = NULL;
    pthread_mutex_lock(&lock);
    long s = lru_find(&order, id);
    if (s >= 0) {
        p = slots[s];
        atomic_fetch_add(&p->refs, 1);
        lru_touch(&order, s);
    }
    pthread_mutex_unlock(&lock);
    bool hit = p && unpack(p, c);
    packed_release(p);
    return hit;
}

/* Holds c: in its own slot, else an empty one, else the one used longest ago, or (by_read)
 * only one that a read filled, so that reads never push out what writes hold. */
static void hold(const struct campaign *c, bool by_read)
{
    if (!slots)
        return;
    struct packed *p = pack(c); /* outside the lock; only the swap is inside */
    if (!p) {
        state_cache_drop(c->id);
        return;
    }
    pthread_mutex_lock(&lock);
    long s = lru_find(&order, c->id);
    bool same = s >= 0;
    if (!same)
        s = lru_victim(&order, c->id, by_read ? 1u << READ : LRU_ALL);
    if (s < 0 ||
        (same && (packed_later(slots[s], c) || (by_read && slots[s]->version == c->version &&
                                                slots[s]->grand_version == c->grand_version)))) {
        /* Every slot holds a write's campaign (a read), or a later state got here first (two
         * puts crossed, or a read loaded an older state), or a read found the same state held:
         * keep what is held. */
        pthread_mutex_unlock(&lock);
        packed_free(p);
        return;
    }
    struct packed *old = slots[s];
    lru_take(&order, s, c->id, by_read && (!same || lru_class(&order, s) == READ) ? READ : WRITE);
    slots[s] = p;
    pthread_mutex_unlock(&lock);
    packed_release(old);
}

void state_cache_put(const struct campaign *c)
{
    hold(c, false);
}

void state_cache_offer(const struct campaign *c)
{
    hold(c, true);
}

void state_cache_drop(const char *id)
{
    if (!slots)
        return;
    struct packed *old = NULL;
    pthread_mutex_lock(&lock);
    long s = lru_find(&order, id);
    if (s >= 0) {
        old = slots[s];
        slots[s] = NULL;
        lru_drop(&order, s);
    }
    pthread_mutex_unlock(&lock);
    packed_release(old);
}

void state_cache_note(enum state_use use)
{
    if ((unsigned)use < STATE_USES)
        atomic_fetch_add(&uses[use], 1);
}

void state_cache_stats(struct state_cache_stats *out)
{
    for (int i = 0; i < STATE_USES; i++)
        out->uses[i] = atomic_load(&uses[i]);
    pthread_mutex_lock(&lock);
    out->entries = order.live;
    out->capacity = order.n;
    pthread_mutex_unlock(&lock);
}
