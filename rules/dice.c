/* Sides, die faces, and the verifiable derivation of server rolls (RULES.md 1). */
#include "rules/rules.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

static const char *const side_names[SIDE_COUNT] = {"allies", "axis"};
static const char *const side_titles[SIDE_COUNT] = {"Allies", "Axis"};
static const char *const side_adjectives[SIDE_COUNT] = {"Allied", "Axis"};
static const char *const face_names[FACE_COUNT] = {"infantry", "armor", "grenade", "star", "flag"};
/* The six faces of a battle die, in the order of RULES.md 1.2. */
static const enum face die_faces[6] = {FACE_INFANTRY, FACE_INFANTRY, FACE_ARMOR,
                                       FACE_GRENADE,  FACE_STAR,     FACE_FLAG};

const char *side_name(enum side s)
{
    return side_names[s == SIDE_AXIS];
}

const char *side_title(enum side s)
{
    return side_titles[s == SIDE_AXIS];
}

const char *side_adjective(enum side s)
{
    return side_adjectives[s == SIDE_AXIS];
}

enum side side_other(enum side s)
{
    return s == SIDE_ALLIES ? SIDE_AXIS : SIDE_ALLIES;
}

bool side_parse(const char *name, enum side *out)
{
    for (int i = 0; i < SIDE_COUNT; i++)
        if (name && strcmp(name, side_names[i]) == 0) {
            *out = (enum side)i;
            return true;
        }
    return false;
}

const char *face_name(enum face f)
{
    return (unsigned)f < FACE_COUNT ? face_names[f] : "?";
}

bool face_parse(const char *name, enum face *out)
{
    for (int i = 0; i < FACE_COUNT; i++)
        if (name && strcmp(name, face_names[i]) == 0) {
            *out = (enum face)i;
            return true;
        }
    return false;
}

enum face face_of_index(int index)
{
    return die_faces[index];
}

int dice_derive(const uint8_t seed[SEED_BYTES], const char *campaign_id, long n,
                const char *client_seed, int count, enum face *out)
{
    if (!campaign_id || n < 1 || count < 0 || count > RULES_MAX_DICE)
        return -1;
    if (!client_seed)
        client_seed = "";
    if (strlen(client_seed) > CLIENT_SEED_MAX || strlen(campaign_id) > 128)
        return -1;
    int got = 0;
    for (long k = 0; got < count; k++) {
        char msg[128 + 24 + CLIENT_SEED_MAX + 24 + 8];
        int len = snprintf(msg, sizeof msg, "%s:%ld:%s:%ld", campaign_id, n, client_seed, k);
        uint8_t mac[crypto_auth_hmacsha256_BYTES];
        crypto_auth_hmacsha256_state st;
        crypto_auth_hmacsha256_init(&st, seed, SEED_BYTES);
        crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, (unsigned long long)len);
        crypto_auth_hmacsha256_final(&st, mac);
        for (size_t i = 0; i < sizeof mac && got < count; i++)
            if (mac[i] < 252)
                out[got++] = die_faces[mac[i] % 6];
    }
    return 0;
}

void dice_commitment(const uint8_t seed[SEED_BYTES], char out[65])
{
    uint8_t hash[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(hash, seed, SEED_BYTES);
    sodium_bin2hex(out, 65, hash, sizeof hash);
}
