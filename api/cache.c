#include "api/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Eight-way set associative: an id may sit in any of the eight slots of its set, and a new
 * entry replaces the one used longest ago, so a few hot campaigns whose ids collide do not
 * evict one another. */
#define WAYS 8

struct slot {
    char id[40];
    long long version;
    unsigned long used; /* tick of the last hit or store */
    char *body;
    size_t len;
};

static struct slot *slots;
static unsigned long nslots, nsets, tick;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void cache_init(long entries)
{
    nsets = entries > 0 ? ((unsigned long)entries + WAYS - 1) / WAYS : 0;
    nslots = nsets * WAYS;
    slots = nslots ? calloc(nslots, sizeof *slots) : NULL;
    if (!slots)
        nslots = nsets = 0;
}

void cache_shutdown(void)
{
    for (unsigned long i = 0; i < nslots; i++)
        free(slots[i].body);
    free(slots);
    slots = NULL;
    nslots = nsets = 0;
}

static struct slot *set_of(const char *id)
{
    unsigned h = 2166136261u;
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return &slots[(h % nsets) * WAYS];
}

bool cache_get(const char *id, long long version, char **body, size_t *len)
{
    if (!nslots)
        return false;
    bool hit = false;
    pthread_mutex_lock(&lock);
    struct slot *set = set_of(id);
    for (int w = 0; w < WAYS; w++) {
        struct slot *s = &set[w];
        if (!s->body || s->version != version || strcmp(s->id, id) != 0)
            continue;
        *body = malloc(s->len + 1);
        if (*body) {
            memcpy(*body, s->body, s->len + 1);
            *len = s->len;
            s->used = ++tick;
            hit = true;
        }
        break;
    }
    pthread_mutex_unlock(&lock);
    return hit;
}

void cache_put(const char *id, long long version, const char *body, size_t len)
{
    if (!nslots)
        return;
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, body, len);
    copy[len] = '\0';
    pthread_mutex_lock(&lock);
    struct slot *set = set_of(id), *victim = &set[0];
    for (int w = 0; w < WAYS; w++) {
        if (set[w].body && strcmp(set[w].id, id) == 0) {
            victim = &set[w]; /* an older version of the same campaign */
            break;
        }
        if (set[w].used < victim->used)
            victim = &set[w];
    }
    char *old = victim->body;
    snprintf(victim->id, sizeof victim->id, "%s", id);
    victim->version = version;
    victim->body = copy;
    victim->len = len;
    victim->used = ++tick;
    pthread_mutex_unlock(&lock);
    free(old);
}
