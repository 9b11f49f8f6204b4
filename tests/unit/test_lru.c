/* The index of the in-memory caches (util/lru.h), against a model written for this test: a list
 * of (id, class, time of last use), searched whole every time. */
#include "util/lru.h"
#include "tests/common/testkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP 64
#define IDS 200

struct model_entry {
    int id, cls;
    long used;
};
static struct model_entry model[CAP];
static int nmodel;
static long clock_;

static int model_find(int id)
{
    for (int i = 0; i < nmodel; i++)
        if (model[i].id == id)
            return i;
    return -1;
}

/* The entry an id not held would replace, among the classes in mask: none while there is room;
 * else the one used longest ago; -2: no entry of those classes. */
static int model_victim(unsigned mask)
{
    if (nmodel < CAP)
        return -1;
    int v = -2;
    for (int i = 0; i < nmodel; i++)
        if ((mask & (1u << model[i].cls)) && (v == -2 || model[i].used < model[v].used))
            v = i;
    return v;
}

static void name(char *out, size_t len, int id)
{
    snprintf(out, len, "campaign-%d", id);
}

/* Random gets, puts (in either class, or asking only among one) and drops; after each, every id
 * is held by the index exactly when the model holds it, in the same class. */
static void test_same_as_model(void)
{
    struct lru l;
    CU_ASSERT_EQUAL_FATAL(lru_init(&l, CAP), CAP);
    srand(44);
    nmodel = 0;
    clock_ = 0;
    char id[32];
    int mismatches = 0;
    for (int step = 0; step < 60000; step++) {
        int n = rand() % IDS, op = rand() % 10, m = model_find(n);
        name(id, sizeof id, n);
        long s = lru_find(&l, id);
        if ((s >= 0) != (m >= 0)) {
            mismatches++;
            continue;
        }
        if (op < 4) { /* a get */
            if (m >= 0) {
                lru_touch(&l, s);
                model[m].used = ++clock_;
            }
        } else if (op < 9) { /* a put, by class 0 or 1; class 1 replaces only class 1 */
            int cls = op & 1;
            unsigned mask = cls ? 2u : LRU_ALL;
            if (m < 0) {
                int v = model_victim(mask);
                long got = lru_victim(&l, id, mask);
                if (v == -2) {
                    mismatches += got != -1;
                    continue;
                }
                if (v >= 0) {
                    char gone[32];
                    name(gone, sizeof gone, model[v].id);
                    mismatches += got != lru_find(&l, gone);
                    model[v] = model[--nmodel];
                } else
                    mismatches += got < 0 || l.node[got].live; /* room: an empty slot */
                if (got < 0) {
                    mismatches++;
                    continue;
                }
                s = got;
                m = nmodel++;
                model[m].id = n;
            }
            lru_take(&l, s, id, cls);
            model[m].cls = cls;
            model[m].used = ++clock_;
        } else if (m >= 0) { /* a drop */
            lru_drop(&l, s);
            model[m] = model[--nmodel];
        }
        CU_ASSERT_EQUAL(l.live, (unsigned long)nmodel);
    }
    for (int n = 0; n < IDS; n++) {
        name(id, sizeof id, n);
        long s = lru_find(&l, id);
        int m = model_find(n);
        mismatches += (s >= 0) != (m >= 0) || (s >= 0 && lru_class(&l, s) != model[m].cls);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    lru_free(&l);
}

/* Full, and used round and round over one more id than it holds: each new id replaces the one
 * used longest ago, so the N ids used last are always held, whatever their ids. */
static void test_holds_the_last_used(void)
{
    struct lru l;
    enum { N = 1000 };
    CU_ASSERT_EQUAL_FATAL(lru_init(&l, N), N);
    char id[32];
    int missing = 0;
    for (int round = 0; round < 3; round++)
        for (int n = 0; n <= N; n++) {
            name(id, sizeof id, n);
            long s = lru_find(&l, id);
            if (s < 0)
                s = lru_victim(&l, id, LRU_ALL);
            lru_take(&l, s, id, 0);
        }
    /* The last N taken: 1..N of the last round. */
    for (int n = 1; n <= N; n++) {
        name(id, sizeof id, n);
        missing += lru_find(&l, id) < 0;
    }
    CU_ASSERT_EQUAL(missing, 0);
    name(id, sizeof id, 0);
    CU_ASSERT(lru_find(&l, id) < 0);
    CU_ASSERT_EQUAL(l.live, N);
    lru_free(&l);
}

/* An id too long to hold is never given a slot; zero entries is off. */
static void test_limits(void)
{
    struct lru l;
    char id[LRU_ID_MAX + 1];
    memset(id, 'x', LRU_ID_MAX);
    id[LRU_ID_MAX] = '\0';
    CU_ASSERT_EQUAL_FATAL(lru_init(&l, 4), 4);
    CU_ASSERT_EQUAL(lru_victim(&l, id, LRU_ALL), -1);
    id[LRU_ID_MAX - 1] = '\0';
    CU_ASSERT(lru_victim(&l, id, LRU_ALL) >= 0);
    lru_free(&l);
    CU_ASSERT_EQUAL(lru_init(&l, 0), 0);
    CU_ASSERT_EQUAL(lru_find(&l, "a"), -1);
    CU_ASSERT_EQUAL(lru_victim(&l, "a", LRU_ALL), -1);
    lru_free(&l);
}

void register_lru_tests(void)
{
    CU_pSuite s = CU_add_suite("cache index", NULL, NULL);
    CU_add_test(s, "the same as a model, step by step", test_same_as_model);
    CU_add_test(s, "holds the ids used last", test_holds_the_last_used);
    CU_add_test(s, "ids too long, and zero entries", test_limits);
}
