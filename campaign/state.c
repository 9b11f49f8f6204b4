/* Loading and saving a campaign, its derived standing, roles, tokens and the event log. */
#include "campaign/campaign.h"

#include "campaign/rulesets.h"
#include "campaign/state_cache.h"
#include "db/store.h"
#include "campaign/ruleset_load.h"
#include "util/log.h"
#include "util/text.h"

#include <ctype.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const phase_names[] = {"setup", "victory_events", "reserves", "ready",
                                          "finished"};
static const char *const dice_names[] = {"server", "table", "either"};

const char *phase_name(enum phase p)
{
    return (unsigned)p <= PHASE_FINISHED ? phase_names[p] : "?";
}

const char *phase_words(enum phase p)
{
    static const char *const words[] = {"being set up", "at its victory event rolls",
                                        "at its reserve rolls", "being played", "finished"};
    return (unsigned)p <= PHASE_FINISHED ? words[p] : "?";
}

bool phase_parse(const char *s, enum phase *out)
{
    for (int i = 0; s && i <= PHASE_FINISHED; i++)
        if (strcmp(s, phase_names[i]) == 0) {
            *out = (enum phase)i;
            return true;
        }
    return false;
}

const char *dice_mode_name(enum dice_mode d)
{
    return (unsigned)d <= DICE_EITHER ? dice_names[d] : "?";
}

bool dice_mode_parse(const char *s, enum dice_mode *out)
{
    for (int i = 0; s && i <= DICE_EITHER; i++)
        if (strcmp(s, dice_names[i]) == 0) {
            *out = (enum dice_mode)i;
            return true;
        }
    return false;
}

const char *role_name(enum role r)
{
    switch (r) {
    case ROLE_ALLIES:
        return "allies";
    case ROLE_AXIS:
        return "axis";
    case ROLE_ORGANIZER:
        return "organizer";
    case ROLE_NONE:
        break;
    }
    return "none";
}

bool canonical_uuid(const char *text, char out[CAMPAIGN_ID_LEN + 1])
{
    if (!text || strlen(text) != CAMPAIGN_ID_LEN)
        return false;
    for (int i = 0; i < CAMPAIGN_ID_LEN; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? text[i] != '-' : !isxdigit((unsigned char)text[i]))
            return false;
        out[i] = (char)tolower((unsigned char)text[i]);
    }
    out[CAMPAIGN_ID_LEN] = '\0';
    return true;
}

enum cres refuse(struct cerr *e, enum problem_code code, const char *field, const char *fmt, ...)
{
    e->code = code;
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    e->phase = NULL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    /* A long one ends on a whole letter; a name quoted cut short (%.80s) shows '?' for the
     * letter cut: both stay valid JSON. */
    text_mend_utf8(e->detail);
    text_mend_utf8(e->field);
    return C_REFUSED;
}

struct campaign *campaign_new(void)
{
    return calloc(1, sizeof(struct campaign));
}

/* What the campaign owns, let go (the struct itself still holds the pointers). */
static void release(struct campaign *c)
{
    json_decref(c->scenarios_json);
    if (c->scenarios && c->scenarios_json)
        free(c->scenarios); /* only the campaign's own list is ours */
    for (int i = 0; i < c->neffects; i++)
        json_decref(c->effects[i].data);
    json_decref(c->last.detail);
    free(c->webhook_url);
}

void campaign_clear(struct campaign *c)
{
    release(c);
    memset(c, 0, sizeof *c);
}

void campaign_free(struct campaign *c)
{
    if (!c)
        return;
    release(c); /* not zeroed first: a campaign is large, and freed at once */
    free(c);
}

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

void campaign_copies_free(struct campaign_copies *x)
{
    json_decref(x->scenarios_json);
    free(x->scenarios);
    for (size_t i = 0; i < RS_MAX_EVENTS; i++)
        json_decref(x->effect_data[i]);
    json_decref(x->last_detail);
    free(x->webhook_url);
    memset(x, 0, sizeof *x);
}

