#include "cmd/m44/verify.h"

#include "campaign/grand_rulesets.h"
#include "campaign/import.h"
#include "campaign/rules_json.h"
#include "rules/rules.h"

#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

struct epoch {
    long number;
    bool revealed;
    bool valid;    /* revealed and matching its commitment */
    bool imported; /* it came to the exporting server in an imported document */
    uint8_t seed[SEED_BYTES];
};

/*
 * The record as a whole, as an import would read it (campaign/import.h): the dice source of
 * every roll, the seed in force, epochs in order, the number of dice of every roll, nothing
 * after the end, "rolls" the same as the actions' rolls. Returns false (printed) when it is
 * not a consistent record; *unknown when this m44 does not know the ruleset to check it by.
 */
static bool record_consistent(json_t *doc, FILE *out, bool *unknown)
{
    struct import_plan *plan = calloc(1, sizeof *plan);
    struct cerr e = {0};
    enum cres rc = plan ? import_parse(doc, plan, &e) : C_REFUSED;
    if (plan)
        import_plan_free(plan);
    free(plan);
    if (rc == C_OK)
        return true;
    *unknown = e.code == PROBLEM_RULESET_UNAVAILABLE;
    fprintf(out, "record: %s: %s%s%s%s\n", *unknown ? "CANNOT CHECK" : "MISMATCH", e.detail,
            e.field[0] ? " (at " : "", e.field, e.field[0] ? ")" : "");
    return false;
}

static void faces_text(const enum face *f, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", i ? "," : "", face_name(f[i]));
    }
}

/* Whether a document has what a campaign's export needs to be read at all. */
static bool campaign_readable(json_t *doc)
{
    return json_string_value(json_object_get(json_object_get(doc, "campaign"), "id")) &&
           json_is_array(json_object_get(doc, "seeds")) &&
           json_is_array(json_object_get(doc, "rolls"));
}

struct tally {
    int mismatches; /* in the seeds and rolls: a seed, a roll's number, faces or dice */
    int record;     /* the record as a whole: not one m44d would have made */
    int verified, unverified, imported, table;
    int lost; /* of a finished campaign, whose seed the record does not hold */
    bool unknown_ruleset;
};

