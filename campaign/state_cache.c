#include "campaign/state_cache.h"

#include "util/ways.h"

#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The table's shape: util/ways.h (eight ways, a keyed hash). */

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

struct slot {
    char id[CAMPAIGN_ID_LEN + 1];
    unsigned long used; /* tick of the last get or put */
    bool by_read;       /* first held by a read (state_cache_offer), not by a write */
    struct packed *p;   /* NULL: empty */
};

static struct slot *slots;
static struct ways geometry;
static unsigned long nslots, tick, held;
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
    nslots = ways_init(&geometry, entries);
    slots = nslots ? calloc(nslots, sizeof *slots) : NULL;
    if (!slots)
        nslots = 0;
}

void state_cache_shutdown(void)
{
    for (unsigned long i = 0; i < nslots; i++)
        packed_release(slots[i].p);
    free(slots);
    slots = NULL;
    nslots = held = 0;
}

static struct slot *set_of(const char *id)
{
    return &slots[ways_set(&geometry, id)];
}

/* The slot holding `id` in its set, or NULL. Under the lock. */
static struct slot *find(struct slot *set, const char *id)
{
    for (int w = 0; w < WAYS; w++)
        if (set[w].p && strcmp(set[w].id, id) == 0)
            return &set[w];
    return NULL;
}

bool state_cache_get(const char *id, struct campaign *c)
{
    if (!nslots)
        return false;
    /* The entry is unpacked outside the lock: a reference keeps it while a write replaces it. */
    struct packed *p = NULL;
    pthread_mutex_lock(&lock);
    struct slot *s = find(set_of(id), id);
    if (s) {
        p = s->p;
        atomic_fetch_add(&p->refs, 1);
        s->used = ++tick;
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
    if (!nslots)
        return;
    struct packed *p = pack(c); /* outside the lock; only the swap is inside */
    if (!p) {
        state_cache_drop(c->id);
        return;
    }
    pthread_mutex_lock(&lock);
    struct slot *set = set_of(c->id), *s = find(set, c->id);
    bool same = s != NULL;
    for (int w = 0; !same && w < WAYS; w++) {
        struct slot *t = &set[w];
        if (!t->p) {
            s = t;
            break;
        }
        if ((!by_read || t->by_read) && (!s || t->used < s->used))
            s = t;
    }
    if (!s || (same && (packed_later(s->p, c) || (by_read && s->p->version == c->version &&
                                                  s->p->grand_version == c->grand_version)))) {
        /* Every way holds a write's campaign (a read), or a later state got here first (two
         * puts crossed, or a read loaded an older state), or a read found the same state held:
         * keep what is held. */
        pthread_mutex_unlock(&lock);
        packed_free(p);
        return;
    }
    struct packed *old = s->p;
    held += old == NULL;
    s->by_read = same ? s->by_read && by_read : by_read;
    memcpy(s->id, c->id, sizeof s->id);
    s->p = p;
    s->used = ++tick;
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
    if (!nslots)
        return;
    struct packed *old = NULL;
    pthread_mutex_lock(&lock);
    struct slot *s = find(set_of(id), id);
    if (s) {
        old = s->p;
        s->p = NULL;
        held--;
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
    out->entries = held;
    out->capacity = nslots;
    pthread_mutex_unlock(&lock);
}