bool campaign_copies_make(const struct campaign *c, struct campaign_copies *out)
{
    memset(out, 0, sizeof *out);
    bool ok = true;
    if (c->scenarios_json) { /* else c->scenarios is the ruleset's: borrowed, not copied */
        ok = (out->scenarios = malloc(sizeof *out->scenarios)) &&
             (out->scenarios_json = json_deep_copy(c->scenarios_json));
        if (ok)
            memcpy(out->scenarios, c->scenarios, sizeof *out->scenarios);
    }
    for (int i = 0; ok && i < c->neffects; i++)
        ok = !c->effects[i].data || (out->effect_data[i] = json_deep_copy(c->effects[i].data));
    ok = ok && (!c->last.detail || (out->last_detail = json_deep_copy(c->last.detail)));
    ok = ok && (!c->webhook_url || (out->webhook_url = strdup(c->webhook_url)));
    if (!ok)
        campaign_copies_free(out);
    return ok;
}

void campaign_copies_lend(struct campaign *c, const struct campaign_copies *x)
{
    c->scenarios_json = x->scenarios_json;
    if (x->scenarios_json) /* else a ruleset's list stays */
        c->scenarios = x->scenarios;
    for (int i = 0; i < c->neffects; i++)
        c->effects[i].data = x->effect_data[i];
    c->last.detail = x->last_detail;
    c->webhook_url = x->webhook_url;
}

bool campaign_own(struct campaign *c)
{
    struct campaign_copies x;
    bool ok = campaign_copies_make(c, &x);
    /* Each borrowed pointer is replaced by its copy (NULL when the copies failed) before anything
     * could free it: c owns them from now on. */
    campaign_copies_lend(c, &x);
    if (!ok)
        campaign_clear(c);
    return ok;
}

/* campaign_same: each difference names itself. */
#define DIFF(cond, ...)                                                                            \
    do {                                                                                           \
        if (cond) {                                                                                \
            snprintf(why, len, __VA_ARGS__);                                                       \
            return false;                                                                          \
        }                                                                                          \
    } while (0)
#define SAME_INT(f)  DIFF(a->f != b->f, #f ": %lld, loaded %lld", (long long)a->f, (long long)b->f)
#define SAME_STR(f)  DIFF(strcmp(a->f, b->f) != 0, #f ": \"%s\", loaded \"%s\"", a->f, b->f)
#define SAME_MEM(f)  DIFF(memcmp(a->f, b->f, sizeof a->f) != 0, #f " differs")
#define SAME_JSON(f) DIFF(!json_equal_or_null(a->f, b->f), #f " differs")
#define SAME_AT(i, f)                                                                              \
    DIFF(x->f != y->f, "battle %d " #f ": %lld, loaded %lld", i + 1, (long long)x->f,              \
         (long long)y->f)
#define SAME_AT_STR(i, f)                                                                          \
    DIFF(strcmp(x->f, y->f) != 0, "battle %d " #f ": \"%s\", loaded \"%s\"", i + 1, x->f, y->f)

static bool json_equal_or_null(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal((json_t *)a, (json_t *)b));
}

static bool same_battle(int i, const struct battle *x, const struct battle *y, char *why,
                        size_t len)
{
    SAME_AT(i, number);
    SAME_AT_STR(i, scenario);
    SAME_AT(i, first_player);
    SAME_AT(i, setup_first_player);
    SAME_AT(i, setup_commissar);
    SAME_AT(i, medals_to_win);
    SAME_AT(i, commissar);
    SAME_AT(i, phase);
    SAME_AT(i, winner);
    SAME_AT(i, sudden_death);
    SAME_AT(i, nmaps);
    SAME_AT(i, nfeatures);
    for (int s = 0; s < SIDE_COUNT; s++) {
        SAME_AT(i, cards[s]);
        SAME_AT(i, medals[s]);
        SAME_AT(i, undeployed[s]);
        SAME_AT(i, objective[s]);
    }
    for (int k = 0; k < x->nmaps; k++)
        SAME_AT_STR(i, maps[k]);
    for (int k = 0; k < x->nfeatures; k++)
        SAME_AT_STR(i, features[k]);
    SAME_AT_STR(i, created_at);
    SAME_AT_STR(i, finished_at);
    return true;
}

