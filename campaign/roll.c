/* One roll: dice source, roll number, derivation or table faces, storage. */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "db/store.h"
#include "campaign/rules_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct seed *campaign_secret_seed(const struct campaign *c, struct cerr *e)
{
    const struct seed *s = NULL;
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].epoch == c->seed_epoch)
            s = &c->seeds[i];
    if (s && s->known && !s->revealed && !s->from_document)
        return s;
    refuse(e, PROBLEM_SEED_NOT_SECRET, NULL,
           "The server cannot roll: its current seed is %s. The organizer must rotate the seed "
           "(POST .../rotate-seed) to draw a new secret one; nothing was rolled.",
           !s            ? "missing"
           : !s->known   ? "not held by this server"
           : s->revealed ? "already revealed"
                         : "public (it came in an imported document)");
    return NULL;
}

void faces_to_sql(const enum face *f, int n, char *out, size_t len)
{
    size_t o = (size_t)snprintf(out, len, "{");
    for (int i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s", i ? "," : "", face_name(f[i]));
    if (o < len)
        snprintf(out + o, len - o, "}");
}

/* Checks the request's dice source against the campaign's and the count against the roll. */
static enum cres check_source(const struct campaign *c, const struct roll_input *in, int count,
                              const char *what, struct cerr *e)
{
    if (in->recorded)
        return C_OK;
    if (in->table && c->dice == DICE_SERVER)
        return refuse(e, PROBLEM_DICE_NOT_ALLOWED, "faces",
                      "This campaign's dice are rolled by the server: send no faces (a "
                      "client_seed if you like).");
    if (!in->table && c->dice == DICE_TABLE)
        return refuse(e, PROBLEM_DICE_NOT_ALLOWED, "faces",
                      "This campaign's dice are rolled at the table: send the faces rolled, "
                      "{\"faces\": [...]} with %d face%s.",
                      count, count == 1 ? "" : "s");
    if (in->table && in->nfaces != count)
        return refuse(e, PROBLEM_INVALID_FACES, "faces", "%s is %d di%s; %d face%s given.", what,
                      count, count == 1 ? "e" : "ce", in->nfaces, in->nfaces == 1 ? "" : "s");
    return C_OK;
}

enum cres roll_draw(struct campaign *c, enum side side, const char *purpose, int count,
                    const struct roll_input *in, struct roll *out, struct cerr *e)
{
    const char *what = strcmp(purpose, "reserve") == 0      ? "A reserve roll"
                       : strcmp(purpose, "what_if") == 0    ? "A What-if roll"
                       : strcmp(purpose, "pre_battle") == 0 ? "This pre-battle roll"
                                                            : "This victory event roll";
    enum cres rc = check_source(c, in, count, what, e);
    if (rc != C_OK)
        return rc;
    memset(out, 0, sizeof *out);
    out->side = side;
    out->count = count;
    out->n = c->next_roll;
    out->table = in->table;
    if (in->recorded) {
        /* Import: the roll stands as exported; numbers must still run 1, 2, 3 ... */
        if (in->recorded_n != c->next_roll || in->nfaces != count)
            return refuse(e, PROBLEM_INVALID_FIELD, "n",
                          "Roll %ld in the export should be roll %ld with %d faces.",
                          in->recorded_n, c->next_roll, count);
        if (in->recorded_epoch && in->recorded_epoch != c->seed_epoch)
            return refuse(e, PROBLEM_INVALID_FIELD, "seed_epoch",
                          "Roll %ld names seed %d; the seed in force is %d.", in->recorded_n,
                          in->recorded_epoch, c->seed_epoch);
        out->epoch = in->recorded_epoch;
        out->table = in->recorded_epoch == 0;
        out->at = in->recorded_at && *in->recorded_at ? in->recorded_at : NULL;
        memcpy(out->faces, in->faces, sizeof(enum face) * (size_t)count);
        snprintf(out->client_seed, sizeof out->client_seed, "%s", in->client_seed);
        return C_OK;
    }
    if (in->table) {
        memcpy(out->faces, in->faces, sizeof(enum face) * (size_t)count);
        return C_OK;
    }
    const struct seed *s = campaign_secret_seed(c, e);
    if (!s)
        return C_REFUSED;
    snprintf(out->client_seed, sizeof out->client_seed, "%s", in->client_seed);
    out->epoch = s->epoch;
    if (dice_derive(s->bytes, c->id, out->n, out->client_seed, count, out->faces) != 0)
        return refuse(e, PROBLEM_INVALID_FIELD, "client_seed",
                      "client_seed must be at most %d bytes.", CLIENT_SEED_MAX);
    return C_OK;
}

enum cres roll_store(struct db *db, struct campaign *c, const char *purpose, int battle,
                     const struct roll *r, json_t *detail)
{
    char n[24], bat[16], ep[16], faces[RULES_MAX_DICE * 10 + 4];
    snprintf(n, sizeof n, "%ld", r->n);
    snprintf(bat, sizeof bat, "%d", battle);
    snprintf(ep, sizeof ep, "%d", r->epoch);
    faces_to_sql(r->faces, r->count, faces, sizeof faces);
    char *det = detail ? json_dumps(detail, JSON_COMPACT) : NULL;
    json_decref(detail);
    /* The event log's line goes in with the roll, in the same statement. */
    json_t *log = json_pack("{s:i, s:s, s:s, s:i, s:s, s:o, s:o, s:o}", "n", (int)r->n, "side",
                            side_name(r->side), "purpose", purpose, "battle", battle, "source",
                            r->table ? "table" : "server", "client_seed",
                            r->table ? json_null() : json_string(r->client_seed), "seed_epoch",
                            r->table ? json_null() : json_integer(r->epoch), "faces",
                            faces_to_json(r->faces, r->count));
    if (log)
        campaign_note_last(c, side_name(r->side), "roll", log);
    char *logtext = log ? json_dumps(log, JSON_COMPACT) : NULL;
    json_decref(log);
    const char *p[] = {c->id,
                       n,
                       side_name(r->side),
                       purpose,
                       bat,
                       r->table ? "table" : "server",
                       r->table ? NULL : r->client_seed,
                       r->table ? NULL : ep,
                       faces,
                       det,
                       side_name(r->side),
                       "roll",
                       logtext ? logtext : "{}"};
    /* Made from the campaign held (whether the side rolled is not read), a roll that clashes
     * with one stored fails the write as one that moved on: it runs again from a load. */
    bool queued = r->at           ? db_roll_insert_at(db, p, r->at)
                  : c->optimistic ? db_roll_insert_held(db, p)
                                  : db_roll_insert(db, p);
    free(det);
    free(logtext);
    if (!queued)
        return C_DBERR;
    c->next_roll++;
    /* The chat hears of victory-event dice and reserve rolls here; What-if and pre-battle
     * rolls where what they mean is known. */
    const char *what = strcmp(purpose, "victory_events") == 0 ? "victory-event dice"
                       : strcmp(purpose, "reserve") == 0      ? "reserves"
                                                              : NULL;
    if (!what)
        return C_OK;
    char text[RULES_MAX_DICE * 12];
    chat_faces(r->faces, r->count, text, sizeof text);
    return chat_tell(db, c, purpose, "%s rolled their %s for battle %d (%s): %s.",
                     side_title(r->side), what, battle, r->table ? "at the table" : "server dice",
                     text);
}
