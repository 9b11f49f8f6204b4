#include "api/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 1024

struct slot {
    char id[40];
    long long version;
    char *body;
    size_t len;
};

static struct slot slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned slot_of(const char *id)
{
    unsigned h = 2166136261u;
    for (const char *p = id; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % SLOTS;
}

bool cache_get(const char *id, long long version, char **body, size_t *len)
{
    struct slot *s = &slots[slot_of(id)];
    bool hit = false;
    pthread_mutex_lock(&lock);
    if (s->body && s->version == version && strcmp(s->id, id) == 0) {
        *body = malloc(s->len + 1);
        if (*body) {
            memcpy(*body, s->body, s->len + 1);
            *len = s->len;
            hit = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return hit;
}

void cache_put(const char *id, long long version, const char *body, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, body, len);
    copy[len] = '\0';
    struct slot *s = &slots[slot_of(id)];
    pthread_mutex_lock(&lock);
    char *old = s->body;
    snprintf(s->id, sizeof s->id, "%s", id);
    s->version = version;
    s->body = copy;
    s->len = len;
    pthread_mutex_unlock(&lock);
    free(old);
}