bool campaign_same(const struct campaign *a, const struct campaign *b, char *why, size_t len)
{
    SAME_STR(id);
    SAME_STR(name);
    SAME_STR(ruleset_id);
    DIFF(a->rse != b->rse, "rse differs");
    SAME_INT(what_if);
    SAME_INT(dice);
    SAME_INT(finished);
    SAME_INT(version);
    SAME_INT(next_roll);
    SAME_INT(seed_epoch);
    SAME_INT(winner);
    SAME_INT(undo_from);
    SAME_INT(grand_index);
    SAME_INT(grand_version);
    SAME_INT(webhook_kind);
    SAME_INT(webhook_own);
    SAME_STR(created_at);
    SAME_STR(finished_at);
    SAME_STR(grand_id);
    SAME_STR(grand_name);
    SAME_STR(grand_ruleset);
    DIFF((a->webhook_url == NULL) != (b->webhook_url == NULL) ||
             (a->webhook_url && strcmp(a->webhook_url, b->webhook_url) != 0),
         "webhook_url differs");
    for (int s = 0; s < SIDE_COUNT; s++) {
        SAME_STR(players[s]);
        SAME_INT(tokens[s]);
        SAME_STR(what_if_event[s]);
        SAME_INT(what_if_face[s]);
        SAME_INT(what_if_again[s]);
        SAME_STR(what_if_again_event[s]);
        SAME_INT(what_if_again_face[s]);
    }
    SAME_MEM(key_hash);
    SAME_MEM(key_prev);
    SAME_JSON(scenarios_json);
    DIFF((a->scenarios == NULL) != (b->scenarios == NULL) ||
             (a->scenarios && memcmp(a->scenarios, b->scenarios, sizeof *a->scenarios) != 0),
         "scenarios differ");
    SAME_INT(nbattles);
    for (int i = 0; i < a->nbattles; i++)
        if (!same_battle(i, &a->battles[i], &b->battles[i], why, len))
            return false;
    SAME_INT(nseeds);
    for (int i = 0; i < a->nseeds; i++) {
        SAME_INT(seeds[i].epoch);
        SAME_INT(seeds[i].known);
        SAME_INT(seeds[i].from_document);
        SAME_MEM(seeds[i].bytes);
        SAME_STR(seeds[i].commitment);
        SAME_INT(seeds[i].revealed);
        SAME_STR(seeds[i].revealed_at);
    }
    SAME_INT(neffects);
    for (int i = 0; i < a->neffects; i++) {
        SAME_STR(effects[i].event_id);
        SAME_INT(effects[i].rolled_by[SIDE_ALLIES]);
        SAME_INT(effects[i].rolled_by[SIDE_AXIS]);
        SAME_JSON(effects[i].data);
        SAME_INT(effects[i].picked_battle);
        SAME_INT(effects[i].from_battle);
    }
    SAME_INT(nheld);
    for (int i = 0; i < a->nheld; i++) {
        SAME_INT(held[i].id);
        SAME_INT(held[i].side);
        SAME_STR(held[i].grant);
        SAME_INT(held[i].battle);
        SAME_STR(held[i].state);
    }
    if (a->last.seq != CAMPAIGN_SEQ_UNKNOWN)
        SAME_INT(last.seq);
    SAME_STR(last.actor);
    SAME_STR(last.action);
    SAME_JSON(last.detail);
    return true;
}

static int side_or_none(const char *s)
{
    enum side side;
    return s && side_parse(s, &side) ? (int)side : -1;
}

/* "{infantry,star}" -> faces; returns the count. */
static int parse_faces(const char *arr, enum face *out, int max)
{
    int n = 0;
    char buf[RULES_MAX_DICE * 10];
    copy(buf, sizeof buf, arr);
    char *p = buf;
    if (*p == '{')
        p++;
    p[strcspn(p, "}")] = '\0';
    for (char *save = NULL, *tok = strtok_r(p, ",", &save); tok && n < max;
         tok = strtok_r(NULL, ",", &save))
        if (face_parse(tok, &out[n]))
            n++;
    return n;
}

int campaign_faces_from_sql(const char *arr, enum face *out, int max)
{
    return parse_faces(arr, out, max);
}

static const char *jstr_at(json_t *a, size_t i)
{
    return json_string_value(json_array_get(a, i));
}

