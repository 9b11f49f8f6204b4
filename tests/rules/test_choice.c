/* Reserve choice validation: every refusal reason, and a valid choice debits exactly its cost. */
#include "rules/rules.h"
#include "tests/common/testkit.h"
#include "tests/rules/rulestest.h"

#include <string.h>

struct choice_case {
    const char *name;
    enum face f0, f1;
    int tokens;
    struct choice_item items[4];
    int nitems;
    enum choice_error want;
    int want_item; /* offending item, or -1 */
    int want_cost; /* when CHOICE_OK */
};

#define I FACE_INFANTRY
#define A FACE_ARMOR
#define G FACE_GRENADE
#define S FACE_STAR
#define F FACE_FLAG

static const struct choice_case cases[] = {
    {"nothing chosen", I, A, 0, {{NULL, NULL}}, 0, CHOICE_OK, -1, 0},
    {"one unit", I, A, 3, {{"infantry@0", NULL}}, 1, CHOICE_OK, -1, 1},
    {"two units", I, A, 2, {{"infantry@0", NULL}, {"armor@1", NULL}}, 2, CHOICE_OK, -1, 2},
    {"free sandbags", F, F, 0, {{"flag@0", NULL}, {"flag@1", NULL}}, 2, CHOICE_OK, -1, 0},
    {"two stars free with no tokens",
     S,
     S,
     0,
     {{"star-star@0+1", "air-sortie"}},
     1,
     CHOICE_OK,
     -1,
     0},
    {"grant named", G, F, 1, {{"grenade@0", "artillery"}, {"flag@1", NULL}}, 2, CHOICE_OK, -1, 1},
    {"single grant may be named", I, F, 1, {{"infantry@0", "infantry"}}, 1, CHOICE_OK, -1, 1},
    {"elite", S, I, 1, {{"star-infantry@0+1", NULL}}, 1, CHOICE_OK, -1, 1},
    {"unknown id", I, A, 3, {{"tiger@0", NULL}}, 1, CHOICE_UNKNOWN_OPTION, 0, 0},
    {"id of a die not rolled", I, A, 3, {{"infantry@1", NULL}}, 1, CHOICE_UNKNOWN_OPTION, 0, 0},
    {"empty id", I, A, 3, {{"", NULL}}, 1, CHOICE_UNKNOWN_OPTION, 0, 0},
    {"same option twice",
     I,
     A,
     3,
     {{"infantry@0", NULL}, {"infantry@0", NULL}},
     2,
     CHOICE_DUPLICATE_OPTION,
     1,
     0},
    {"die used twice",
     S,
     I,
     3,
     {{"infantry@1", NULL}, {"star-infantry@0+1", NULL}},
     2,
     CHOICE_DIE_REUSED,
     1,
     0},
    {"die used twice, other order",
     S,
     I,
     3,
     {{"star-infantry@0+1", NULL}, {"infantry@1", NULL}},
     2,
     CHOICE_DIE_REUSED,
     1,
     0},
    {"grant required", G, F, 3, {{"grenade@0", NULL}}, 1, CHOICE_GRANT_REQUIRED, 0, 0},
    {"grant not an alternative", G, F, 3, {{"grenade@0", "tiger"}}, 1, CHOICE_INVALID_GRANT, 0, 0},
    {"star + grenade is never artillery",
     S,
     G,
     3,
     {{"star-grenade@0+1", "artillery"}},
     1,
     CHOICE_INVALID_GRANT,
     0,
     0},
    {"single grant named wrong", I, F, 3, {{"infantry@0", "armor"}}, 1, CHOICE_INVALID_GRANT, 0, 0},
    {"no token", I, A, 0, {{"infantry@0", NULL}}, 1, CHOICE_NOT_ENOUGH_TOKENS, 0, 0},
    {"second unit over budget",
     I,
     A,
     1,
     {{"infantry@0", NULL}, {"armor@1", NULL}},
     2,
     CHOICE_NOT_ENOUGH_TOKENS,
     1,
     0},
    {"free then paid, no token",
     F,
     I,
     0,
     {{"flag@0", NULL}, {"infantry@1", NULL}},
     2,
     CHOICE_NOT_ENOUGH_TOKENS,
     1,
     0},
};

