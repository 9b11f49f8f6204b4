/* The campaigns held in memory (campaign/state_cache.h): which state a slot keeps, and that a
 * read's campaign never pushes out a write's. */
#include "campaign/state_cache.h"
#include "tests/common/testkit.h"

#include <stdio.h>
#include <stdlib.h>
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

/* Eight entries, all held by writes: a read's campaign is not held, and pushes none of them
 * out. A write's campaign pushes out the one used longest ago. */
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

/* Reads fill the empty entries, then take the one a read filled longest ago; a campaign a write
 * holds stays, even once a read has loaded a later state of it. */
static void test_read_takes_read_entries(void)
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
    hold("w0", 2, 0, true); /* another daemon's write, read here: still a write's entry */
    for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, i < 4 ? "w%d" : "r%d", i % 4);
        CU_ASSERT(holds(id));
    }
    /* r0 is the read's entry used longest ago; the writes' entries were used before it. */
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

/* As many campaigns as --state-entries, written round and round in the same order (the warm
 * rolls of bench/run.sh): every one stays held, whatever the ids; one more replaces only the
 * one used longest ago. (Sets of eight, as before, lost every campaign of a set that more than
 * eight fell into, on every round.) */
static void test_holds_as_many_as_configured(void)
{
    enum { N = 512 };
    state_cache_init(N);
    char id[16];
    int kept = 0;
    for (int round = 1; round <= 2; round++)
        for (int i = 0; i < N; i++) {
            snprintf(id, sizeof id, "c%d", i);
            if (round == 2)
                kept += holds(id);
            hold(id, round, 0, false);
        }
    CU_ASSERT_EQUAL(kept, N);
    hold("c512", 1, 0, false);
    CU_ASSERT_FALSE(holds("c0"));
    kept = 0;
    for (int i = 1; i <= N; i++) {
        snprintf(id, sizeof id, "c%d", i);
        kept += holds(id);
    }
    CU_ASSERT_EQUAL(kept, N);
    struct state_cache_stats st;
    state_cache_stats(&st);
    CU_ASSERT_EQUAL(st.entries, N);
    CU_ASSERT_EQUAL(st.capacity, N);
    state_cache_shutdown();
}

/* A campaign a read filled stays a read's when a read loads a later state of it: the next read's
 * campaign may replace it (it is the only read's entry), not one a write holds. */
static void test_read_again_stays_read(void)
{
    state_cache_init(8);
    char id[16];
    hold("r0", 1, 0, true);
    hold("r0", 2, 0, true);
    for (int i = 0; i < 7; i++) {
        snprintf(id, sizeof id, "w%d", i);
        hold(id, 1, 0, false);
    }
    hold("r1", 1, 0, true);
    CU_ASSERT(holds("r1"));
    CU_ASSERT_FALSE(holds("r0"));
    for (int i = 0; i < 7; i++) {
        snprintf(id, sizeof id, "w%d", i);
        CU_ASSERT(holds(id));
    }
    state_cache_shutdown();
}

/* A campaign held comes back whole, as a copy that shares nothing with the one put: its arrays
 * up to their counts, the rest of the struct, and what its pointers lead to (its own scenario
 * list, each effect's text, the last action's detail, the chat link), all still there once the
 * campaign put is gone. */
static void test_held_whole(void)
{
    state_cache_init(8);
    struct campaign *put = campaign_new(), *got = campaign_new();
    CU_ASSERT_FATAL(put && got);
    snprintf(put->id, sizeof put->id, "%s", "whole");
    put->version = 9;
    put->nbattles = 2;
    snprintf(put->battles[1].scenario, sizeof put->battles[1].scenario, "%s", "Pegasus Bridge");
    put->nseeds = 1;
    put->seeds[0].bytes[31] = 0xA5;
    put->neffects = 3;
    for (int i = 0; i < 3; i++) {
        snprintf(put->effects[i].event_id, sizeof put->effects[i].event_id, "event-%d", i);
        put->effects[i].data = json_pack("{s:s, s:i}", "name", put->effects[i].event_id, "n", i);
    }
    put->nheld = 1;
    put->held[0].id = 4;
    put->last.seq = 17;
    put->last.detail = json_pack("{s:[i,i]}", "faces", 1, 5);
    put->webhook_url = strdup("https://chat.example/hook");
    put->scenarios_json = json_pack("[s]", "Omaha Beach");
    put->scenarios = calloc(1, sizeof *put->scenarios);
    CU_ASSERT_FATAL(put->scenarios_json && put->scenarios && put->webhook_url && put->last.detail);
    put->scenarios->n = 1;
    snprintf(put->scenarios->note, sizeof put->scenarios->note, "%s", "our own list");
    state_cache_put(put);
    campaign_free(put); /* what it led to goes with it */

    CU_ASSERT_FATAL(state_cache_get("whole", got));
    CU_ASSERT_EQUAL(got->version, 9);
    CU_ASSERT_EQUAL(got->nbattles, 2);
    CU_ASSERT_STRING_EQUAL(got->battles[1].scenario, "Pegasus Bridge");
    CU_ASSERT_EQUAL(got->battles[2].scenario[0], '\0'); /* past the count: empty */
    CU_ASSERT_EQUAL(got->seeds[0].bytes[31], 0xA5);
    CU_ASSERT_EQUAL(got->held[0].id, 4);
    CU_ASSERT_EQUAL(got->neffects, 3);
    for (int i = 0; i < 3 && got->neffects == 3; i++) {
        json_t *want = json_pack("{s:s, s:i}", "name", got->effects[i].event_id, "n", i);
        CU_ASSERT(got->effects[i].data && json_equal(got->effects[i].data, want));
        json_decref(want);
    }
    json_t *faces = json_pack("{s:[i,i]}", "faces", 1, 5);
    CU_ASSERT(got->last.seq == 17 && got->last.detail && json_equal(got->last.detail, faces));
    json_decref(faces);
    CU_ASSERT(got->webhook_url && strcmp(got->webhook_url, "https://chat.example/hook") == 0);
    CU_ASSERT(got->scenarios_json && json_is_array(got->scenarios_json));
    CU_ASSERT(got->scenarios && got->scenarios->n == 1 &&
              strcmp(got->scenarios->note, "our own list") == 0);
    campaign_free(got); /* frees its copies: the held entry keeps its own (no double free) */
    got = campaign_new();
    CU_ASSERT_FATAL(got != NULL);
    CU_ASSERT(state_cache_get("whole", got) && got->neffects == 3 && got->effects[2].data);
    campaign_free(got);
    state_cache_shutdown();
}

void register_state_cache_tests(void)
{
    CU_pSuite s = CU_add_suite("campaigns held in memory", setup, teardown);
    CU_add_test(s, "a later state is kept", test_later_state_kept);
    CU_add_test(s, "a read's campaign never pushes out a write's", test_read_never_evicts_write);
    CU_add_test(s, "holds as many campaigns as configured", test_holds_as_many_as_configured);
    CU_add_test(s, "a campaign read again stays a read's", test_read_again_stays_read);
    CU_add_test(s, "reads take empty entries, then the ones reads filled",
                test_read_takes_read_entries);
    CU_add_test(s, "a campaign held comes back whole, sharing nothing", test_held_whole);
}