static int jint_at(json_t *a, size_t i, int def)
{
    json_t *v = json_array_get(a, i);
    return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

static void load_battles(struct campaign *c, json_t *rows)
{
    c->nbattles = 0;
    size_t i;
    json_t *b;
    json_array_foreach(rows, i, b)
    {
        if (c->nbattles >= MAX_BATTLES)
            break;
        struct battle *x = &c->battles[c->nbattles++];
        memset(x, 0, sizeof *x);
        x->number = jint_at(b, 0, 0);
        copy(x->scenario, sizeof x->scenario, jstr_at(b, 1));
        x->first_player = side_or_none(jstr_at(b, 2)) == SIDE_AXIS ? SIDE_AXIS : SIDE_ALLIES;
        x->cards[0] = jint_at(b, 3, 0);
        x->cards[1] = jint_at(b, 4, 0);
        x->medals_to_win = jint_at(b, 5, 0);
        x->commissar = side_or_none(jstr_at(b, 6));
        phase_parse(jstr_at(b, 7), &x->phase);
        x->winner = side_or_none(jstr_at(b, 8));
        for (int s = 0; s < SIDE_COUNT; s++) {
            x->medals[s] = jint_at(b, 9 + (size_t)s, 0);
            x->undeployed[s] = jint_at(b, 11 + (size_t)s, 0);
            x->objective[s] = jint_at(b, 13 + (size_t)s, 0);
        }
        copy(x->created_at, sizeof x->created_at, jstr_at(b, 15));
        copy(x->finished_at, sizeof x->finished_at, jstr_at(b, 16));
        json_t *maps = json_array_get(b, 17), *features = json_array_get(b, 18);
        for (size_t k = 0; k < json_array_size(maps) && x->nmaps < RS_MAX_MAPS; k++)
            copy(x->maps[x->nmaps++], RS_ID_MAX, jstr_at(maps, k));
        for (size_t k = 0; k < json_array_size(features) && x->nfeatures < RS_MAX_FEATURES; k++)
            copy(x->features[x->nfeatures++], RS_ID_MAX, jstr_at(features, k));
        x->sudden_death = json_is_true(json_array_get(b, 19));
        x->setup_first_player = side_or_none(jstr_at(b, 20)) == SIDE_AXIS ? SIDE_AXIS : SIDE_ALLIES;
        x->setup_commissar = side_or_none(jstr_at(b, 21));
    }
}

static void load_seeds(struct campaign *c, json_t *rows)
{
    c->nseeds = 0;
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (c->nseeds >= MAX_EPOCHS)
            break;
        struct seed *s = &c->seeds[c->nseeds++];
        memset(s, 0, sizeof *s);
        s->epoch = jint_at(r, 0, 0);
        const char *hex = jstr_at(r, 1);
        size_t len = 0;
        s->known =
            hex &&
            sodium_hex2bin(s->bytes, sizeof s->bytes, hex, strlen(hex), NULL, &len, NULL) == 0 &&
            len == SEED_BYTES;
        copy(s->commitment, sizeof s->commitment, jstr_at(r, 2));
        s->revealed = jstr_at(r, 3) != NULL;
        copy(s->revealed_at, sizeof s->revealed_at, jstr_at(r, 3));
        const char *origin = jstr_at(r, 4);
        s->from_document = !origin || strcmp(origin, "server") != 0;
    }
}

static void load_effects(struct campaign *c, json_t *rows)
{
    c->neffects = 0;
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (c->neffects >= RS_MAX_EVENTS)
            break;
        struct effect_row *e = &c->effects[c->neffects++];
        copy(e->event_id, sizeof e->event_id, jstr_at(r, 0));
        json_t *by = json_array_get(r, 1);
        e->rolled_by[SIDE_ALLIES] = e->rolled_by[SIDE_AXIS] = false;
        for (size_t k = 0; k < json_array_size(by); k++) {
            int s = side_or_none(json_string_value(json_array_get(by, k)));
            if (s >= 0)
                e->rolled_by[s] = true;
        }
        e->data = json_incref(json_array_get(r, 2));
        e->picked_battle = jint_at(r, 3, 0);
        e->from_battle = (int)json_integer_value(json_object_get(e->data, "from_battle"));
    }
}

/* The What-if rolls: the face and the event each side rolled before the campaign (battle 0),
 * and any second roll an effect allowed after a battle. */
static void load_what_if(struct campaign *c, json_t *rows)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        int s = side_or_none(jstr_at(r, 0));
        if (s < 0)
            continue;
        enum face f = FACE_INFANTRY;
        face_parse(json_string_value(json_array_get(json_array_get(r, 1), 0)), &f);
        int battle = jint_at(r, 3, 0);
        if (battle == 0) {
            c->what_if_face[s] = f;
            copy(c->what_if_event[s], sizeof c->what_if_event[s], jstr_at(r, 2));
        } else {
            c->what_if_again[s] = battle;
            c->what_if_again_face[s] = f;
            copy(c->what_if_again_event[s], sizeof c->what_if_again_event[s], jstr_at(r, 2));
        }
    }
}

