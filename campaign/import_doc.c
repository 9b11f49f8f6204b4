/* Reading a campaign export into an import plan, and every check that needs no database
 * (campaign/import.h). Pure: no I/O; fuzzed by tests/fuzz/fuzz_import.c. */
#include "campaign/import.h"

#include "campaign/rulesets.h"
#include "campaign/rules_json.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small readers: each refuses with the field's path ---- */

struct rd {
    struct cerr *e;
    char path[64]; /* "actions[12].detail"; the refusal's field is its first part, "actions[12]" */
};

static enum cres bad(struct rd *r, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum cres bad(struct rd *r, const char *member, const char *fmt, ...)
{
    char where[160], field[64], detail[300];
    snprintf(where, sizeof where, "%s%s%s", r->path, member && *member ? "." : "",
             member ? member : "");
    snprintf(field, sizeof field, "%.*s", (int)strcspn(r->path, "."), r->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return refuse(r->e, PROBLEM_INVALID_FIELD, field, "%s: %s", where, detail);
}

static bool get_int(json_t *obj, const char *key, long min, long max, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return false;
    *out = (int)json_integer_value(v);
    return true;
}

/* A string of 0..max bytes (min 1 when `nonempty`); NULL when absent or not a string. */
static const char *get_str(json_t *obj, const char *key, size_t max, bool nonempty)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_string(v) || json_string_length(v) > max ||
        (nonempty && json_string_length(v) == 0) ||
        strlen(json_string_value(v)) != json_string_length(v)) /* no NUL inside */
        return NULL;
    return json_string_value(v);
}

/* A time as an export writes it: "YYYY-MM-DDTHH:MM:SS", optional fraction (1 to 6 digits),
 * "Z" or "+HH:MM"/"-HH:MM" (at most 14 hours), a date that exists, in the years 1970 to 9999
 * once in UTC (what an export writes back). Absent or null: "". False when malformed. */
bool import_time(json_t *obj, const char *key, char out[IMPORT_TIME_MAX])
{
    out[0] = '\0';
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return true;
    const char *t = json_string_value(v);
    if (!t || json_string_length(v) >= IMPORT_TIME_MAX || strlen(t) != json_string_length(v))
        return false;
    /* the fixed part: digits where 'd' is, the characters themselves elsewhere */
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? !(t[i] >= '0' && t[i] <= '9') : t[i] != shape[i])
            return false;
    int n[6];
    const int at[6] = {0, 5, 8, 11, 14, 17}, w[6] = {4, 2, 2, 2, 2, 2};
    for (int k = 0; k < 6; k++) {
        n[k] = 0;
        for (int d = 0; d < w[k]; d++)
            n[k] = n[k] * 10 + (t[at[k] + d] - '0');
    }
    static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (n[0] % 4 == 0 && n[0] % 100 != 0) || n[0] % 400 == 0;
    if (n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > days[n[1] - 1] ||
        (n[1] == 2 && n[2] == 29 && !leap) || n[3] > 23 || n[4] > 59 || n[5] > 59)
        return false;
    const char *p = t + sizeof shape - 1;
    if (*p == '.') {
        size_t digits = strspn(p + 1, "0123456789");
        if (digits < 1 || digits > 6)
            return false;
        p += 1 + digits;
    }
    int offset = 0; /* minutes east of UTC */
    if (*p == '+' || *p == '-') {
        if (strlen(p) != 6 || strspn(p + 1, "0123456789") != 2 || p[3] != ':' ||
            strspn(p + 4, "0123456789") != 2)
            return false;
        int oh = (p[1] - '0') * 10 + (p[2] - '0'), om = (p[4] - '0') * 10 + (p[5] - '0');
        if (oh > 14 || om > 59)
            return false;
        offset = (*p == '-' ? -1 : 1) * (oh * 60 + om);
    } else if (strcmp(p, "Z") != 0) {
        return false;
    }
    /* The year in UTC: the offset moves the time by less than a day. */
    int minutes = n[3] * 60 + n[4] - offset, year = n[0];
    if (minutes < 0 && n[1] == 1 && n[2] == 1)
        year--;
    if (minutes >= 24 * 60 && n[1] == 12 && n[2] == 31)
        year++;
    if (year < 1970 || year > 9999)
        return false;
    memcpy(out, t, json_string_length(v) + 1);
    return true;
}

static bool get_side(json_t *obj, const char *key, enum side *out)
{
    return side_parse(json_string_value(json_object_get(obj, key)), out);
}

/* {"allies": n, "axis": n} with both in min..max */
static bool get_pair(json_t *obj, const char *key, long min, long max, int out[SIDE_COUNT])
{
    json_t *p = json_object_get(obj, key);
    return json_is_object(p) && get_int(p, "allies", min, max, &out[SIDE_ALLIES]) &&
           get_int(p, "axis", min, max, &out[SIDE_AXIS]);
}

/* ---- the campaign's settings (the first action) ---- */

