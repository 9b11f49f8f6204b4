#include "api/cache.h"

#include "api/http.h"
#include "util/lru.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a slot of `order` (util/lru.h: which campaign, and which was used longest ago) holds. */
struct slot {
    long long version;
    /* The reply, shared by every request that gets it; it owns `body`, which lives as long as
     * the slot keeps its reference (or a connection is still sending it). */
    struct MHD_Response *resp;
    const char *body;
    size_t len;
};

static struct slot *slots;
static struct lru order;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void cache_init(long entries)
{
    unsigned long n = lru_init(&order, entries);
    slots = n ? calloc(n, sizeof *slots) : NULL;
    if (!slots)
        lru_free(&order);
}

void cache_shutdown(void)
{
    for (unsigned long i = 0; i < order.n; i++)
        if (slots[i].resp)
            MHD_destroy_response(slots[i].resp);
    free(slots);
    slots = NULL;
    lru_free(&order);
}

/* The slot of (id, version), or NULL; under the lock. */
static struct slot *find(const char *id, long long version)
{
    long s = lru_find(&order, id);
    if (s < 0 || slots[s].version != version)
        return NULL;
    lru_touch(&order, s);
    return &slots[s];
}

bool cache_get(const char *id, long long version, char **body, size_t *len)
{
    if (!slots)
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
    if (!slots)
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
    if (!slots || strlen(id) >= LRU_ID_MAX) /* an id too long to hold */
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
    /* Another version of the same campaign, else an empty slot, else the one used longest ago. */
    long s = lru_find(&order, id);
    if (s < 0)
        s = lru_victim(&order, id, LRU_ALL);
    struct slot *victim = &slots[s];
    struct MHD_Response *old = victim->resp;
    lru_take(&order, s, id, 0);
    victim->version = version;
    victim->resp = resp;
    victim->body = copy;
    victim->len = len;
    pthread_mutex_unlock(&lock);
    if (old)
        MHD_destroy_response(old);
}