static void load_held(struct campaign *c, json_t *rows)
{
    c->nheld = 0;
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (c->nheld >= MAX_HELD)
            break;
        struct held *h = &c->held[c->nheld++];
        h->id = jint_at(r, 0, 0);
        h->side = side_or_none(jstr_at(r, 1)) == SIDE_AXIS ? SIDE_AXIS : SIDE_ALLIES;
        copy(h->grant, sizeof h->grant, jstr_at(r, 2));
        h->battle = jint_at(r, 3, 0);
        copy(h->state, sizeof h->state, jstr_at(r, 4));
    }
}

enum cres campaign_load(struct db *db, const char *id, bool lock, struct campaign *c,
                        struct cerr *e)
{
    campaign_clear(c);
    PGresult *r = db_campaign_get(db, id, lock);
    if (!r)
        return C_DBERR;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return refuse(e, PROBLEM_NOT_FOUND, "id", "There is no campaign %s.", id);
    }
    copy(c->id, sizeof c->id, PQgetvalue(r, 0, 0));
    copy(c->name, sizeof c->name, PQgetvalue(r, 0, 1));
    copy(c->ruleset_id, sizeof c->ruleset_id, PQgetvalue(r, 0, 2));
    c->rse = ruleset_entry(c->ruleset_id);
    c->what_if = PQgetvalue(r, 0, 3)[0] == 't';
    dice_mode_parse(PQgetvalue(r, 0, 4), &c->dice);
    c->finished = strcmp(PQgetvalue(r, 0, 5), "finished") == 0;
    c->version = atoll(PQgetvalue(r, 0, 6));
    c->next_roll = atol(PQgetvalue(r, 0, 7));
    c->seed_epoch = atoi(PQgetvalue(r, 0, 8));
    copy(c->players[0], sizeof c->players[0], PQgetvalue(r, 0, 9));
    copy(c->players[1], sizeof c->players[1], PQgetvalue(r, 0, 10));
    c->tokens[0] = atoi(PQgetvalue(r, 0, 11));
    c->tokens[1] = atoi(PQgetvalue(r, 0, 12));
    /* Stored in enum role order: allies, axis, organizer. */
    const int hash_col[3] = {14, 15, 13};
    for (int k = 0; k < 3; k++) {
        const char *hex = PQgetvalue(r, 0, hash_col[k]);
        sodium_hex2bin(c->key_hash[k], 32, hex, strlen(hex), NULL, NULL, NULL);
    }
    const char *sc = db_val(r, 0, 16);
    if (sc)
        c->scenarios_json = json_loads(sc, 0, NULL);
    c->winner = side_or_none(db_val(r, 0, 17));
    copy(c->created_at, sizeof c->created_at, PQgetvalue(r, 0, 18));
    copy(c->finished_at, sizeof c->finished_at, PQgetvalue(r, 0, 19));
    void (*const loaders[5])(struct campaign *, json_t *) = {load_battles, load_seeds, load_effects,
                                                             load_what_if, load_held};
    for (int k = 0; k < 5; k++) {
        json_t *rows = json_loads(PQgetvalue(r, 0, 20 + k), 0, NULL);
        loaders[k](c, rows);
        json_decref(rows);
    }
    json_t *last = json_loads(PQgetvalue(r, 0, 25), JSON_DECODE_ANY, NULL);
    if (json_is_array(last)) {
        c->last.seq = (long long)json_integer_value(json_array_get(last, 0));
        copy(c->last.actor, sizeof c->last.actor, jstr_at(last, 1));
        copy(c->last.action, sizeof c->last.action, jstr_at(last, 2));
        c->last.detail = json_incref(json_array_get(last, 3));
    }
    json_decref(last);
    c->undo_from = atoll(PQgetvalue(r, 0, 26));
    for (int k = 0; k < 3; k++) {
        const char *hex = PQgetvalue(r, 0, 27 + k);
        if (strlen(hex) == 64)
            sodium_hex2bin(c->key_prev[k], 32, hex, 64, NULL, NULL, NULL);
    }
    copy(c->grand_id, sizeof c->grand_id, PQgetvalue(r, 0, 30));
    c->grand_index = atoi(PQgetvalue(r, 0, 31));
    const char *hook = db_val(r, 0, 32);
    c->webhook_url = hook ? strdup(hook) : NULL;
    copy(c->grand_name, sizeof c->grand_name, PQgetvalue(r, 0, 33));
    copy(c->grand_ruleset, sizeof c->grand_ruleset, PQgetvalue(r, 0, 34));
    chat_kind_parse(PQgetvalue(r, 0, 35), &c->webhook_kind);
    c->webhook_own = PQgetvalue(r, 0, 36)[0] == 't';
    c->grand_version = atoll(PQgetvalue(r, 0, 37));
    PQclear(r);

    if (c->scenarios_json) {
        char err[300];
        c->scenarios = calloc(1, sizeof *c->scenarios);
        if (!c->scenarios || scenario_list_from_json(c->scenarios_json, "$.scenarios", c->scenarios,
                                                     err, sizeof err)) {
            free(c->scenarios);
            c->scenarios = NULL;
            json_decref(c->scenarios_json);
            c->scenarios_json = NULL;
        }
    } else if (c->rse && c->rse->rs->scenarios.n > 0) {
        c->scenarios = (struct scenario_list *)&c->rse->rs->scenarios;
    }
    return C_OK;
}

