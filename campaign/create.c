/* A new campaign: its id, the three keys (kept only as hashes), the first server seed. */
#include "campaign/campaign.h"

#include "db/store.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void campaign_new_uuid(char out[CAMPAIGN_ID_LEN + 1])
{
    uint8_t b[16];
    randombytes_buf(b, sizeof b);
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, CAMPAIGN_ID_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

void campaign_new_key(char key[KEY_TEXT_LEN + 1], char hash_hex[65])
{
    uint8_t raw[32], h[32];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2base64(key, KEY_TEXT_LEN + 1, raw, sizeof raw,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    crypto_hash_sha256(h, (const unsigned char *)key, KEY_TEXT_LEN);
    sodium_bin2hex(hash_hex, 65, h, sizeof h);
    sodium_memzero(raw, sizeof raw);
}

enum cres campaign_create(struct db *db, const struct create_input *in, struct create_output *out,
                          struct cerr *e)
{
    memset(out, 0, sizeof *out);
    if (in->id) {
        long exists = db_campaign_exists(db, in->id);
        if (exists < 0)
            return C_DBERR;
        if (exists)
            return refuse(e, PROBLEM_CAMPAIGN_EXISTS, "campaign.id",
                          "A campaign or grand campaign with id %s already exists on this "
                          "server.",
                          in->id);
        snprintf(out->id, sizeof out->id, "%s", in->id);
    } else {
        campaign_new_uuid(out->id);
    }
    char hashes[3][65];
    for (int k = 0; k < 3; k++) {
        if (in->grand)
            snprintf(hashes[k], sizeof hashes[k], "%s", in->grand->key_hex[k]);
        else
            campaign_new_key(out->keys[k], hashes[k]);
    }
    char place[16];
    snprintf(place, sizeof place, "%d", in->grand ? in->grand->index : 0);
    char ta[16], tx[16];
    snprintf(ta, sizeof ta, "%d", in->tokens[SIDE_ALLIES]);
    snprintf(tx, sizeof tx, "%d", in->tokens[SIDE_AXIS]);
    char *scen = in->scenarios ? json_dumps(in->scenarios, JSON_COMPACT) : NULL;
    const char *p[] = {out->id,
                       in->name,
                       in->rse->rs->id,
                       in->what_if ? "true" : "false",
                       dice_mode_name(in->dice),
                       in->players[SIDE_ALLIES],
                       in->players[SIDE_AXIS],
                       ta,
                       tx,
                       hashes[ROLE_ORGANIZER],
                       hashes[ROLE_ALLIES],
                       hashes[ROLE_AXIS],
                       scen,
                       in->grand ? in->grand->id : NULL,
                       in->grand ? place : NULL};
    long ok = db_campaign_insert(db, p);
    free(scen);
    if (ok != 1)
        return C_DBERR;
    if (!in->no_seed) {
        uint8_t seed[SEED_BYTES];
        char hex[2 * SEED_BYTES + 1];
        randombytes_buf(seed, sizeof seed);
        dice_commitment(seed, out->commitment);
        sodium_bin2hex(hex, sizeof hex, seed, sizeof seed);
        sodium_memzero(seed, sizeof seed);
        ok = db_seed_insert(db, out->id, "1", hex, out->commitment, false, "server");
        sodium_memzero(hex, sizeof hex);
        if (ok != 1)
            return C_DBERR;
    }
    for (int s = 0; s < SIDE_COUNT; s++) {
        if (!in->tokens[s])
            continue;
        char d[16];
        snprintf(d, sizeof d, "%d", in->tokens[s]);
        const char *lp[] = {out->id, side_name((enum side)s), d, d, "start", NULL};
        if (!db_ledger_insert(db, lp))
            return C_DBERR;
    }
    json_t *log = json_pack(
        "{s:s, s:s, s:b, s:s, s:{s:i, s:i}, s:{s:s, s:s}, s:O?}", "name", in->name, "ruleset",
        in->rse->rs->id, "what_if", in->what_if, "dice", dice_mode_name(in->dice), "reserve_tokens",
        "allies", in->tokens[SIDE_ALLIES], "axis", in->tokens[SIDE_AXIS], "players", "allies",
        in->players[SIDE_ALLIES], "axis", in->players[SIDE_AXIS], "scenarios", in->scenarios);
    char *text = json_dumps(log, JSON_COMPACT);
    json_decref(log);
    bool logged = text && db_log_insert(db, out->id, "organizer", "campaign_created", text) &&
                  db_action_stamp(db, out->id);
    free(text);
    return logged ? C_OK : C_DBERR;
}
