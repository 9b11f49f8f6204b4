/* The campaigns held in memory (campaign/state_cache.h): which state a slot keeps, and that a
 * read's campaign never pushes out a write's. */
#include "campaign/state_cache.h"
#include "tests/common/testkit.h"

#include <stdio.h>
#include <string.h>

static struct campaign *c;

/* Holds (by a write, or by a read) campaign `id` at the given versions. */
static void hold(const char *id, long long version, long long grand_version, bool by_read)
{
    campaign_clear(c);
    snprintf(c->id, sizeof c->id, "%s", id);
    snprintf(c->name, sizeof c->name, "%s at %lld", id, version);
    c->version = version;
    c->grand_version = grand_version;
    if (by_read)
        state_cache_offer(c);
    else
        state_cache_put(c);
}

/* The versions held for `id`; false when nothing is. */
static bool held(const char *id, long long *version, long long *grand_version)
{
    if (!state_cache_get(id, c))
        return false;
    *version = c->version;
    *grand_version = c->grand_version;
    return true;
}

static bool holds(const char *id)
{
    long long v, g;
    return held(id, &v, &g);
}

static int setup(void)
{
    return (c = campaign_new()) ? 0 : 1;
}

static int teardown(void)
{
    campaign_free(c);
    return 0;
}

/* A later state is never replaced by an earlier one: a higher version, or (a read of a campaign
 * whose grand campaign moved on since) the same version with a higher grand version. */
static void test_later_state_kept(void)
{
    state_cache_init(8);
    long long v, g;
    hold("a", 7, 12, false);
    hold("a", 7, 11, true);
    CU_ASSERT(held("a", &v, &g));
    CU_ASSERT_EQUAL(v, 7);
    CU_ASSERT_EQUAL(g, 12);
    hold("a", 7, 11, false);
    CU_ASSERT(held("a", &v, &g) && g == 12);
    hold("a", 6, 20, true);
    CU_ASSERT(held("a", &v, &g) && v == 7 && g == 12);
    hold("a", 8, 12, true); /* a later state, read: taken */
    CU_ASSERT(held("a", &v, &g) && v == 8);
    hold("a", 8, 13, false);
    CU_ASSERT(held("a", &v, &g) && v == 8 && g == 13);
    state_cache_shutdown();
}

/* One set of eight ways, all held by writes: a read's campaign is not held, and pushes none
 * of them out. A write's campaign pushes out the one used longest ago. */
static void test_read_never_evicts_write(void)
{
    state_cache_init(8);
    char id[16];
    for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "w%d", i);
        hold(id, 1, 0, false);
    }
    hold("r0", 1, 0, true);
    CU_ASSERT_FALSE(holds("r0"));
    for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "w%d", i);
        CU_ASSERT(holds(id));
    }
    hold("w8", 1, 0, false); /* w0 is the one used longest ago */
    CU_ASSERT(holds("w8"));
    CU_ASSERT_FALSE(holds("w0"));
    state_cache_shutdown();
}

/* Reads fill the empty ways, then take the way a read filled longest ago; a campaign a write
 * holds stays, even once a read has loaded a later state of it. */
static void test_read_takes_read_ways(void)
{
    state_cache_init(8);
    char id[16];
    for (int i = 0; i < 4; i++) {
        snprintf(id, sizeof id, "w%d", i);
        hold(id, 1, 0, false);
    }
    for (int i = 0; i < 4; i++) {
        snprintf(id, sizeof id, "r%d", i);
        hold(id, 1, 0, true);
    }
    hold("w0", 2, 0, true); /* another daemon's write, read here: still a write's way */
    for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, i < 4 ? "w%d" : "r%d", i % 4);
        CU_ASSERT(holds(id));
    }
    /* r0 is the read's way used longest ago; the writes' ways were used before it. */
    hold("r4", 1, 0, true);
    CU_ASSERT(holds("r4"));
    CU_ASSERT_FALSE(holds("r0"));
    hold("r5", 1, 0, true);
    CU_ASSERT(holds("r5"));
    CU_ASSERT_FALSE(holds("r1"));
    long long v, g;
    for (int i = 0; i < 4; i++) {
        snprintf(id, sizeof id, "w%d", i);
        CU_ASSERT(held(id, &v, &g) && v == (i == 0 ? 2 : 1));
    }
    state_cache_shutdown();
}

void register_state_cache_tests(void)
{
    CU_pSuite s = CU_add_suite("campaigns held in memory", setup, teardown);
    CU_add_test(s, "a later state is kept", test_later_state_kept);
    CU_add_test(s, "a read's campaign never pushes out a write's", test_read_never_evicts_write);
    CU_add_test(s, "reads take empty ways, then the ways reads filled", test_read_takes_read_ways);
}