enum cres campaign_read(struct db *db, const char *id, struct campaign *c, struct cerr *e,
                        bool *held)
{
    *held = false;
    if (state_cache_get(id, c)) {
        PGresult *r = db_campaign_versions_of(db, id);
        if (!r)
            return C_DBERR;
        /* Equal versions, the campaign's and its grand campaign's, mean the same state (every
         * change moves one of them). */
        bool grand = c->grand_id[0] != '\0';
        *held = PQntuples(r) == 1 && atoll(PQgetvalue(r, 0, 0)) == c->version &&
                PQgetisnull(r, 0, 1) != grand &&
                (!grand || atoll(PQgetvalue(r, 0, 1)) == c->grand_version);
        PQclear(r);
    }
    state_cache_note(*held ? STATE_READ_HIT : STATE_READ_LOADED);
    if (*held)
        return C_OK;
    enum cres rc = campaign_load(db, id, false, c, e);
    /* Held from now on: the load is one statement, so one snapshot, at the versions it shows.
     * A write then starts from it (its first statement checks those versions), and the reads
     * after it take it. Not a standby's, which may be behind: a write would only find it
     * moved on. */
    if (rc == C_OK && !db_is_standby(db))
        state_cache_offer(c);
    return rc;
}

enum cres campaign_check_stored(struct db *db, const struct campaign *c, bool locked, char *why,
                                size_t len)
{
    struct campaign *loaded = campaign_new();
    struct cerr e;
    if (!loaded) {
        snprintf(why, len, "out of memory");
        return C_DBERR;
    }
    enum cres rc = campaign_load(db, c->id, false, loaded, &e);
    /* Without the row lock, a write may have committed since c was found current: a campaign
     * at other versions is not the one to compare with. */
    bool moved = !locked && rc == C_OK &&
                 (loaded->version != c->version || loaded->grand_version != c->grand_version);
    if (rc == C_OK && !moved && !campaign_same(c, loaded, why, len))
        rc = C_REFUSED;
    else if (rc == C_REFUSED)
        rc = C_DBERR; /* gone: nothing to compare with */
    campaign_free(loaded);
    return rc;
}

enum cres campaign_end_time(struct db *db, bool finished, char *at, size_t len)
{
    if (!finished) {
        at[0] = '\0';
    } else if (!at[0]) {
        const char *now = db_tx_time(db);
        if (!now)
            return C_DBERR;
        copy(at, len, now);
    }
    return C_OK;
}

enum cres campaign_save(struct db *db, struct campaign *c)
{
    if (campaign_end_time(db, c->finished, c->finished_at, sizeof c->finished_at) != C_OK)
        return C_DBERR;
    char roll[24], epoch[16], ta[16], tx[16], version[24];
    snprintf(roll, sizeof roll, "%ld", c->next_roll);
    snprintf(epoch, sizeof epoch, "%d", c->seed_epoch);
    snprintf(ta, sizeof ta, "%d", c->tokens[SIDE_ALLIES]);
    snprintf(tx, sizeof tx, "%d", c->tokens[SIDE_AXIS]);
    snprintf(version, sizeof version, "%lld", c->version);
    const char *p[] = {c->id,
                       roll,
                       epoch,
                       ta,
                       tx,
                       c->finished ? "finished" : "active",
                       c->winner >= 0 ? side_name((enum side)c->winner) : NULL,
                       version};
    /* First, as the write's version check, when nothing has been sent yet; else last. */
    if (!(c->optimistic && db_campaign_save_first(db, p)) && !db_campaign_save(db, p))
        return C_DBERR;
    c->version++;
    if (c->grand_id[0])
        c->grand_version++; /* the statement moves its grand campaign on too */
    return C_OK;
}

