#include "api/cache.h"
#include "tests/common/testkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has(const char *id, long long version, const char *want)
{
    char *body = NULL;
    size_t len = 0;
    if (!cache_get(id, version, &body, &len))
        return false;
    bool same = len == strlen(want) && strcmp(body, want) == 0;
    free(body);
    return same;
}

static void test_hit_only_for_same_version(void)
{
    cache_init(16);
    cache_put("a", 3, "three", 5, NULL);
    CU_ASSERT(has("a", 3, "three"));
    CU_ASSERT_FALSE(has("a", 2, "three"));
    CU_ASSERT_FALSE(has("b", 3, "three"));
    /* A newer version replaces the older one in place. */
    cache_put("a", 4, "four", 4, NULL);
    CU_ASSERT(has("a", 4, "four"));
    CU_ASSERT_FALSE(has("a", 3, "three"));
    cache_shutdown();
}

static void test_off_when_zero(void)
{
    cache_init(0);
    cache_put("a", 1, "x", 1, NULL);
    CU_ASSERT_FALSE(has("a", 1, "x"));
    cache_shutdown();
}

/* Eight entries: the ninth id evicts the one used longest ago, not the hot ones. */
static void test_evicts_least_recently_used(void)
{
    cache_init(8);
    char id[16];
    for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "c%d", i);
        cache_put(id, 1, id, strlen(id), NULL);
    }
    for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "c%d", i);
        CU_ASSERT(has(id, 1, id));
    }
    CU_ASSERT(has("c0", 1, "c0")); /* c1 is now the least recently used */
    cache_put("c8", 1, "c8", 2, NULL);
    CU_ASSERT(has("c8", 1, "c8"));
    CU_ASSERT(has("c0", 1, "c0"));
    CU_ASSERT_FALSE(has("c1", 1, "c1"));
    for (int i = 2; i < 8; i++) {
        snprintf(id, sizeof id, "c%d", i);
        CU_ASSERT(has(id, 1, id));
    }
    cache_shutdown();
}

/* As many ids as entries: every one stays, whatever the ids. (The table of sets of eight that
 * came before lost some in nearly every run: 128 ids hashed into 16 sets of 8 fill every set
 * exactly far less than once in 10^10 runs.) Then one more replaces only the one used longest
 * ago. */
static void test_holds_as_many_as_configured(void)
{
    cache_init(128);
    char id[16];
    int kept = 0;
    for (int i = 0; i < 128; i++) {
        snprintf(id, sizeof id, "id-%d", i);
        cache_put(id, 7, id, strlen(id), NULL);
    }
    for (int i = 0; i < 128; i++) {
        snprintf(id, sizeof id, "id-%d", i);
        kept += has(id, 7, id);
    }
    CU_ASSERT_EQUAL(kept, 128);
    cache_put("id-128", 7, "id-128", 6, NULL); /* id-0 was used longest ago */
    CU_ASSERT(has("id-128", 7, "id-128"));
    CU_ASSERT_FALSE(has("id-0", 7, "id-0"));
    kept = 0;
    for (int i = 1; i < 128; i++) {
        snprintf(id, sizeof id, "id-%d", i);
        kept += has(id, 7, id);
    }
    CU_ASSERT_EQUAL(kept, 127);
    cache_shutdown();
}

void register_cache_tests(void)
{
    CU_pSuite s = CU_add_suite("cache", NULL, NULL);
    CU_add_test(s, "a hit needs the same id and version", test_hit_only_for_same_version);
    CU_add_test(s, "zero entries turns the cache off", test_off_when_zero);
    CU_add_test(s, "a full set evicts the least recently used", test_evicts_least_recently_used);
    CU_add_test(s, "holds as many entries as configured", test_holds_as_many_as_configured);
}