static void test_cases(void)
{
    const struct ruleset *rs = rs_get("standard");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct choice_case *c = &cases[i];
        enum face f[2] = {c->f0, c->f1};
        struct option_list offered;
        reserve_options(rs, SIDE_ALLIES, f, 2, NULL, &offered);
        struct choice_result res;
        reserve_validate(&offered, c->items, c->nitems, c->tokens, &res);
        if (res.error != c->want)
            fprintf(stderr, "\ncase \"%s\": error %d, want %d\n", c->name, res.error, c->want);
        CU_ASSERT_EQUAL(res.error, c->want);
        CU_ASSERT_EQUAL(res.item, c->want_item);
        if (c->want == CHOICE_OK) {
            /* The debit is exactly the sum of the chosen options' costs. */
            CU_ASSERT_EQUAL(res.cost, c->want_cost);
            CU_ASSERT_EQUAL(res.nchosen, c->nitems);
            int sum = 0;
            for (int k = 0; k < res.nchosen; k++) {
                const struct option *o = &offered.o[res.chosen[k].offered];
                CU_ASSERT_STRING_EQUAL(o->id, c->items[k].id);
                sum += o->cost;
                bool grant_ok = false;
                for (int g = 0; g < o->ngrants; g++)
                    grant_ok |= strcmp(o->grants[g], res.chosen[k].grant) == 0;
                CU_ASSERT(grant_ok);
                if (c->items[k].grant)
                    CU_ASSERT_STRING_EQUAL(res.chosen[k].grant, c->items[k].grant);
            }
            CU_ASSERT_EQUAL(sum, res.cost);
            CU_ASSERT(res.cost <= c->tokens);
        } else {
            /* What a refusal names: the offending item's option (found here by its id), the
             * earlier item holding a die it needs, the tokens the items up to it would cost. */
            int want_offered = -1, spent = 0;
            for (int k = 0; k <= c->want_item && k < c->nitems; k++)
                for (int j = 0; j < offered.n; j++)
                    if (strcmp(offered.o[j].id, c->items[k].id) == 0) {
                        spent += offered.o[j].cost;
                        if (k == c->want_item)
                            want_offered = j;
                    }
            CU_ASSERT_EQUAL(res.offered, want_offered);
            if (c->want == CHOICE_NOT_ENOUGH_TOKENS) {
                CU_ASSERT_EQUAL(res.cost, spent);
                CU_ASSERT(res.cost > c->tokens);
            }
            if (c->want == CHOICE_DIE_REUSED) {
                CU_ASSERT_FATAL(res.holder >= 0 && res.holder < offered.n);
                const struct option *h = &offered.o[res.holder], *o = &offered.o[want_offered];
                bool earlier = false, shared = false;
                for (int k = 0; k < c->want_item; k++)
                    earlier |= strcmp(h->id, c->items[k].id) == 0;
                for (int x = 0; x < h->ndice; x++)
                    for (int y = 0; y < o->ndice; y++)
                        shared |= h->dice[x] == o->dice[y];
                CU_ASSERT(earlier && shared);
            }
        }
    }
}

static void test_too_many_items(void)
{
    struct option_list offered = {0};
    struct choice_item items[RULES_MAX_OFFERED + 1];
    for (int i = 0; i < RULES_MAX_OFFERED + 1; i++)
        items[i] = (struct choice_item){"x@0", NULL};
    struct choice_result res;
    reserve_validate(&offered, items, RULES_MAX_OFFERED + 1, 99, &res);
    CU_ASSERT_EQUAL(res.error, CHOICE_TOO_MANY);
}

/* Exhaustive: for every pair of faces, every subset of the offered options is accepted exactly
 * when its dice are disjoint, it has grants named where needed, and it is affordable. */
static void test_every_subset(void)
{
    const struct ruleset *rs = rs_get("island-hoppers");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
    int accepted = 0, refused = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            enum face f[2] = {face_of_index(i), face_of_index(j)};
            struct option_list offered;
            reserve_options(rs, SIDE_ALLIES, f, 2, NULL, &offered);
            CU_ASSERT_FATAL(offered.n <= 8);
            for (unsigned mask = 0; mask < (1u << offered.n); mask++)
                for (int tokens = 0; tokens <= 2; tokens++) {
                    struct choice_item items[8];
                    int n = 0, cost = 0;
                    bool dice_ok = true, used[2] = {false, false};
                    for (int k = 0; k < offered.n; k++)
                        if (mask & (1u << k)) {
                            const struct option *o = &offered.o[k];
                            items[n++] = (struct choice_item){o->id, o->grants[0]};
                            cost += o->cost;
                            for (int d = 0; d < o->ndice; d++) {
                                dice_ok &= !used[o->dice[d]];
                                used[o->dice[d]] = true;
                            }
                        }
                    struct choice_result res;
                    reserve_validate(&offered, items, n, tokens, &res);
                    bool want_ok = dice_ok && cost <= tokens;
                    CU_ASSERT_EQUAL(res.error == CHOICE_OK, want_ok);
                    if (res.error == CHOICE_OK) {
                        CU_ASSERT_EQUAL(res.cost, cost);
                        accepted++;
                    } else {
                        CU_ASSERT(res.error == CHOICE_DIE_REUSED ||
                                  res.error == CHOICE_NOT_ENOUGH_TOKENS);
                        refused++;
                    }
                }
        }
    CU_ASSERT(accepted > 100);
    CU_ASSERT(refused > 100);
}

void register_choice_tests(void)
{
    CU_pSuite s = CU_add_suite("reserve choice", NULL, NULL);
    CU_add_test(s, "every refusal reason and exact debits", test_cases);
    CU_add_test(s, "too many items", test_too_many_items);
    CU_add_test(s, "every subset of every roll", test_every_subset);
}