bool campaign_unconfirmed(struct db *db, struct campaign *c)
{
    if (c->optimistic && !db_campaign_at_unsent(db))
        c->optimistic = false;
    return c->optimistic;
}

const struct ruleset *campaign_ruleset(const struct campaign *c, struct cerr *e)
{
    if (c->rse)
        return c->rse->rs;
    /* Said to players (the page shows it as is); the operator learns which rules to load from
     * the log line. */
    refuse(e, PROBLEM_RULESET_UNAVAILABLE, NULL, "%s", CAMPAIGN_NO_RULES);
    log_msg(LOG_WARN, "campaign",
            "campaign %s plays the ruleset \"%s\", which this server has not loaded (see "
            "--rulesets-dir)",
            c->id, c->ruleset_id);
    return NULL;
}

struct battle *campaign_current(struct campaign *c)
{
    return c->nbattles ? &c->battles[c->nbattles - 1] : NULL;
}

struct battle *campaign_battle(struct campaign *c, int number)
{
    return number >= 1 && number <= c->nbattles ? &c->battles[number - 1] : NULL;
}

void campaign_standing(const struct campaign *c, struct standing *st)
{
    memset(st, 0, sizeof *st);
    for (int i = 0; i < c->nbattles; i++) {
        const struct battle *b = &c->battles[i];
        if (b->phase != PHASE_FINISHED)
            continue;
        if (b->winner >= 0)
            st->battles_won[b->winner]++;
        for (int s = 0; s < SIDE_COUNT; s++) {
            st->medals[s] += b->medals[s];
            st->objective_medals[s] += b->objective[s];
        }
    }
}

enum role keys_role(const uint8_t hashes[3][32], const char *key)
{
    if (!key || strlen(key) != KEY_TEXT_LEN)
        return ROLE_NONE;
    uint8_t h[32];
    crypto_hash_sha256(h, (const unsigned char *)key, KEY_TEXT_LEN);
    enum role found = ROLE_NONE;
    /* Compare against all three every time, so the time taken says nothing. */
    for (int k = 0; k < 3; k++)
        if (sodium_memcmp(h, hashes[k], 32) == 0)
            found = (enum role)k;
    return found;
}

enum role campaign_role(const struct campaign *c, const char *key)
{
    return keys_role(c->key_hash, key);
}

enum role campaign_replaced_role(const struct campaign *c, const char *key)
{
    return keys_role(c->key_prev, key);
}

int campaign_events(const struct campaign *c, int battle, const struct event_def **out, int max)
{
    if (!c->rse)
        return 0;
    const struct what_if_rules *w = &c->rse->rs->what_if;
    int n = 0;
    for (int i = 0; i < c->neffects; i++)
        for (int k = 0;
             k < w->nevents && n < max && !(battle > 0 && c->effects[i].from_battle > battle); k++)
            if (strcmp(w->events[k].id, c->effects[i].event_id) == 0)
                out[n++] = &w->events[k];
    return n;
}

int campaign_events_in_scope(const struct campaign *c, int number, const char *scenario,
                             const struct event_def **out)
{
    const struct event_def *events[RS_MAX_EVENTS];
    int n = campaign_events(c, number, events, RS_MAX_EVENTS), k = 0;
    for (int i = 0; i < n; i++) {
        int picked = 0;
        for (int e = 0; e < c->neffects; e++)
            if (strcmp(c->effects[e].event_id, events[i]->id) == 0)
                picked = c->effects[e].picked_battle;
        if (scope_applies(&events[i]->scope, number, scenario, picked))
            out[k++] = events[i];
    }
    return k;
}

