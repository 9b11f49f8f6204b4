#include "campaign/state_cache.h"

#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Eight-way set associative, as the rendering cache (api/cache.c): an id may sit in any of the
 * eight slots of its set, and a new entry replaces the one used longest ago. The set is chosen
 * by a keyed hash (SipHash, a random key at start): imported campaigns choose their ids, and
 * must not be able to crowd one set. */
#define WAYS 8

struct slot {
    char id[CAMPAIGN_ID_LEN + 1];
    unsigned long used; /* tick of the last get or put */
    struct campaign *c; /* NULL: empty */
};

static struct slot *slots;
static unsigned long nslots, nsets, tick, held;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char hash_key[crypto_shorthash_KEYBYTES];
static atomic_ulong uses[STATE_USES];

void state_cache_init(long entries)
{
    nsets = entries > 0 ? ((unsigned long)entries + WAYS - 1) / WAYS : 0;
    nslots = nsets * WAYS;
    slots = nslots ? calloc(nslots, sizeof *slots) : NULL;
    if (!slots)
        nslots = nsets = 0;
    randombytes_buf(hash_key, sizeof hash_key);
}

void state_cache_shutdown(void)
{
    for (unsigned long i = 0; i < nslots; i++)
        campaign_free(slots[i].c);
    free(slots);
    slots = NULL;
    nslots = nsets = held = 0;
}

static struct slot *set_of(const char *id)
{
    uint64_t h;
    crypto_shorthash((unsigned char *)&h, (const unsigned char *)id, strlen(id), hash_key);
    return &slots[(h % nsets) * WAYS];
}

/* The slot holding `id` in its set, or NULL. Under the lock. */
static struct slot *find(struct slot *set, const char *id)
{
    for (int w = 0; w < WAYS; w++)
        if (set[w].c && strcmp(set[w].id, id) == 0)
            return &set[w];
    return NULL;
}

bool state_cache_get(const char *id, struct campaign *c)
{
    if (!nslots)
        return false;
    bool hit = false;
    pthread_mutex_lock(&lock);
    struct slot *s = find(set_of(id), id);
    if (s && campaign_copy(c, s->c)) {
        s->used = ++tick;
        hit = true;
    }
    pthread_mutex_unlock(&lock);
    return hit;
}

void state_cache_put(const struct campaign *c)
{
    if (!nslots)
        return;
    /* The copy is made outside the lock; only the swap is inside. */
    struct campaign *copy = campaign_new();
    if (!copy || !campaign_copy(copy, c)) {
        campaign_free(copy);
        state_cache_drop(c->id);
        return;
    }
    struct campaign *old;
    pthread_mutex_lock(&lock);
    struct slot *set = set_of(c->id), *s = find(set, c->id);
    if (!s) { /* an empty slot, else the one used longest ago */
        s = &set[0];
        for (int w = 0; w < WAYS && s->c; w++)
            if (!set[w].c || set[w].used < s->used)
                s = &set[w];
    }
    old = s->c;
    held += old == NULL;
    memcpy(s->id, c->id, sizeof s->id);
    s->c = copy;
    s->used = ++tick;
    pthread_mutex_unlock(&lock);
    campaign_free(old);
}

void state_cache_drop(const char *id)
{
    if (!nslots)
        return;
    struct campaign *old = NULL;
    pthread_mutex_lock(&lock);
    struct slot *s = find(set_of(id), id);
    if (s) {
        old = s->c;
        s->c = NULL;
        held--;
    }
    pthread_mutex_unlock(&lock);
    campaign_free(old);
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
