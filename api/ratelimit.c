#include "api/ratelimit.h"

#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* Buckets kept: a fixed table. A key looks at PROBE slots from its hash; when all are taken,
 * the one idle longest is given to it (its client starts again with a full bucket, which only
 * ever errs on the side of letting a request through). */
#define SLOTS  16384
#define PROBE  8
#define NCLASS 4 /* read, write, create, create per IPv6 site */
#define SITE   3

struct bucket {
    bool used;
    struct client_key k;
    double tokens[NCLASS];
    double at[NCLASS]; /* when tokens[] was last brought up to date, seconds */
    double touched;
};

static struct bucket table[SLOTS];
/* Keyed (SipHash, a key drawn at start): nobody can choose addresses whose buckets share slots
 * with another's, to push it out and have it start again full. */
static unsigned char hash_key[crypto_shorthash_KEYBYTES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rate_limit limits[NCLASS];
static atomic_ulong refused[NCLASS];

void ratelimit_init(const struct rate_limit *read, const struct rate_limit *write,
                    const struct rate_limit *create, const struct rate_limit *create_site)
{
    pthread_mutex_lock(&lock);
    limits[0] = *read;
    limits[1] = *write;
    limits[2] = *create;
    limits[SITE] = *create_site;
    memset(table, 0, sizeof table);
    randombytes_buf(hash_key, sizeof hash_key);
    pthread_mutex_unlock(&lock);
}

static int class_index(enum limit_class cls)
{
    switch (cls) {
    case LIMIT_READ:
        return 0;
    case LIMIT_WRITE:
        return 1;
    case LIMIT_CREATE:
    case LIMIT_HEAVY:
        return 2;
    case LIMIT_NONE:
        break;
    }
    return -1;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t hash(const struct client_key *k)
{
    uint64_t h;
    crypto_shorthash((unsigned char *)&h, k->b, sizeof k->b, hash_key);
    return (size_t)(h % SLOTS);
}

static struct bucket *find(const struct client_key *k, double now)
{
    size_t h = hash(k);
    struct bucket *idle = NULL;
    for (size_t i = 0; i < PROBE; i++) {
        struct bucket *b = &table[(h + i) % SLOTS];
        if (b->used && memcmp(b->k.b, k->b, sizeof k->b) == 0)
            return b;
        if (!idle || !b->used || (idle->used && b->touched < idle->touched))
            idle = b;
    }
    memset(idle, 0, sizeof *idle);
    idle->used = true;
    idle->k = *k;
    for (int c = 0; c < NCLASS; c++) {
        idle->tokens[c] = (double)limits[c].burst;
        idle->at[c] = now;
    }
    return idle;
}

/* Brings bucket b's tokens of class c up to now; the seconds until one token is there (0 when
 * one is). */
static double refill(struct bucket *b, int c, double now)
{
    double rate = (double)limits[c].per_minute / 60.0, burst = (double)limits[c].burst;
    double t = b->tokens[c] + (now - b->at[c]) * rate;
    b->tokens[c] = t > burst ? burst : t;
    b->at[c] = now;
    return b->tokens[c] >= 1.0 ? 0.0 : (1.0 - b->tokens[c]) / rate;
}

unsigned ratelimit_take(const struct client_key *k, enum limit_class cls)
{
    int c = class_index(cls);
    if (c < 0 || limits[c].per_minute <= 0)
        return 0;
    /* Creations from IPv6 also take a token from their /48's bucket: one holding many /64s is
     * still one site. */
    struct client_key site;
    bool by_site = c == 2 && k->b[0] == 6 && limits[SITE].per_minute > 0;
    if (by_site) {
        memset(&site, 0, sizeof site);
        site.b[0] = 48;
        memcpy(site.b + 1, k->b + 1, 6);
    }
    double now = seconds_now();
    pthread_mutex_lock(&lock);
    struct bucket *b = find(k, now), *sb = NULL;
    b->touched = now;
    double wait = refill(b, c, now);
    if (by_site) {
        sb = find(&site, now);
        sb->touched = now;
        double w = refill(sb, SITE, now);
        wait = w > wait ? w : wait;
    }
    if (wait <= 0.0) {
        b->tokens[c] -= 1.0;
        if (sb)
            sb->tokens[SITE] -= 1.0;
    }
    pthread_mutex_unlock(&lock);
    if (wait <= 0.0)
        return 0;
    atomic_fetch_add(&refused[c], 1);
    unsigned secs = (unsigned)ceil(wait);
    return secs < 1 ? 1 : secs;
}

unsigned long ratelimit_refused(enum limit_class cls)
{
    int c = class_index(cls);
    return c < 0 ? 0 : atomic_load(&refused[c]);
}
