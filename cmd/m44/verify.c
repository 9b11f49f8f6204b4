#include "cmd/m44/verify.h"

#include "rules/rules.h"
#include "campaign/rules_json.h"

#include <jansson.h>
#include <sodium.h>
#include <string.h>

#define MAX_EPOCHS 64

struct epoch {
    long number;
    bool revealed;
    bool valid; /* revealed and matching its commitment */
    uint8_t seed[SEED_BYTES];
};

static void faces_text(const enum face *f, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", i ? "," : "", face_name(f[i]));
    }
}

int verify_export(const char *path, FILE *out, FILE *err)
{
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        fprintf(err, "m44 verify: %s: line %d: %s\n", path, je.line, je.text);
        return VERIFY_UNREADABLE;
    }
    const char *id = json_string_value(json_object_get(json_object_get(doc, "campaign"), "id"));
    json_t *seeds = json_object_get(doc, "seeds"), *rolls = json_object_get(doc, "rolls");
    if (!id || !json_is_array(seeds) || !json_is_array(rolls)) {
        fprintf(err, "m44 verify: %s: not a campaign export (needs campaign.id, seeds, rolls)\n",
                path);
        json_decref(doc);
        return VERIFY_UNREADABLE;
    }
    static struct epoch epochs[MAX_EPOCHS];
    int nepochs = 0, mismatches = 0, verified = 0, unverified = 0, table = 0;
    for (size_t i = 0; i < json_array_size(seeds) && nepochs < MAX_EPOCHS; i++) {
        json_t *s = json_array_get(seeds, i);
        struct epoch *e = &epochs[nepochs++];
        memset(e, 0, sizeof *e);
        e->number = (long)json_integer_value(json_object_get(s, "epoch"));
        const char *commitment = json_string_value(json_object_get(s, "commitment"));
        const char *hex = json_string_value(json_object_get(s, "server_seed"));
        if (!hex) {
            fprintf(out, "seed %ld: not revealed yet (commitment %s)\n", e->number,
                    commitment ? commitment : "?");
            continue;
        }
        e->revealed = true;
        size_t len = 0;
        char want[65];
        if (sodium_hex2bin(e->seed, SEED_BYTES, hex, strlen(hex), NULL, &len, NULL) != 0 ||
            len != SEED_BYTES) {
            fprintf(out, "seed %ld: MISMATCH: server_seed is not 64 hex characters\n", e->number);
            mismatches++;
            continue;
        }
        dice_commitment(e->seed, want);
        if (!commitment || strcmp(want, commitment) != 0) {
            fprintf(out, "seed %ld: MISMATCH: SHA-256(server_seed) = %s, commitment was %s\n",
                    e->number, want, commitment ? commitment : "(none)");
            mismatches++;
            continue;
        }
        e->valid = true;
        fprintf(out, "seed %ld: revealed, matches its commitment %s\n", e->number, commitment);
    }
    for (size_t i = 0; i < json_array_size(rolls); i++) {
        json_t *r = json_array_get(rolls, i);
        long n = (long)json_integer_value(json_object_get(r, "n"));
        const char *side = json_string_value(json_object_get(r, "side"));
        const char *purpose = json_string_value(json_object_get(r, "purpose"));
        const char *source = json_string_value(json_object_get(r, "source"));
        const char *client_seed = json_string_value(json_object_get(r, "client_seed"));
        static enum face got[RULES_MAX_DICE], want[RULES_MAX_DICE];
        int nf = faces_from_json(json_object_get(r, "faces"), got, RULES_MAX_DICE);
        char label[128], text[RULES_MAX_DICE * 10];
        snprintf(label, sizeof label, "roll %ld (%s, %s, %s)", n, side ? side : "?",
                 purpose ? purpose : "?", source ? source : "?");
        if (n != (long)i + 1) {
            fprintf(out, "%s: MISMATCH: expected roll number %zu (numbers must run 1..N)\n", label,
                    i + 1);
            mismatches++;
        }
        if (nf < 0) {
            fprintf(out, "%s: MISMATCH: faces are not a list of die faces\n", label);
            mismatches++;
            continue;
        }
        faces_text(got, nf, text, sizeof text);
        if (!source || strcmp(source, "server") != 0) {
            fprintf(out, "%s: %s entered from the table (nothing to recompute)\n", label, text);
            table++;
            continue;
        }
        long ep = (long)json_integer_value(json_object_get(r, "seed_epoch"));
        const struct epoch *e = NULL;
        for (int k = 0; k < nepochs; k++)
            if (epochs[k].number == ep)
                e = &epochs[k];
        if (!e || !e->revealed) {
            fprintf(out, "%s: %s NOT VERIFIED: seed %ld is not revealed\n", label, text, ep);
            unverified++;
            continue;
        }
        if (!e->valid) {
            fprintf(out, "%s: %s MISMATCH: its seed does not match the commitment\n", label, text);
            mismatches++;
            continue;
        }
        if (dice_derive(e->seed, id, n, client_seed ? client_seed : "", nf, want) != 0 ||
            memcmp(got, want, sizeof(enum face) * (size_t)nf) != 0) {
            char wtext[RULES_MAX_DICE * 10];
            faces_text(want, nf, wtext, sizeof wtext);
            fprintf(out, "%s: %s MISMATCH: the seed gives %s\n", label, text, wtext);
            mismatches++;
            continue;
        }
        fprintf(out, "%s: %s OK\n", label, text);
        verified++;
    }
    fprintf(out,
            "%d server roll(s) verified, %d mismatch(es), %d not verifiable, %d from the table\n",
            verified, mismatches, unverified, table);
    json_decref(doc);
    if (mismatches) {
        fprintf(out, "FAILED: %d mismatch(es): some roll is not what its seed gives\n", mismatches);
        return VERIFY_MISMATCH;
    }
    if (unverified) {
        fprintf(out,
                "NOT VERIFIED: %d server roll(s) cannot be checked until their seed is revealed "
                "(the campaign must finish, or the organizer rotate the seed)\n",
                unverified);
        return VERIFY_INCOMPLETE;
    }
    fprintf(out, "VERIFIED: every server roll matches its revealed seed\n");
    return VERIFY_OK;
}
