/* Victory event rolls: dice counts, instruction order, starting hands, notes. */
#include "rules/rules.h"
#include "campaign/rules_json.h"
#include "tests/common/testkit.h"
#include "tests/rules/rulestest.h"

#include <stdint.h>
#include <string.h>

#define I  FACE_INFANTRY
#define A  FACE_ARMOR
#define G  FACE_GRENADE
#define S  FACE_STAR
#define F  FACE_FLAG
#define AL SIDE_ALLIES
#define AX SIDE_AXIS

struct step {
    enum side roller;
    enum face face;
};

struct vcase {
    const char *ruleset;
    enum side first;
    enum face allies[8];
    int nallies;
    enum face axis[8];
    int naxis;
    int cards[2];
    int commissar;
    struct step want[16];
    int nwant;
    int hand[2];
    bool note[2];
};

static const struct vcase vcases[] = {
    {"standard",
     AL,
     {F, I, G, S},
     4,
     {A, A},
     2,
     {5, 4},
     -1,
     {{AL, I}, {AL, S}, {AL, F}, {AX, A}, {AX, A}, {AL, G}},
     6,
     {5, 3},
     {false, false}},
    {"standard",
     AX,
     {G, G, S},
     3,
     {G, I, S, S, S},
     5,
     {3, 6},
     AL,
     {{AX, I}, {AX, S}, {AX, S}, {AX, S}, {AL, S}, {AX, G}, {AL, G}, {AL, G}},
     8,
     {1, 5},
     {true, false}},
    {"standard",
     AL,
     {S, S},
     2,
     {F, F},
     2,
     {4, 4},
     AX,
     {{AL, S}, {AL, S}, {AX, F}, {AX, F}},
     4,
     {4, 2},
     {false, false}},
    {"standard",
     AX,
     {I, A, S, F, G},
     5,
     {F, G, A, I, S},
     5,
     {2, 2},
     AX,
     {{AX, I}, {AX, A}, {AX, S}, {AX, F}, {AL, I}, {AL, A}, {AL, S}, {AL, F}, {AX, G}, {AL, G}},
     10,
     {1, 1},
     {false, true}},
    {"simplified", AL, {0}, 0, {F}, 1, {4, 5}, -1, {{AX, F}}, 1, {4, 5}, {false, false}},
    {"simplified", AX, {0}, 0, {0}, 0, {4, 5}, -1, {{0, 0}}, 0, {4, 5}, {false, false}},
};

static void test_hand_written_cases(void)
{
    for (size_t c = 0; c < sizeof vcases / sizeof vcases[0]; c++) {
        const struct vcase *v = &vcases[c];
        const struct ruleset *rs = rs_get(v->ruleset);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
        const enum face *faces[2] = {v->allies, v->axis};
        int n[2] = {v->nallies, v->naxis};
        static struct victory_outcome out;
        victory_resolve(rs, v->first, faces, n, v->cards, v->commissar, &out);
        CU_ASSERT_EQUAL(out.n, v->nwant);
        for (int i = 0; i < v->nwant && i < out.n; i++) {
            if (out.list[i].roller != v->want[i].roller || out.list[i].face != v->want[i].face)
                fprintf(stderr, "\ncase %zu step %d: got %s %s\n", c, i,
                        side_name(out.list[i].roller), face_name(out.list[i].face));
            CU_ASSERT_EQUAL(out.list[i].roller, v->want[i].roller);
            CU_ASSERT_EQUAL(out.list[i].face, v->want[i].face);
        }
        CU_ASSERT_EQUAL(out.hand[AL], v->hand[AL]);
        CU_ASSERT_EQUAL(out.hand[AX], v->hand[AX]);
        CU_ASSERT_EQUAL(out.commissar_note[AL], v->note[AL]);
        CU_ASSERT_EQUAL(out.commissar_note[AX], v->note[AX]);
    }
}

/* The texts name the right side, in the book's words ("the Allied player", "an Allied unit"):
 * an Allied infantry die makes the Axis remove a figure. */
static void test_instruction_texts(void)
{
    const struct ruleset *rs = rs_get("standard");
    enum face al[2] = {I, G}, ax[1] = {F};
    const enum face *faces[2] = {al, ax};
    int n[2] = {2, 1}, cards[2] = {5, 5};
    static struct victory_outcome out;
    victory_resolve(rs, AL, faces, n, cards, -1, &out);
    CU_ASSERT_EQUAL_FATAL(out.n, 3);
    /* Whose unit, said each time: the opponent's own for infantry, armor, flag; for a grenade
     * the roller picks the opponent's unit. */
    CU_ASSERT_STRING_EQUAL(out.list[0].text, "The Axis player removes 1 figure from one of their "
                                             "own infantry units (their choice).");
    CU_ASSERT_PTR_NOT_NULL(
        strstr(out.list[1].text, "The Allied player retreats one of their own units 1 hex"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.list[1].text, "board edge loses 1 figure"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.list[2].text, "The Allied player removes 1 figure from one "
                                                    "full-strength Axis unit of the Allied "
                                                    "player's choice"));
    /* The Axis rolling the grenade: an Allied unit. */
    const enum face *swapped[2] = {ax, al};
    int swapped_n[2] = {1, 2};
    victory_resolve(rs, AL, swapped, swapped_n, cards, -1, &out);
    CU_ASSERT_EQUAL_FATAL(out.n, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(out.list[2].text, "The Axis player removes 1 figure from one "
                                                    "full-strength Allied unit of the Axis "
                                                    "player's choice"));
    /* Simplified: a flag never pushes a unit off the board; a grenade hits any unit. */
    rs = rs_get("simplified");
    victory_resolve(rs, AL, faces, n, cards, -1, &out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out.list[1].text, "may not retreat off the board"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out.list[2].text, "from any one Axis unit"));
    CU_ASSERT_PTR_NULL(strstr(out.list[2].text, "full-strength"));
    json_t *j = victory_to_json(rs, &out);
    json_t *notes = json_object_get(j, "notes");
    CU_ASSERT_EQUAL(json_array_size(notes), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_array_get(notes, 0)), "medal"));
    json_decref(j);
}