static enum cres read_created(struct rd *r, json_t *d, struct import_plan *p)
{
    struct create_input *in = &p->create;
    memset(in, 0, sizeof *in);
    in->id = p->id;
    in->no_seed = true;
    if (!json_is_object(d))
        return bad(r, NULL, "must be the campaign's settings");
    /* Names are restored as recorded, also one of only spaces a creation would now refuse. */
    if (!(in->name = get_str(d, "name", NAME_MAX_BYTES, true)))
        return bad(r, "name", "must be a name of 1 to %d bytes", NAME_MAX_BYTES);
    const char *ruleset = json_string_value(json_object_get(d, "ruleset"));
    if (!ruleset || !*ruleset)
        return bad(r, "ruleset", "must be the id of a ruleset");
    if (!(in->rse = ruleset_entry(ruleset))) {
        /* As a grand campaign's rules this server lacks: 409, the field in full. */
        char field[96];
        snprintf(field, sizeof field, "%s.ruleset", r->path);
        return refuse(r->e, PROBLEM_RULESET_UNAVAILABLE, field,
                      "This campaign's rules (%s) are not loaded on this server.", ruleset);
    }
    json_t *wi = json_object_get(d, "what_if");
    if (!json_is_boolean(wi))
        return bad(r, "what_if", "must be true or false");
    in->what_if = json_is_true(wi);
    if (in->what_if && !in->rse->rs->what_if.enabled)
        return bad(r, "what_if", "the ruleset %s has no What-if events", in->rse->rs->id);
    if (!dice_mode_parse(json_string_value(json_object_get(d, "dice")), &in->dice))
        return bad(r, "dice", "must be server, table or either");
    if (!get_pair(d, "reserve_tokens", 0, 99, in->tokens))
        return bad(r, "reserve_tokens", "must be {\"allies\": 0..99, \"axis\": 0..99}");
    if (!in->rse->rs->reserve.enabled && (in->tokens[0] || in->tokens[1]))
        return bad(r, "reserve_tokens", "the ruleset %s has no Reserve Tokens", in->rse->rs->id);
    json_t *players = json_object_get(d, "players");
    for (int s = 0; s < SIDE_COUNT; s++) {
        in->players[s] = get_str(players, side_name((enum side)s), PLAYER_MAX_BYTES, false);
        if (!in->players[s])
            return bad(r, "players",
                       "must be {\"allies\": name, \"axis\": name}, names of at most "
                       "%d bytes",
                       PLAYER_MAX_BYTES);
    }
    json_t *sc = json_object_get(d, "scenarios");
    if (sc && !json_is_null(sc)) {
        struct scenario_list *l = malloc(sizeof *l);
        char err[300] = "out of memory";
        bool ok = l && scenario_list_from_json(sc, "$.scenarios", l, err, sizeof err) == 0;
        free(l);
        if (!ok)
            return bad(r, "scenarios", "%s", err);
        in->scenarios = sc;
    }
    return C_OK;
}

/* ---- seeds ---- */