/* Checks one campaign's export; counts into `t`. */
static void verify_campaign(json_t *doc, FILE *out, struct tally *t)
{
    json_t *camp = json_object_get(doc, "campaign");
    const char *id = json_string_value(json_object_get(camp, "id"));
    const char *status = json_string_value(json_object_get(camp, "status"));
    /* A finished campaign has revealed every seed: one missing is not in this record (the
     * campaign was brought in from a backup without it), and will never be revealed. */
    bool finished = status && strcmp(status, "finished") == 0;
    json_t *seeds = json_object_get(doc, "seeds"), *rolls = json_object_get(doc, "rolls");
    static struct epoch epochs[MAX_EPOCHS];
    int nepochs = 0;
    bool unknown = false;
    if (!record_consistent(doc, out, &unknown) && !unknown)
        t->record++;
    t->unknown_ruleset |= unknown;
    for (size_t i = 0; i < json_array_size(seeds) && nepochs < MAX_EPOCHS; i++) {
        json_t *s = json_array_get(seeds, i);
        struct epoch *e = &epochs[nepochs++];
        memset(e, 0, sizeof *e);
        e->number = (long)json_integer_value(json_object_get(s, "epoch"));
        const char *origin = json_string_value(json_object_get(s, "origin"));
        e->imported = origin && strcmp(origin, "import") == 0;
        if (!origin)
            fprintf(out,
                    "seed %ld: the export does not say where it came from (exports made before "
                    "seeds said so): taken as drawn by the server that exported it\n",
                    e->number);
        const char *commitment = json_string_value(json_object_get(s, "commitment"));
        const char *hex = json_string_value(json_object_get(s, "server_seed"));
        if (!hex) {
            fprintf(out,
                    finished ? "seed %ld: not in this record, though the campaign is finished "
                               "(commitment %s)\n"
                             : "seed %ld: not revealed yet (commitment %s)\n",
                    e->number, commitment ? commitment : "?");
            continue;
        }
        e->revealed = true;
        size_t len = 0;
        char want[65];
        if (sodium_hex2bin(e->seed, SEED_BYTES, hex, strlen(hex), NULL, &len, NULL) != 0 ||
            len != SEED_BYTES) {
            fprintf(out, "seed %ld: MISMATCH: server_seed is not 64 hex characters\n", e->number);
            t->mismatches++;
            continue;
        }
        dice_commitment(e->seed, want);
        if (!commitment || strcmp(want, commitment) != 0) {
            fprintf(out, "seed %ld: MISMATCH: SHA-256(server_seed) = %s, commitment was %s\n",
                    e->number, want, commitment ? commitment : "(none)");
            t->mismatches++;
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
            t->mismatches++;
        }
        if (nf < 0) {
            fprintf(out, "%s: MISMATCH: faces are not a list of die faces\n", label);
            t->mismatches++;
            continue;
        }
        faces_text(got, nf, text, sizeof text);
        if (!source || strcmp(source, "server") != 0) {
            fprintf(out, "%s: %s entered from the table (nothing to recompute)%s\n", label, text,
                    json_is_true(json_object_get(r, "voided"))
                        ? "; undone at the table, and entered again"
                        : "");
            t->table++;
            continue;
        }
        long ep = (long)json_integer_value(json_object_get(r, "seed_epoch"));
        const struct epoch *e = NULL;
        for (int k = 0; k < nepochs; k++)
            if (epochs[k].number == ep)
                e = &epochs[k];
        if (!e || !e->revealed) {
            fprintf(out, "%s: %s NOT VERIFIED: seed %ld is %s\n", label, text, ep,
                    finished ? "not in this record" : "not revealed");
            if (finished)
                t->lost++;
            else
                t->unverified++;
            continue;
        }
        if (!e->valid) {
            fprintf(out, "%s: %s MISMATCH: its seed does not match the commitment\n", label, text);
            t->mismatches++;
            continue;
        }
        if (dice_derive(e->seed, id, n, client_seed ? client_seed : "", nf, want) != 0 ||
            memcmp(got, want, sizeof(enum face) * (size_t)nf) != 0) {
            char wtext[RULES_MAX_DICE * 10];
            faces_text(want, nf, wtext, sizeof wtext);
            fprintf(out, "%s: %s MISMATCH: the seed gives %s\n", label, text, wtext);
            t->mismatches++;
            continue;
        }
        if (e->imported) {
            /* Its seed came in a document: consistent with it, but nobody here held it
             * secret before the roll. */
            fprintf(out, "%s: %s NOT VERIFIED HERE: matches seed %ld, which came with an import\n",
                    label, text, ep);
            t->imported++;
            continue;
        }
        fprintf(out, "%s: %s OK\n", label, text);
        t->verified++;
    }
}

