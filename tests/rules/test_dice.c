/* Dice: faces, parsing, and the RULES.md 1.2 derivation against vectors made with openssl. */
#include "rules/rules.h"
#include "tests/common/testkit.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_die_faces(void)
{
    /* One die: infantry, infantry, armor, grenade, star, flag. */
    const enum face want[6] = {FACE_INFANTRY, FACE_INFANTRY, FACE_ARMOR,
                               FACE_GRENADE,  FACE_STAR,     FACE_FLAG};
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(face_of_index(i), want[i]);
}

static void test_face_names(void)
{
    static const struct {
        const char *name;
        bool ok;
        enum face f;
    } cases[] = {
        {"infantry", true, FACE_INFANTRY},
        {"armor", true, FACE_ARMOR},
        {"grenade", true, FACE_GRENADE},
        {"star", true, FACE_STAR},
        {"flag", true, FACE_FLAG},
        {"Infantry", false, 0},
        {"armour", false, 0},
        {"tank", false, 0},
        {"", false, 0},
        {"star ", false, 0},
        {"infantry\n", false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum face f = FACE_FLAG;
        CU_ASSERT_EQUAL(face_parse(cases[i].name, &f), cases[i].ok);
        if (cases[i].ok) {
            CU_ASSERT_EQUAL(f, cases[i].f);
            CU_ASSERT_STRING_EQUAL(face_name(f), cases[i].name);
        }
    }
    enum face f;
    CU_ASSERT_FALSE(face_parse(NULL, &f));
    enum side s;
    CU_ASSERT_TRUE(side_parse("allies", &s) && s == SIDE_ALLIES);
    CU_ASSERT_TRUE(side_parse("axis", &s) && s == SIDE_AXIS);
    CU_ASSERT_FALSE(side_parse("Axis", &s));
    CU_ASSERT_FALSE(side_parse("organizer", &s));
    CU_ASSERT_EQUAL(side_other(SIDE_ALLIES), SIDE_AXIS);
    CU_ASSERT_EQUAL(side_other(SIDE_AXIS), SIDE_ALLIES);
}

/* tests/rules/vectors/dice_vectors.txt, made by make_vectors.sh with openssl. */
static void test_vectors(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/rules/vectors/dice_vectors.txt", tk_env("M44_ROOT"));
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[8192];
    int vectors = 0, rejected_total = 0, at_252 = 0, multi_block = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *field[9];
        int nf = 0;
        for (char *p = line; nf < 9; nf++) {
            field[nf] = p;
            char *tab = strchr(p, '\t');
            if (!tab) {
                nf++;
                break;
            }
            *tab = '\0';
            p = tab + 1;
        }
        CU_ASSERT_EQUAL_FATAL(nf, 9);
        uint8_t seed[SEED_BYTES];
        size_t len;
        CU_ASSERT_EQUAL_FATAL(
            sodium_hex2bin(seed, sizeof seed, field[0], strlen(field[0]), NULL, &len, NULL), 0);
        char commitment[65];
        dice_commitment(seed, commitment);
        CU_ASSERT_STRING_EQUAL(commitment, field[1]);
        long n = atol(field[3]);
        int count = atoi(field[5]);
        rejected_total += atoi(field[6]);
        at_252 += atoi(field[7]);
        multi_block += count > 28;
        enum face got[RULES_MAX_DICE];
        CU_ASSERT_EQUAL_FATAL(dice_derive(seed, field[2], n, field[4], count, got), 0);
        char text[RULES_MAX_DICE * 10] = "";
        for (int i = 0; i < count; i++) {
            size_t l = strlen(text);
            snprintf(text + l, sizeof text - l, "%s%s", i ? "," : "", face_name(got[i]));
        }
        if (strcmp(text, field[8]) != 0)
            fprintf(stderr, "\nvector %s:%s:%s: got %s want %s\n", field[2], field[3], field[4],
                    text, field[8]);
        CU_ASSERT_STRING_EQUAL(text, field[8]);
        vectors++;
    }
    fclose(f);
    CU_ASSERT(vectors >= 20);
    CU_ASSERT(rejected_total >= 1); /* the bytes >= 252 rule is exercised */
    CU_ASSERT(at_252 >= 3);         /* at its boundary: a byte of exactly 252 is skipped */
    CU_ASSERT(multi_block >= 1);    /* and the k = 1, 2 ... blocks */
}

static void test_derive_bounds(void)
{
    uint8_t seed[SEED_BYTES] = {0};
    enum face out[RULES_MAX_DICE];
    CU_ASSERT_EQUAL(dice_derive(seed, "c", 0, "", 2, out), -1); /* rolls start at 1 */
    CU_ASSERT_EQUAL(dice_derive(seed, "c", 1, "", RULES_MAX_DICE + 1, out), -1);
    char long_seed[CLIENT_SEED_MAX + 2];
    memset(long_seed, 'x', sizeof long_seed - 1);
    long_seed[sizeof long_seed - 1] = '\0';
    CU_ASSERT_EQUAL(dice_derive(seed, "c", 1, long_seed, 2, out), -1);
    long_seed[CLIENT_SEED_MAX] = '\0';
    CU_ASSERT_EQUAL(dice_derive(seed, "c", 1, long_seed, 2, out), 0);
    /* The same inputs give the same faces; another roll number gives an independent stream. */
    enum face a[40], b[40], c[40];
    dice_derive(seed, "c", 5, "s", 40, a);
    dice_derive(seed, "c", 5, "s", 40, b);
    dice_derive(seed, "c", 6, "s", 40, c);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof a), 0);
    CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof a), 0);
}

/* Over many rolls the faces come out near 1/3 infantry and 1/6 each other symbol. */
static void test_distribution(void)
{
    uint8_t seed[SEED_BYTES];
    for (int i = 0; i < SEED_BYTES; i++)
        seed[i] = (uint8_t)(i * 7 + 3);
    long counts[FACE_COUNT] = {0};
    enum face out[60];
    const int rolls = 2000, per = 60;
    for (int n = 1; n <= rolls; n++) {
        dice_derive(seed, "distribution", n, "", per, out);
        for (int i = 0; i < per; i++)
            counts[out[i]]++;
    }
    double total = (double)rolls * per;
    double expect[FACE_COUNT] = {total / 3, total / 6, total / 6, total / 6, total / 6};
    double chi = 0;
    for (int f = 0; f < FACE_COUNT; f++)
        chi += (counts[f] - expect[f]) * (counts[f] - expect[f]) / expect[f];
    /* 4 degrees of freedom: 18.47 is the 0.1% critical value. */
    CU_ASSERT(chi < 18.47);
}

void register_dice_tests(void)
{
    CU_pSuite s = CU_add_suite("dice", NULL, NULL);
    CU_add_test(s, "six faces of a die", test_die_faces);
    CU_add_test(s, "face and side names", test_face_names);
    CU_add_test(s, "derivation matches openssl vectors", test_vectors);
    CU_add_test(s, "derivation bounds and determinism", test_derive_bounds);
    CU_add_test(s, "face distribution", test_distribution);
}