static void test_commissar_note_text(void)
{
    const struct ruleset *rs = rs_get("standard");
    enum face al[1] = {S}, ax[1] = {I};
    const enum face *faces[2] = {al, ax};
    int n[2] = {1, 1}, cards[2] = {4, 2};
    static struct victory_outcome out;
    victory_resolve(rs, AL, faces, n, cards, AX, &out);
    CU_ASSERT_EQUAL(out.hand[AX], 1);
    json_t *j = victory_to_json(rs, &out);
    json_t *notes = json_object_get(j, "notes");
    CU_ASSERT_EQUAL_FATAL(json_array_size(notes), 1);
    const char *note = json_string_value(json_array_get(notes, 0));
    CU_ASSERT_PTR_NOT_NULL(strstr(note, "the Axis player starts with 1 card"));
    CU_ASSERT_PTR_NOT_NULL(strstr(note, "Commissar chip"));
    CU_ASSERT_EQUAL(
        json_integer_value(json_object_get(json_object_get(j, "starting_hand"), "axis")), 1);
    json_decref(j);
}

static void test_dice_counts(void)
{
    static const struct {
        const char *ruleset;
        int battle, won, medals, want;
    } t[] = {
        {"standard", 1, 0, 0, 0},   {"standard", 2, 0, 4, 2},       {"standard", 2, 1, 0, 3},
        {"standard", 5, 3, 9, 5},   {"fall-of-poland", 3, 2, 0, 4}, {"simplified", 1, 0, 6, 0},
        {"simplified", 2, 0, 0, 0}, {"simplified", 2, 1, 4, 5},     {"simplified", 3, 2, 6, 8},
        {"simplified", 2, 0, 3, 3}, {"cb1-falaise", 2, 1, 5, 3},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const struct ruleset *rs = rs_get(t[i].ruleset);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
        CU_ASSERT_EQUAL(victory_dice(rs, t[i].battle, t[i].won, t[i].medals), t[i].want);
    }
    /* Capped at the most dice a roll may have. */
    CU_ASSERT_EQUAL(victory_dice(rs_get("simplified"), 2, 50, 500), RULES_MAX_DICE);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static int rank_of(enum face f)
{
    static const int rank[FACE_COUNT] = {[I] = 0, [A] = 1, [S] = 2, [F] = 3, [G] = 4};
    return rank[f];
}

/* Thousands of random rolls: order respected, count right, hands never below 1. */
static void test_property_random_rolls(void)
{
    const char *ids[] = {"standard", "simplified", "break-through-normandy"};
    static struct victory_outcome out;
    int failures = 0;
    for (int iter = 0; iter < 5000; iter++) {
        const struct ruleset *rs = rs_get(ids[iter % 3]);
        enum face f[2][40];
        int n[2], cards[2], count[2][FACE_COUNT] = {{0}};
        for (int s = 0; s < 2; s++) {
            n[s] = (int)rnd(31);
            cards[s] = 1 + (int)rnd(8);
            for (int i = 0; i < n[s]; i++) {
                f[s][i] = face_of_index((int)rnd(6));
                count[s][f[s][i]]++;
            }
        }
        enum side first = rnd(2) ? AL : AX, second = side_other(first);
        const enum face *faces[2] = {f[0], f[1]};
        int commissar = (int)rnd(3) - 1;
        victory_resolve(rs, first, faces, n, cards, commissar, &out);
        bool ok = out.n == n[0] + n[1];
        /* Phases: 0 first's non-grenades, 1 second's non-grenades, 2 first's grenades,
         * 3 second's grenades; never going back, and within a side's non-grenades the order
         * infantry, armor, star, flag. */
        int phase = 0, last_rank = -1, seen[2][FACE_COUNT] = {{0}};
        for (int i = 0; i < out.n && ok; i++) {
            const struct instruction *in = &out.list[i];
            int p = in->face == G ? (in->roller == first ? 2 : 3) : (in->roller == first ? 0 : 1);
            if (p < phase)
                ok = false;
            if (p != phase)
                last_rank = -1;
            phase = p;
            if (rank_of(in->face) < last_rank)
                ok = false;
            last_rank = rank_of(in->face);
            seen[in->roller][in->face]++;
            ok &= strlen(in->text) > 20 && !strchr(in->text, '{');
        }
        for (int s = 0; s < 2 && ok; s++) {
            for (int k = 0; k < FACE_COUNT; k++)
                ok &= seen[s][k] == count[s][k];
            int want = cards[s] - count[1 - s][S];
            ok &= out.hand[s] >= 1 && out.hand[s] == (want < 1 ? 1 : want);
            ok &= out.stars_against[s] == count[1 - s][S];
            ok &= out.commissar_note[s] == (commissar == s && out.hand[s] == 1);
        }
        (void)second;
        if (!ok)
            failures++;
    }
    CU_ASSERT_EQUAL(failures, 0);
}

void register_victory_tests(void)
{
    CU_pSuite s = CU_add_suite("victory events", NULL, NULL);
    CU_add_test(s, "hand-written cases", test_hand_written_cases);
    CU_add_test(s, "instruction texts", test_instruction_texts);
    CU_add_test(s, "Political Commissar note", test_commissar_note_text);
    CU_add_test(s, "dice counts (2 + won; simplified: medals + won)", test_dice_counts);
    CU_add_test(s, "5000 random rolls", test_property_random_rolls);
}