/* A grand campaign's export: each campaign's, in the order of its grand ruleset. */
static void verify_grand(json_t *doc, FILE *out, struct tally *t)
{
    json_t *gc = json_object_get(doc, "grand_campaign");
    json_t *list = json_object_get(doc, "campaigns");
    const char *grid = json_string_value(json_object_get(gc, "grand_ruleset"));
    const struct grand_ruleset *gr = grid ? grand_ruleset_find(grid) : NULL;
    fprintf(out, "grand campaign %s: %zu campaign(s)\n",
            json_string_value(json_object_get(gc, "name")), json_array_size(list));
    if (!gr) {
        fprintf(out,
                "record: CANNOT CHECK the order of the campaigns: the grand ruleset %s is not "
                "known to this m44\n",
                grid ? grid : "(none)");
        t->unknown_ruleset = true;
    } else if (json_array_size(list) > (size_t)gr->ncampaigns) {
        fprintf(out, "record: MISMATCH: %s has %d campaigns, the record %zu\n", gr->name,
                gr->ncampaigns, json_array_size(list));
        t->record++;
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *c = json_array_get(list, i);
        json_t *camp = json_object_get(c, "campaign");
        const char *ruleset = json_string_value(json_object_get(camp, "ruleset"));
        const char *status = json_string_value(json_object_get(camp, "status"));
        fprintf(out, "campaign %zu: %s\n", i + 1, json_string_value(json_object_get(camp, "name")));
        if (gr && i < (size_t)gr->ncampaigns &&
            (!ruleset || strcmp(ruleset, gr->campaigns[i].ruleset) != 0)) {
            fprintf(out,
                    "record: MISMATCH: campaign %zu of %s is played with %s, the record says "
                    "%s\n",
                    i + 1, gr->name, gr->campaigns[i].ruleset, ruleset ? ruleset : "(none)");
            t->record++;
        }
        if (i + 1 < json_array_size(list) && (!status || strcmp(status, "finished") != 0)) {
            fprintf(out,
                    "record: MISMATCH: campaign %zu is not finished, yet the next one "
                    "started\n",
                    i + 1);
            t->record++;
        }
        verify_campaign(c, out, t);
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
    const char *format = json_string_value(json_object_get(doc, "format"));
    bool grand = format && strcmp(format, "m44d-grand-campaign-export") == 0;
    bool readable = false;
    if (grand) {
        json_t *list = json_object_get(doc, "campaigns");
        readable = json_is_array(list);
        for (size_t i = 0; readable && i < json_array_size(list); i++)
            readable = campaign_readable(json_array_get(list, i));
    } else {
        readable = campaign_readable(doc);
    }
    if (!readable) {
        fprintf(err,
                "m44 verify: %s: not a campaign export (needs campaign.id, seeds, rolls) nor a "
                "grand campaign export (needs campaigns, each a campaign export)\n",
                path);
        json_decref(doc);
        return VERIFY_UNREADABLE;
    }
    struct tally t = {0};
    if (grand)
        verify_grand(doc, out, &t);
    else
        verify_campaign(doc, out, &t);
    json_decref(doc);
    fprintf(out,
            "%d server roll(s) verified, %d mismatch(es), %d not verifiable, %d not verifiable "
            "here (imported), %d from the table\n",
            t.verified, t.mismatches + t.record, t.unverified + t.lost, t.imported, t.table);
    if (t.mismatches || t.record) {
        if (t.mismatches)
            fprintf(out,
                    "FAILED: %d mismatch(es) in the seeds and rolls (the MISMATCH lines above)\n",
                    t.mismatches);
        if (t.record)
            fprintf(out,
                    "FAILED: the record is not one m44d would have made (the \"record:\" "
                    "line%s above)\n",
                    t.record == 1 ? "" : "s");
        return VERIFY_MISMATCH;
    }
    if (t.unknown_ruleset) {
        fprintf(out, "NOT VERIFIED: the ruleset of this campaign is not known to this m44 (give "
                     "its file with --rulesets-dir)\n");
        return VERIFY_INCOMPLETE;
    }
    if (t.unverified || t.lost || t.imported) {
        if (t.lost)
            fprintf(out,
                    "NOT VERIFIED: %d server roll(s) can never be checked: their campaign is "
                    "finished, yet this record does not hold their seed (the campaign was "
                    "brought in from a backup without it)\n",
                    t.lost);
        if (t.unverified)
            fprintf(out,
                    "NOT VERIFIED: %d server roll(s) cannot be checked until their seed is "
                    "revealed (the campaign must finish, or the organizer rotate the seed)\n",
                    t.unverified);
        if (t.imported)
            fprintf(out,
                    "NOT VERIFIED: %d server roll(s) were made before the campaign was "
                    "imported; their seed came with it, so this record cannot show it was "
                    "secret before they were rolled: verify them with the export of the server "
                    "that rolled them\n",
                    t.imported);
        return VERIFY_INCOMPLETE;
    }
    if (!t.verified) {
        /* Nothing a server rolled: true that none failed, but nothing was shown either. */
        if (t.table)
            fprintf(out,
                    "NOTHING TO VERIFY: every roll (%d) was entered from the table; no server "
                    "roll to check\n",
                    t.table);
        else
            fprintf(out, "NOTHING TO VERIFY: no dice were rolled\n");
        return VERIFY_OK;
    }
    fprintf(out, "VERIFIED: every server roll matches its revealed seed\n");
    return VERIFY_OK;
}