void campaign_option_mods(const struct campaign *c, enum side side, int battle,
                          struct option_mods *mods)
{
    memset(mods, 0, sizeof *mods);
    const struct event_def *events[RS_MAX_EVENTS];
    const char *scenario =
        battle >= 1 && battle <= c->nbattles ? c->battles[battle - 1].scenario : "";
    int n = campaign_events_in_scope(c, battle, scenario, events);
    for (int k = 0; k < n; k++)
        what_if_option_mods(events[k], side, mods);
}

int campaign_pre_battle_needs(const struct campaign *c, const struct battle *b,
                              struct pre_battle_need *out, int max)
{
    const struct event_def *events[RS_MAX_EVENTS];
    int n = campaign_events_in_scope(c, b->number, b->scenario, events), k = 0;
    for (int i = 0; i < n && k < max; i++) {
        const struct effect_def *e =
            what_if_pre_battle_roll(events[i], (const char(*)[RS_ID_MAX])b->features, b->nfeatures);
        if (e)
            out[k++] = (struct pre_battle_need){events[i], e};
    }
    return k;
}

bool campaign_what_if_again(const struct campaign *c, enum side side)
{
    if (c->finished || !c->what_if || c->what_if_again[side] || !c->what_if_event[side][0])
        return false;
    const struct event_def *events[RS_MAX_EVENTS];
    int n = campaign_events(c, 0, events, RS_MAX_EVENTS);
    bool allowed = false;
    for (int i = 0; i < n; i++) {
        const struct effect_def *e = event_effect(events[i], EFFECT_EXTRA_WHAT_IF);
        allowed |= e && (enum side)e->side == side;
    }
    /* 001: "After playing one scenario with this What If event, the Japanese player may roll
     * again using this table for the next scenario": between the first battle's result and the
     * second battle's set-up (RULES.md 9). */
    return allowed && c->nbattles == 1 && c->battles[0].phase == PHASE_FINISHED;
}

void campaign_note_last(struct campaign *c, const char *actor, const char *action,
                        const json_t *detail)
{
    /* As CAMPAIGN_LAST_ACTION in db/campaigns.c: these are not actions on the game. */
#define AS_IS(s) s
#define COMMA    ,
    static const char *const not_actions[] = {DB_LOG_NOT_GAME_LIST(AS_IS, COMMA)};
#undef COMMA
#undef AS_IS
    for (size_t i = 0; i < sizeof not_actions / sizeof not_actions[0]; i++)
        if (strcmp(action, not_actions[i]) == 0)
            return;
    json_decref(c->last.detail);
    c->last.seq = CAMPAIGN_SEQ_UNKNOWN;
    copy(c->last.actor, sizeof c->last.actor, actor);
    copy(c->last.action, sizeof c->last.action, action);
    c->last.detail = detail ? json_deep_copy(detail) : json_object();
}

enum cres campaign_log(struct db *db, struct campaign *c, const char *actor, const char *action,
                       json_t *detail)
{
    /* A detail that could not be made (json_pack's NULL) is an error, never an empty entry: an
     * undo logged without what it undid would undo the same action again and again. */
    if (!detail) {
        log_msg(LOG_ERROR, "campaign", "the log entry for %s could not be made", action);
        return C_DBERR;
    }
    campaign_note_last(c, actor, action, detail);
    char *text = json_dumps(detail, JSON_COMPACT);
    json_decref(detail);
    bool logged = text && db_log_insert(db, c->id, actor, action, text);
    free(text);
    return logged ? C_OK : C_DBERR;
}

enum cres campaign_stamp(struct db *db, struct campaign *c)
{
    if (!c->unstamped)
        return C_OK;
    c->unstamped = false;
    return db_action_stamp(db, c->id) ? C_OK : C_DBERR;
}

enum cres campaign_tokens(struct db *db, struct campaign *c, enum side side, int new_value,
                          const char *reason, int battle)
{
    if (new_value < 0)
        new_value = 0;
    int delta = new_value - c->tokens[side];
    if (delta == 0)
        return C_OK;
    char d[16], bal[16], bat[16];
    snprintf(d, sizeof d, "%d", delta);
    snprintf(bal, sizeof bal, "%d", new_value);
    snprintf(bat, sizeof bat, "%d", battle);
    const char *p[] = {c->id, side_name(side), d, bal, reason, battle > 0 ? bat : NULL};
    if (!db_ledger_insert(db, p))
        return C_DBERR;
    c->unstamped = true;
    c->tokens[side] = new_value;
    return C_OK;
}