/* 64 hex characters in any case, lowercased into out. */
static bool canonical_hex(const char *text, char out[65])
{
    for (int i = 0; i < 64; i++) {
        char c = text[i];
        if (c >= 'A' && c <= 'F')
            c = (char)(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
        out[i] = c;
    }
    out[64] = '\0';
    return true;
}

static enum cres read_seeds(struct cerr *e, json_t *seeds, struct import_plan *p)
{
    struct rd r = {.e = e, .path = "seeds"};
    if (!json_is_array(seeds) || json_array_size(seeds) < 1 || json_array_size(seeds) > MAX_EPOCHS)
        return bad(&r, NULL, "must list 1 to %d seeds", MAX_EPOCHS);
    for (size_t i = 0; i < json_array_size(seeds); i++) {
        json_t *s = json_array_get(seeds, i);
        struct import_seed *is = &p->seeds[p->nseeds];
        snprintf(r.path, sizeof r.path, "seeds[%zu]", i);
        if (!json_is_object(s) || !get_int(s, "epoch", (long)i + 1, (long)i + 1, &is->epoch))
            return bad(&r, "epoch", "seeds are listed by epoch, 1, 2, 3 ...: this one is %zu",
                       i + 1);
        const char *c = get_str(s, "commitment", 64, true);
        char hex[65];
        if (!c || strlen(c) != 64 || !canonical_hex(c, hex))
            return bad(&r, "commitment", "must be 64 hex characters (SHA-256)");
        memcpy(is->commitment, hex, sizeof hex);
        json_t *v = json_object_get(s, "server_seed");
        if (v && !json_is_null(v)) {
            const char *x = json_string_value(v);
            size_t len = 0;
            char want[65];
            if (!x || sodium_hex2bin(is->value, SEED_BYTES, x, strlen(x), NULL, &len, NULL) != 0 ||
                len != SEED_BYTES || strlen(x) != 2 * SEED_BYTES)
                return bad(&r, "server_seed", "must be 64 hex characters");
            dice_commitment(is->value, want);
            if (strcmp(want, is->commitment) != 0)
                return bad(&r, "server_seed", "does not match its commitment");
            is->has_value = true;
        }
        if (!import_time(s, "revealed_at", is->revealed_at))
            return bad(&r, "revealed_at", "must be a time like 2026-11-24T01:50:04.146Z");
        p->nseeds++;
    }
    return C_OK;
}

/* ---- actions ---- */

struct replay_state {
    long next_roll;
    int epoch;
    int battles;
    /* What decides how many dice a roll has: the results so far, and the pre-battle rolls
     * the What-if events rolled call for (per side that rolls them). */
    int won[SIDE_COUNT], medals_previous[SIDE_COUNT], pre_battle_dice[SIDE_COUNT];
    /* Which rolls were made, so that none is made twice (a re-roll): per battle and side, a
     * bit per purpose; battle 0 holds the What-if rolls. */
    unsigned char rolled[MAX_BATTLES + 1][SIDE_COUNT];
    bool has_result[MAX_BATTLES + 1];
    int results;
    bool extra_what_if[SIDE_COUNT]; /* an event in force gives the side a second What-if roll */
    /* The actions not undone, as indices into the plan (an undo takes the last one back). */
    int *effective;
    int neffective;
};

static void what_if_state(const struct import_plan *p, struct replay_state *st);

enum { ROLLED_RESERVE = 1, ROLLED_VICTORY = 2, ROLLED_PRE_BATTLE = 4, ROLLED_WHAT_IF = 8 };

/* One roll of each kind per side and battle, at a battle set up and not yet over; a second
 * What-if roll only where an event gives one, right after the first battle's result. */
static enum cres check_once(struct rd *r, struct replay_state *st, const struct import_action *a)
{
    const char *who = side_title(a->side);
    if (strcmp(a->purpose, "what_if") == 0) {
        if (!(st->rolled[0][a->side] & ROLLED_WHAT_IF)) {
            if (a->battle != 0)
                return bad(r, "battle", "the %s' first What-if roll comes before any battle", who);
            st->rolled[0][a->side] |= ROLLED_WHAT_IF;
            return C_OK;
        }
        if (!st->extra_what_if[a->side] || a->battle != 1 || st->battles != 1 || st->results != 1 ||
            (st->rolled[1][a->side] & ROLLED_WHAT_IF))
            return bad(r, "purpose",
                       "the %s rolled their What-if die already, and no event gives them another "
                       "roll here: a roll is never made twice",
                       who);
        st->rolled[1][a->side] |= ROLLED_WHAT_IF;
        return C_OK;
    }
    if (a->battle > st->battles || st->has_result[a->battle])
        return bad(r, "battle", "battle %d is not being set up or played at this point", a->battle);
    unsigned bit = strcmp(a->purpose, "reserve") == 0      ? ROLLED_RESERVE
                   : strcmp(a->purpose, "pre_battle") == 0 ? ROLLED_PRE_BATTLE
                                                           : ROLLED_VICTORY;
    if (st->rolled[a->battle][a->side] & bit)
        return bad(r, "purpose",
                   "the %s made this roll for battle %d already: a roll is never made twice", who,
                   a->battle);
    st->rolled[a->battle][a->side] |= (unsigned char)bit;
    return C_OK;
}

/* How many dice a roll of this purpose has at this point (RULES.md 3-6, 9), or 0 when the
 * campaign has no such roll now. Server faces are a prefix of one stream, so a roll published
 * with fewer dice than were rolled would still match its seed: the count is checked here. */
static int dice_expected(const struct import_plan *p, const struct replay_state *st,
                         const char *purpose, enum side side, int battle)
{
    const struct ruleset *rs = p->create.rse->rs;
    if (strcmp(purpose, "what_if") == 0)
        return p->create.what_if ? 1 : 0;
    if (strcmp(purpose, "reserve") == 0)
        return rs->reserve.enabled ? rs->reserve.dice : 0;
    if (strcmp(purpose, "pre_battle") == 0)
        return st->pre_battle_dice[side];
    return victory_dice(rs, battle, st->won[side], st->medals_previous[side]);
}

static enum cres read_roll(struct rd *r, json_t *d, struct import_plan *p, struct replay_state *st,
                           struct import_action *a)
{
    struct roll_input *in = &a->roll;
    memset(in, 0, sizeof *in);
    in->recorded = true;
    json_t *n = json_object_get(d, "n");
    if (!json_is_integer(n) || json_integer_value(n) != st->next_roll)
        return bad(r, "n", "roll numbers run 1, 2, 3 ... with no gap: this must be roll %ld",
                   st->next_roll);
    in->recorded_n = st->next_roll++;
    if (!get_side(d, "side", &a->side))
        return bad(r, "side", "must be allies or axis");
    static const char *const purposes[] = {"what_if", "victory_events", "reserve", "pre_battle"};
    const char *purpose = json_string_value(json_object_get(d, "purpose"));
    for (size_t k = 0; purpose && k < 4; k++)
        if (strcmp(purpose, purposes[k]) == 0)
            a->purpose = purposes[k];
    if (!a->purpose)
        return bad(r, "purpose", "must be what_if, victory_events, reserve or pre_battle");
    /* A What-if roll belongs to no battle (0), or to the battle played before a second one. */
    bool what_if = strcmp(a->purpose, "what_if") == 0;
    if (!get_int(d, "battle", what_if ? 0 : 1, MAX_BATTLES, &a->battle))
        return bad(r, "battle", "must be a battle number");
    int nf = faces_from_json(json_object_get(d, "faces"), in->faces, RULES_MAX_DICE);
    if (nf < 1)
        return bad(r, "faces", "must list the faces rolled");
    in->nfaces = nf;
    enum cres once = check_once(r, st, a);
    if (once != C_OK)
        return once;
    int ndice = dice_expected(p, st, a->purpose, a->side, a->battle);
    if (ndice == 0)
        return bad(r, "purpose", "the %s have no %s roll to make here", side_title(a->side),
                   a->purpose);
    if (nf != ndice)
        return bad(r, "faces", "this %s roll is %d dice, not %d", a->purpose, ndice, nf);
    if (what_if) {
        /* An event that calls for a roll before battles (Naval Struggle) allows that roll. */
        const struct event_def *ev = what_if_event(p->create.rse->rs, a->side, in->faces[0]);
        const struct effect_def *pb = ev ? event_effect(ev, EFFECT_PRE_BATTLE_ROLL) : NULL;
        if (pb)
            st->pre_battle_dice[pb->side] = pb->dice;
        const struct effect_def *again = ev ? event_effect(ev, EFFECT_EXTRA_WHAT_IF) : NULL;
        if (again)
            st->extra_what_if[again->side] = true;
    }
    const char *source = json_string_value(json_object_get(d, "source"));
    bool server = source && strcmp(source, "server") == 0;
    if (!source || (!server && strcmp(source, "table") != 0))
        return bad(r, "source", "must be server or table");
    enum dice_mode mode = p->create.dice;
    if (server && mode == DICE_TABLE)
        return bad(r, "source",
                   "this campaign's dice are rolled at the table: it has no server "
                   "rolls");
    if (!server && mode == DICE_SERVER)
        return bad(r, "source",
                   "this campaign's dice are rolled by the server: it has no table "
                   "rolls");
    if (!server) {
        if (!json_is_null(json_object_get(d, "client_seed")) ||
            !json_is_null(json_object_get(d, "seed_epoch")))
            return bad(r, "source", "a table roll has no client_seed and no seed_epoch");
        in->recorded_epoch = 0;
        return C_OK;
    }
    const char *cs = get_str(d, "client_seed", CLIENT_SEED_MAX, false);
    if (!cs)
        return bad(r, "client_seed", "must be a string of at most %d bytes", CLIENT_SEED_MAX);
    snprintf(in->client_seed, sizeof in->client_seed, "%s", cs);
    json_t *ep = json_object_get(d, "seed_epoch");
    if (!json_is_integer(ep) || json_integer_value(ep) != st->epoch)
        return bad(r, "seed_epoch", "the seed in force at this roll is epoch %d", st->epoch);
    in->recorded_epoch = st->epoch;
    const struct import_seed *seed = &p->seeds[st->epoch - 1];
    if (seed->has_value) {
        /* RULES.md 1.2: the faces this seed gives for this roll, and no others. */
        enum face want[RULES_MAX_DICE];
        if (dice_derive(seed->value, p->id, in->recorded_n, in->client_seed, nf, want) != 0 ||
            memcmp(want, in->faces, sizeof(enum face) * (size_t)nf) != 0)
            return bad(r, "faces",
                       "roll %ld is not what seed %d gives for it: a server roll "
                       "cannot be changed",
                       in->recorded_n, st->epoch);
    }
    return C_OK;
}

static enum cres read_battle(struct rd *r, json_t *d, struct replay_state *st,
                             struct import_action *a)
{
    struct battle_input *in = &a->setup;
    memset(in, 0, sizeof *in);
    enum side s;
    if (!get_int(d, "number", st->battles + 1, st->battles + 1, &a->battle))
        return bad(r, "number", "battles are numbered 1, 2, 3 ...: this must be battle %d",
                   st->battles + 1);
    st->battles++;
    if (!(in->scenario = get_str(d, "scenario", SCENARIO_MAX_BYTES, true)))
        return bad(r, "scenario", "must be a scenario name of 1 to %d bytes", SCENARIO_MAX_BYTES);
    if (!get_side(d, "first_player", &s))
        return bad(r, "first_player", "must be allies or axis");
    in->first_player = (int)s;
    if (!get_pair(d, "cards", 1, 20, in->cards))
        return bad(r, "cards", "must be {\"allies\": 1..20, \"axis\": 1..20}");
    if (!get_int(d, "medals_to_win", 1, 99, &in->medals_to_win))
        return bad(r, "medals_to_win", "must be 1..99");
    json_t *c = json_object_get(d, "commissar");
    in->commissar = -1;
    if (c && !json_is_null(c)) {
        if (!get_side(d, "commissar", &s))
            return bad(r, "commissar", "must be allies, axis or null");
        in->commissar = (int)s;
    }
    /* A battle on several maps: the maps set its medals again when it is replayed. */
    json_t *maps = json_object_get(d, "maps"), *features = json_object_get(d, "features");
    if (maps &&
        (!json_is_array(maps) || json_array_size(maps) < 2 || json_array_size(maps) > RS_MAX_MAPS))
        return bad(r, "maps", "must list 2 to %d maps", RS_MAX_MAPS);
    for (size_t i = 0; i < json_array_size(maps); i++)
        if (!(in->maps[in->nmaps++] = json_string_value(json_array_get(maps, i))))
            return bad(r, "maps", "must list map ids");
    if (in->nmaps)
        in->medals_to_win = -1;
    if (features && (!json_is_array(features) || json_array_size(features) > RS_MAX_FEATURES))
        return bad(r, "features", "must list at most %d features", RS_MAX_FEATURES);
    for (size_t i = 0; i < json_array_size(features); i++)
        if (!(in->features[in->nfeatures++] = json_string_value(json_array_get(features, i))))
            return bad(r, "features", "must list feature ids");
    return C_OK;
}

static enum cres read_choice(struct rd *r, json_t *d, struct import_action *a)
{
    if (!get_int(d, "battle", 1, MAX_BATTLES, &a->battle))
        return bad(r, "battle", "must be a battle number");
    if (!get_side(d, "side", &a->side))
        return bad(r, "side", "must be allies or axis");
    json_t *opts = json_object_get(d, "options");
    if (!json_is_array(opts) || json_array_size(opts) > RULES_MAX_OFFERED)
        return bad(r, "options", "must list at most %d options", RULES_MAX_OFFERED);
    a->nitems = 0;
    for (size_t i = 0; i < json_array_size(opts); i++) {
        json_t *o = json_array_get(opts, i);
        struct choice_item *it = &a->items[a->nitems++];
        it->id = get_str(o, "id", OPTION_ID_MAX - 1, true);
        json_t *g = json_object_get(o, "grant");
        it->grant = g && !json_is_null(g) ? get_str(o, "grant", RS_GRANT_MAX - 1, true) : NULL;
        if (!it->id || (g && !json_is_null(g) && !it->grant))
            return bad(r, "options", "each option is {\"id\", \"grant\"}");
    }
    return C_OK;
}

static enum cres read_result(struct rd *r, json_t *d, struct import_action *a)
{
    struct result_input *in = &a->result;
    memset(in, 0, sizeof *in);
    if (!get_int(d, "battle", 1, MAX_BATTLES, &a->battle))
        return bad(r, "battle", "must be a battle number");
    if (!get_side(d, "winner", &in->winner))
        return bad(r, "winner", "must be allies or axis");
    if (!get_pair(d, "medals", 0, 200, in->medals))
        return bad(r, "medals", "must be {\"allies\": 0..200, \"axis\": 0..200}");
    if (json_object_get(d, "undeployed_reserves")) {
        if (!get_pair(d, "undeployed_reserves", 0, 50, in->undeployed))
            return bad(r, "undeployed_reserves", "must be {\"allies\": 0..50, \"axis\": 0..50}");
        in->has_undeployed = in->undeployed[0] || in->undeployed[1];
    }
    if (json_object_get(d, "objective_medals")) {
        if (!get_pair(d, "objective_medals", 0, 200, in->objective))
            return bad(r, "objective_medals", "must be {\"allies\": 0..200, \"axis\": 0..200}");
        in->has_objective = true;
    }
    json_t *sd = json_object_get(d, "sudden_death");
    if (sd && !json_is_boolean(sd))
        return bad(r, "sudden_death", "must be true or false");
    in->sudden_death = json_is_true(sd);
    return C_OK;
}

static const char *const kind_action[] = {
    [IMPORT_ROLL] = "roll",
    [IMPORT_BATTLE] = "battle_created",
    [IMPORT_CHOICE] = "reserve_choice",
    [IMPORT_RESULT] = "result",
    [IMPORT_FINISHED] = "finished",
    [IMPORT_SEED_ROTATED] = "seed_rotated",
    [IMPORT_HELD_USED] = "held_used",
    [IMPORT_BATTLE_PICKED] = "battle_picked",
    [IMPORT_UNDO] = "undo",
};

/* The rolls' and results' state after an undo: what the remaining What-if rolls allow, the
 * victory dice the remaining results give. */
static void what_if_state(const struct import_plan *p, struct replay_state *st)
{
    memset(st->pre_battle_dice, 0, sizeof st->pre_battle_dice);
    memset(st->extra_what_if, 0, sizeof st->extra_what_if);
    memset(st->won, 0, sizeof st->won);
    memset(st->medals_previous, 0, sizeof st->medals_previous);
    const struct ruleset *rs = p->create.rse->rs;
    for (int k = 0; k < st->neffective; k++) {
        const struct import_action *a = &p->actions[st->effective[k]];
        if (a->kind == IMPORT_RESULT) {
            st->won[a->result.winner]++;
            memcpy(st->medals_previous, a->result.medals, sizeof st->medals_previous);
        }
        if (a->kind != IMPORT_ROLL || strcmp(a->purpose, "what_if") != 0)
            continue;
        const struct event_def *ev = what_if_event(rs, a->side, a->roll.faces[0]);
        const struct effect_def *pb = ev ? event_effect(ev, EFFECT_PRE_BATTLE_ROLL) : NULL;
        const struct effect_def *again = ev ? event_effect(ev, EFFECT_EXTRA_WHAT_IF) : NULL;
        if (pb)
            st->pre_battle_dice[pb->side] = pb->dice;
        if (again)
            st->extra_what_if[again->side] = true;
    }
}

/* An action of the plan as the rule on undoing an earlier one sees it. */
static struct undo_step plan_step(const struct import_action *a)
{
    return (struct undo_step){kind_action[a->kind], a->side, a->battle,
                              a->kind == IMPORT_ROLL ? a->purpose : NULL};
}

/*
 * An undo takes back the last action not undone (API.md), or with "undid" naming an earlier one,
 * a table roll or reserve choice nothing done since depends on (undo_independent): what it can
 * undo, and never a roll the server made. The replay then checks who may.
 */
static enum cres read_undo(struct rd *r, json_t *a, json_t *d, struct import_plan *p,
                           struct replay_state *st, struct import_action *out)
{
    const char *actor = json_string_value(json_object_get(a, "actor"));
    enum side s;
    if (actor && strcmp(actor, "organizer") == 0)
        out->by = ROLE_ORGANIZER;
    else if (actor && side_parse(actor, &s))
        out->by = (enum role)s;
    else
        return bad(r, NULL, "an undo is by the organizer or a side");
    const char *what = json_string_value(json_object_get(d, "action"));
    if (st->neffective == 0)
        return bad(r, "action", "there is nothing left to undo here");
    /* Which: the last action not undone, unless "undid" names an earlier one by its number (in
     * a document whose log gives numbers). */
    int k = st->neffective - 1;
    json_t *undid = json_object_get(d, "undid");
    if (json_is_integer(undid) && p->actions[st->effective[k]].seq &&
        p->actions[st->effective[k]].seq != json_integer_value(undid)) {
        while (k >= 0 && p->actions[st->effective[k]].seq != json_integer_value(undid))
            k--;
        if (k < 0)
            return bad(r, "undid", "no action standing here has this number");
    }
    struct import_action *last = &p->actions[st->effective[k]];
    if (!what || strcmp(what, kind_action[last->kind]) != 0)
        return bad(r, "action", "the action undone here is %s, not %s", kind_action[last->kind],
                   what ? what : "(none)");
    out->undo = (struct undo_target){UNDO_LAST, 0, SIDE_ALLIES};
    if (k < st->neffective - 1) {
        if (last->kind == IMPORT_ROLL)
            out->undo = (struct undo_target){UNDO_ROLL, (int)last->roll.recorded_n, last->side};
        else if (last->kind == IMPORT_CHOICE)
            out->undo = (struct undo_target){UNDO_CHOICE, last->battle, last->side};
        else
            return bad(r, "undid", "only a table roll or a reserve choice is undone after others");
        const struct undo_step target = plan_step(last);
        for (int j = k + 1; j < st->neffective; j++) {
            const struct undo_step later = plan_step(&p->actions[st->effective[j]]);
            if (!undo_independent(&target, &later))
                return bad(r, "undid", "what came after this action depends on it");
        }
    }
    switch (last->kind) {
    case IMPORT_ROLL:
        if (last->roll.recorded_epoch > 0)
            return bad(r, "action", "a roll made by the server is never undone");
        if (strcmp(last->purpose, "what_if") == 0)
            st->rolled[last->battle][last->side] &= (unsigned char)~ROLLED_WHAT_IF;
        else
            st->rolled[last->battle][last->side] &=
                (unsigned char)~(strcmp(last->purpose, "reserve") == 0      ? ROLLED_RESERVE
                                 : strcmp(last->purpose, "pre_battle") == 0 ? ROLLED_PRE_BATTLE
                                                                            : ROLLED_VICTORY);
        last->voided = true;
        break;
    case IMPORT_RESULT:
        st->has_result[last->battle] = false;
        st->results--;
        break;
    case IMPORT_BATTLE:
        st->battles--;
        break;
    case IMPORT_CHOICE:
    case IMPORT_HELD_USED:
    case IMPORT_BATTLE_PICKED:
        break;
    default:
        return bad(r, "action", "%s cannot be undone", kind_action[last->kind]);
    }
    memmove(&st->effective[k], &st->effective[k + 1],
            sizeof *st->effective * (size_t)(st->neffective - 1 - k));
    st->neffective--;
    what_if_state(p, st);
    return C_OK;
}

static enum cres read_action(struct cerr *e, json_t *a, int i, struct import_plan *p,
                             struct replay_state *st, struct import_action *out)
{
    struct rd r = {.e = e};
    snprintf(r.path, sizeof r.path, "actions[%d]", i);
    const char *action = json_string_value(json_object_get(a, "action"));
    json_t *d = json_object_get(a, "detail");
    if (!action || !json_is_object(d))
        return bad(&r, NULL, "each action is {\"action\", \"detail\"}");
    if (p->finished)
        return bad(&r, "action", "nothing can follow the end of the campaign");
    memset(out, 0, sizeof *out);
    out->index = i;
    json_t *seq = json_object_get(a, "seq");
    out->seq = json_is_integer(seq) ? json_integer_value(seq) : 0;
    if (!import_time(a, "at", out->at))
        return bad(&r, "at", "must be a time like 2026-11-24T01:50:04.146Z");
    snprintf(r.path, sizeof r.path, "actions[%d].detail", i);
    if (strcmp(action, "roll") == 0) {
        out->kind = IMPORT_ROLL;
        return read_roll(&r, d, p, st, out);
    }
    if (strcmp(action, "battle_created") == 0) {
        out->kind = IMPORT_BATTLE;
        return read_battle(&r, d, st, out);
    }
    if (strcmp(action, "reserve_choice") == 0) {
        out->kind = IMPORT_CHOICE;
        return read_choice(&r, d, out);
    }
    if (strcmp(action, "result") == 0) {
        out->kind = IMPORT_RESULT;
        enum cres rc = read_result(&r, d, out);
        if (rc == C_OK && (out->battle != st->battles || st->has_result[out->battle]))
            rc = bad(&r, "battle", "a result is recorded once, for the battle being played");
        if (rc == C_OK) {
            st->has_result[out->battle] = true;
            st->results++;
            st->won[out->result.winner]++;
            memcpy(st->medals_previous, out->result.medals, sizeof st->medals_previous);
        }
        return rc;
    }
    if (strcmp(action, "finished") == 0) {
        out->kind = IMPORT_FINISHED;
        p->finished = true;
        return C_OK;
    }
    if (strcmp(action, "seed_rotated") == 0) {
        out->kind = IMPORT_SEED_ROTATED;
        int ep;
        if (!get_int(d, "epoch", st->epoch + 1, st->epoch + 1, &ep) || ep > p->nseeds)
            return bad(&r, "epoch", "a rotation starts the next seed of the list (epoch %d)",
                       st->epoch + 1);
        st->epoch = ep;
        return C_OK;
    }
    if (strcmp(action, "held_used") == 0) {
        out->kind = IMPORT_HELD_USED;
        if (!get_int(d, "id", 1, MAX_HELD, &out->held))
            return bad(&r, "id", "must be the number of a held token");
        return C_OK;
    }
    if (strcmp(action, "battle_picked") == 0) {
        out->kind = IMPORT_BATTLE_PICKED;
        const char *ev = get_str(d, "event", RS_ID_MAX - 1, true);
        if (!ev)
            return bad(&r, "event", "must be an event id");
        snprintf(out->event, sizeof out->event, "%s", ev);
        if (!get_side(d, "side", &out->side) || !get_int(d, "battle", 1, MAX_BATTLES, &out->battle))
            return bad(&r, "battle", "a picked battle needs its side and battle");
        return C_OK;
    }
    if (strcmp(action, "undo") == 0) {
        out->kind = IMPORT_UNDO;
        return read_undo(&r, a, d, p, st, out);
    }
    snprintf(r.path, sizeof r.path, "actions[%d]", i);
    return bad(&r, "action", "\"%.40s\" is not an action m44d records", action);
}

/* The document's "rolls" (what m44 verify reads) must be the rolls its actions replay. */
static enum cres check_rolls(struct cerr *e, json_t *rolls, const struct import_plan *p)
{
    struct rd r = {.e = e, .path = "rolls"};
    if (!rolls)
        return C_OK;
    int k = 0;
    for (int i = 0; i < p->nactions; i++) {
        const struct import_action *a = &p->actions[i];
        if (a->kind != IMPORT_ROLL)
            continue;
        json_t *x = json_array_get(rolls, (size_t)k);
        snprintf(r.path, sizeof r.path, "rolls[%d]", k);
        k++;
        enum face f[RULES_MAX_DICE];
        int nf = faces_from_json(json_object_get(x, "faces"), f, RULES_MAX_DICE);
        bool server = a->roll.recorded_epoch > 0;
        json_t *cs = json_object_get(x, "client_seed"), *ep = json_object_get(x, "seed_epoch");
        bool same =
            json_is_object(x) && json_is_integer(json_object_get(x, "n")) &&
            json_integer_value(json_object_get(x, "n")) == a->roll.recorded_n &&
            json_is_string(json_object_get(x, "side")) &&
            strcmp(json_string_value(json_object_get(x, "side")), side_name(a->side)) == 0 &&
            json_is_string(json_object_get(x, "purpose")) &&
            strcmp(json_string_value(json_object_get(x, "purpose")), a->purpose) == 0 &&
            json_is_integer(json_object_get(x, "battle")) &&
            json_integer_value(json_object_get(x, "battle")) == a->battle &&
            json_is_string(json_object_get(x, "source")) &&
            strcmp(json_string_value(json_object_get(x, "source")), server ? "server" : "table") ==
                0 &&
            nf == a->roll.nfaces && memcmp(f, a->roll.faces, sizeof(enum face) * (size_t)nf) == 0 &&
            json_is_true(json_object_get(x, "voided")) == a->voided &&
            (server
                 ? json_is_string(cs) && strcmp(json_string_value(cs), a->roll.client_seed) == 0 &&
                       json_is_integer(ep) && json_integer_value(ep) == a->roll.recorded_epoch
                 : (!cs || json_is_null(cs)) && (!ep || json_is_null(ep)));
        if (!same)
            return bad(&r, NULL, "differs from roll %ld of the actions", a->roll.recorded_n);
    }
    if (json_is_array(rolls) && json_array_size(rolls) > (size_t)k) {
        snprintf(r.path, sizeof r.path, "rolls[%d]", k);
        return bad(&r, NULL, "is not a roll of the actions, which have %d", k);
    }
    snprintf(r.path, sizeof r.path, "rolls");
    if (!json_is_array(rolls) || json_array_size(rolls) != (size_t)k)
        return bad(&r, NULL, "must list the %d rolls of the actions", k);
    return C_OK;
}

enum cres import_parse(json_t *doc, struct import_plan *p, struct cerr *e)
{
    memset(p, 0, sizeof *p);
    struct rd r = {.e = e, .path = ""};
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    json_t *ver = json_object_get(doc, "format_version");
    if (!fmt || strcmp(fmt, "m44d-campaign-export") != 0 || !json_is_integer(ver) ||
        json_integer_value(ver) != 1)
        return refuse(e, PROBLEM_INVALID_FIELD, "format",
                      "This is not an m44d campaign export (format \"m44d-campaign-export\", "
                      "format_version 1).");
    const char *id = json_string_value(json_object_get(json_object_get(doc, "campaign"), "id"));
    if (!canonical_uuid(id, p->id))
        return refuse(e, PROBLEM_INVALID_FIELD, "campaign.id",
                      "campaign.id must be a UUID (8-4-4-4-12 hexadecimal digits).");
    json_t *actions = json_object_get(doc, "actions");
    if (!json_is_array(actions) || json_array_size(actions) < 1)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions",
                      "actions must list what happened, from campaign_created on.");
    json_t *first = json_array_get(actions, 0);
    const char *first_action = json_string_value(json_object_get(first, "action"));
    if (!first_action || strcmp(first_action, "campaign_created") != 0)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "The first action must be campaign_created.");
    if (!import_time(first, "at", p->created_at))
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "actions[0].at: must be a time like 2026-11-24T01:50:04.146Z");
    snprintf(r.path, sizeof r.path, "actions[0].detail");
    enum cres rc = read_created(&r, json_object_get(first, "detail"), p);
    if (rc == C_OK)
        rc = read_seeds(e, json_object_get(doc, "seeds"), p);
    if (rc != C_OK)
        return rc;
    p->actions = calloc(json_array_size(actions), sizeof *p->actions);
    if (!p->actions)
        return refuse(e, PROBLEM_INTERNAL, NULL, "Out of memory reading the export.");
    struct replay_state st = {.next_roll = 1, .epoch = 1};
    st.effective = calloc(json_array_size(actions), sizeof *st.effective);
    if (!st.effective)
        return refuse(e, PROBLEM_INTERNAL, NULL, "Out of memory reading the export.");
    for (size_t i = 1; i < json_array_size(actions); i++) {
        json_t *a = json_array_get(actions, i);
        const char *action = json_string_value(json_object_get(a, "action"));
        if (action && (strcmp(action, "imported") == 0 || strcmp(action, "key_reissued") == 0 ||
                       strcmp(action, "chat_set") == 0))
            continue; /* notes: an earlier import; keys and the chat are new here anyway */
        if (p->nactions >= IMPORT_MAX_ACTIONS) {
            free(st.effective);
            return refuse(e, PROBLEM_INVALID_FIELD, "actions",
                          "actions must list what happened, at most %d actions.",
                          IMPORT_MAX_ACTIONS);
        }
        rc = read_action(e, a, (int)i, p, &st, &p->actions[p->nactions]);
        if (rc != C_OK) {
            free(st.effective);
            return rc;
        }
        /* An action without a time takes the one before it (import.h). */
        struct import_action *now = &p->actions[p->nactions];
        if (!now->at[0])
            memcpy(now->at, p->nactions ? p->actions[p->nactions - 1].at : p->created_at,
                   sizeof now->at);
        now->roll.recorded_at = now->at;
        if (p->actions[p->nactions].kind != IMPORT_UNDO)
            st.effective[st.neffective++] = p->nactions;
        p->nactions++;
    }
    free(st.effective);
    /* A campaign's seeds are its first and one per rotation (neither is ever undone): a seed no
     * rotation started would only use up the campaign's budget of seeds here. */
    if (st.epoch < p->nseeds)
        return refuse(e, PROBLEM_INVALID_FIELD, "seeds",
                      "seeds lists %d seeds, and the actions start %d: a campaign's seeds are its "
                      "first and one per seed_rotated.",
                      p->nseeds, st.epoch);
    return check_rolls(e, json_object_get(doc, "rolls"), p);
}

void import_plan_free(struct import_plan *p)
{
    free(p->actions);
    p->actions = NULL;
    p->nactions = 0;
}
