#include "api/cache.h"

#include "api/http.h"
#include "util/ways.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    char id[40];
    long long version;
    unsigned long used; /* tick of the last hit or store */
    /* The reply, shared by every request that gets it; it owns `body`, which lives as long as
     * the slot keeps its reference (or a connection is still sending it). */
    struct MHD_Response *resp;
    const char *body;
    size_t len;
};

static struct slot *slots;
static struct ways geometry;
static unsigned long nslots, tick;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void cache_init(long entries)
{
    nslots = ways_init(&geometry, entries);
    slots = nslots ? calloc(nslots, sizeof *slots) : NULL;
    if (!slots)
        nslots = 0;
}

void cache_shutdown(void)
{
    for (unsigned long i = 0; i < nslots; i++)
        if (slots[i].resp)
            MHD_destroy_response(slots[i].resp);
    free(slots);
    slots = NULL;
    nslots = 0;
}

static struct slot *set_of(const char *id)
{
    return &slots[ways_set(&geometry, id)];
}

/* The slot of (id, version), or NULL; under the lock. */
static struct slot *find(const char *id, long long version)
{
    struct slot *set = set_of(id);
    for (int w = 0; w < WAYS; w++) {
        struct slot *s = &set[w];
        if (s->resp && s->version == version && strcmp(s->id, id) == 0) {
            s->used = ++tick;
            return s;
        }
    }
    return NULL;
}

bool cache_get(const char *id, long long version, char **body, size_t *len)
{
    if (!nslots)
        return false;
    bool hit = false;
    pthread_mutex_lock(&lock);
    struct slot *s = find(id, version);
    if (s && (*body = malloc(s->len + 1)) != NULL) {
        memcpy(*body, s->body, s->len);
        (*body)[s->len] = '\0';
        *len = s->len;
        hit = true;
    }
    pthread_mutex_unlock(&lock);
    return hit;
}

bool cache_reply(struct req *r, const char *id, long long version)
{
    if (!nslots)
        return false;
    pthread_mutex_lock(&lock);
    struct slot *s = find(id, version);
    /* Queued under the lock: the connection takes its own reference before an eviction could
     * drop the slot's. */
    bool replied = s && reply_response(r, 200, s->resp);
    pthread_mutex_unlock(&lock);
    return replied;
}

void cache_put(const char *id, long long version, const char *body, size_t len,
               const char *const *headers)
{
    if (!nslots)
        return;
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, body, len);
    copy[len] = '\0';
    struct MHD_Response *resp = response_owning(copy, len, "application/json", headers);
    if (!resp)
        return;
    pthread_mutex_lock(&lock);
    struct slot *set = set_of(id), *victim = &set[0];
    for (int w = 0; w < WAYS; w++) {
        if (set[w].resp && strcmp(set[w].id, id) == 0) {
            victim = &set[w]; /* an older version of the same campaign */
            break;
        }
        if (set[w].used < victim->used)
            victim = &set[w];
    }
    struct MHD_Response *old = victim->resp;
    snprintf(victim->id, sizeof victim->id, "%s", id);
    victim->version = version;
    victim->resp = resp;
    victim->body = copy;
    victim->len = len;
    victim->used = ++tick;
    pthread_mutex_unlock(&lock);
    if (old)
        MHD_destroy_response(old);
}
