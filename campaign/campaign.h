/*
 * Campaigns: the phases of RULES.md 2 and carry-over between battles. This is the only place
 * that knows phases. Every function here runs inside the caller's database transaction on a
 * campaign loaded with campaign_lock (so two requests for one campaign never interleave), and
 * changes the struct as well as the database; the caller saves the struct last (campaign_save).
 *
 * A refusal fills a struct cerr (the problem code, a detail naming the field, and for wrong
 * phases the phase needed) and returns C_REFUSED: the caller rolls back, nothing is written.
 */
#ifndef M44_CAMPAIGN_H
#define M44_CAMPAIGN_H

#include "campaign/problem.h"
#include "db/db.h"
#include "campaign/ruleset_load.h"
#include "rules/rules.h"

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define CAMPAIGN_ID_LEN    36 /* a UUID */
#define NAME_MAX_BYTES     200
#define PLAYER_MAX_BYTES   100
#define SCENARIO_MAX_BYTES 120
#define KEY_TEXT_LEN       43 /* 32 random bytes, base64url without padding */
#define MAX_BATTLES        60
#define MAX_EPOCHS         32

enum dice_mode { DICE_SERVER, DICE_TABLE, DICE_EITHER };
enum phase { PHASE_SETUP, PHASE_VICTORY_EVENTS, PHASE_RESERVES, PHASE_READY, PHASE_FINISHED };
enum role { ROLE_NONE = -1, ROLE_ALLIES = SIDE_ALLIES, ROLE_AXIS = SIDE_AXIS, ROLE_ORGANIZER };

/* The side a side's key acts for. */
static inline enum side role_side(enum role role)
{
    return role == ROLE_AXIS ? SIDE_AXIS : SIDE_ALLIES;
}

/* The body a group's chat takes (campaign/chat.h). */
enum chat_kind { CHAT_DISCORD, CHAT_SLACK, CHAT_GENERIC };
const char *chat_kind_name(enum chat_kind k);
bool chat_kind_parse(const char *text, enum chat_kind *k);

const char *phase_name(enum phase p);
/* Where a battle is, in players' words, to follow "Battle 2 is": "at its reserve rolls". */
const char *phase_words(enum phase p);
bool phase_parse(const char *s, enum phase *out);
const char *dice_mode_name(enum dice_mode d);
bool dice_mode_parse(const char *s, enum dice_mode *out);
const char *role_name(enum role r);

enum cres { C_OK, C_REFUSED, C_DBERR };

struct cerr {
    enum problem_code code;
    char detail[400];
    char field[96];    /* JSON path of the offending field, or "" */
    const char *phase; /* for wrong-phase: the phase the request needs, or NULL */
};

/* A UUID written in any case, as 36 lowercase characters (as PostgreSQL writes a uuid); false
 * when `text` is not a UUID. */
bool canonical_uuid(const char *text, char out[CAMPAIGN_ID_LEN + 1]);

/* Fills e and returns C_REFUSED. */
enum cres refuse(struct cerr *e, enum problem_code code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

struct battle {
    int number;
    char scenario[SCENARIO_MAX_BYTES + 1];
    enum side first_player;
    int cards[SIDE_COUNT];
    int medals_to_win;
    int commissar; /* side under the Political Commissar rule, or -1 */
    /* the set-up as given, before What-if events changed it (battle_apply_overrides) */
    enum side setup_first_player;
    int setup_commissar;
    enum phase phase;
    int winner; /* -1 until the result */
    int medals[SIDE_COUNT];
    int undeployed[SIDE_COUNT];
    int objective[SIDE_COUNT];
    bool sudden_death; /* won by the scenario's special condition (API.md) */
    int nmaps;         /* a multi-map battle (RULES.md 7): its D-Day Landings maps */
    char maps[RS_MAX_MAPS][RS_ID_MAX];
    int nfeatures; /* what the scenario has that effects ask about ("destroyers") */
    char features[RS_MAX_FEATURES][RS_ID_MAX];
    char created_at[40], finished_at[40];
};

struct seed {
    int epoch;
    bool known; /* its value is held here (not a secret that stayed with the exporting server) */
    bool from_document; /* it came in an import: its value, if any, is public */
    uint8_t bytes[SEED_BYTES];
    char commitment[65];
    bool revealed;
    char revealed_at[40];
};

struct effect_row {
    char event_id[RS_ID_MAX];
    bool rolled_by[SIDE_COUNT];
    json_t *data;      /* {"name","text","scope"} as rolled */
    int picked_battle; /* the battle a side picked for it (EFFECT_PICK_BATTLE), or 0 */
    int from_battle;   /* rolled on a second What-if roll: the first battle it is in force at */
};

#define MAX_HELD 128

/* An action's line in the event log: its number, who did it, what, and its detail. */
struct log_action {
    long long seq;
    char actor[16];
    char action[32];
    json_t *detail;
};

/* A token or star a side won in a reserve roll and holds until it is used (RULES.md 9). */
struct held {
    int id; /* 1, 2, 3 ... per campaign */
    enum side side;
    char grant[RS_GRANT_MAX];
    int battle;
    char state[12]; /* "held", "used", "removed" */
};

/* A new pointer member must be copied in campaign_copies_make, freed in campaign_copies_free and
 * lent in campaign_copies_lend (campaign/state.c): campaign_own and the campaigns held in memory
 * (campaign/state_cache.c, which copies the struct's parts as bytes) use those three. */
struct campaign {
    char id[CAMPAIGN_ID_LEN + 1];
    char name[NAME_MAX_BYTES + 1];
    char ruleset_id[RS_ID_MAX];
    const struct ruleset_entry *rse; /* NULL when the ruleset is not loaded here */
    bool what_if;
    enum dice_mode dice;
    bool finished;
    long long version;
    long next_roll;
    int seed_epoch;
    char players[SIDE_COUNT][PLAYER_MAX_BYTES + 1];
    int tokens[SIDE_COUNT];
    uint8_t key_hash[3][32];         /* allies, axis, organizer (enum role order) */
    uint8_t key_prev[3][32];         /* the keys they replaced (all zero: none) */
    json_t *scenarios_json;          /* the campaign's own scenario list, or NULL */
    struct scenario_list *scenarios; /* the list in force (own or ruleset's), or NULL */
    int winner;
    char created_at[40], finished_at[40];

    int nbattles;
    struct battle battles[MAX_BATTLES];
    int nseeds;
    struct seed seeds[MAX_EPOCHS];
    int neffects;
    struct effect_row effects[RS_MAX_EVENTS];
    /* What-if rolls: the event each side rolled ("" when not yet). */
    char what_if_event[SIDE_COUNT][RS_ID_MAX];
    enum face what_if_face[SIDE_COUNT];
    /* A second What-if roll an effect allowed (Forward Command): the battle after which it was
     * made (0: none), and its event and face. */
    int what_if_again[SIDE_COUNT];
    char what_if_again_event[SIDE_COUNT][RS_ID_MAX];
    enum face what_if_again_face[SIDE_COUNT];
    int nheld;
    struct held held[MAX_HELD];
    /* The last action not undone (what an undo would undo), from the event log: seq 0 when
     * there is none. Actions up to undo_from were made before undo existed here. */
    struct log_action last;
    long long undo_from;
    char grand_id[CAMPAIGN_ID_LEN + 1]; /* "" when not part of a grand campaign */
    int grand_index;                    /* its place there, from 1 */
    char grand_name[NAME_MAX_BYTES + 1];
    char grand_ruleset[RS_ID_MAX];
    char *webhook_url; /* the chat's (own, or its grand campaign's), or NULL */
    enum chat_kind webhook_kind;
    bool webhook_own;        /* its own chat (not its grand campaign's) */
    long long grand_version; /* its grand campaign's version (0: none) */
    /* This write added token changes or held tokens that campaign_stamp has not yet marked. */
    bool unstamped;
    /* This write started from the campaign held in memory (campaign/state_cache.h), not part of
     * a grand campaign, with its version checked by the write's first statement: what it does
     * not hold (which of the battle's dice are rolled) is not read where the statement that
     * writes refuses a clash (the reserve roll), and the version bump goes first, in place of
     * the check. Such a clash, or a version moved on, runs the write again from a load. Once a
     * read has sent the check (campaign_unconfirmed), the campaign held is confirmed, and this is
     * false. */
    bool optimistic;
};

/* last.seq of an action made in memory whose log line's number the database has not told
 * (campaign/state_cache.h): newer than every number loaded. */
#define CAMPAIGN_SEQ_UNKNOWN LLONG_MAX

/* ---- loading and saving (campaign/state.c) ---- */

/*
 * Loads campaign `id` with its battles, seeds and effects. With `lock`, the row is locked FOR
 * UPDATE until the transaction ends. Returns C_OK, C_REFUSED (404: no such campaign) or
 * C_DBERR. The struct is large: allocate it with campaign_new.
 */
enum cres campaign_load(struct db *db, const char *id, bool lock, struct campaign *c,
                        struct cerr *e);
/*
 * The campaign as stored now, for a read: the copy held in memory (campaign/state_cache.h) when
 * the database shows the versions it was held at, in one primary-key lookup instead of the
 * load; else loaded (without the lock) and held from then on, so that the next write or read
 * starts from it. *held says which. Same returns as campaign_load.
 */
enum cres campaign_read(struct db *db, const char *id, struct campaign *c, struct cerr *e,
                        bool *held);
/* Whether c is the campaign stored: loaded now and compared (campaign_same). C_OK: the same;
 * C_REFUSED: not (why names the first difference); C_DBERR: the load failed. Unless `locked`
 * (the transaction holds the campaign's row lock), a campaign found moved on to other versions
 * since is not compared (C_OK). */
enum cres campaign_check_stored(struct db *db, const struct campaign *c, bool locked, char *why,
                                size_t len);
struct campaign *campaign_new(void);
void campaign_free(struct campaign *c);
/* Lets go of what c holds and zeroes it. */
void campaign_clear(struct campaign *c);
/* c's pointers (its scenario list, effects' data, last action, chat link) lead to another
 * campaign's: c gets copies of its own. false: out of memory (c is left empty). */
bool campaign_own(struct campaign *c);
/* What a campaign's pointers lead to, as copies: its own scenario list (NULL when it plays the
 * ruleset's, which is borrowed), each effect's data, the last action's detail, the chat link. */
struct campaign_copies {
    json_t *scenarios_json;
    struct scenario_list *scenarios; /* parsed from scenarios_json */
    json_t *effect_data[RS_MAX_EVENTS];
    json_t *last_detail;
    char *webhook_url;
};
/* out: copies of what c's pointers lead to, sharing nothing with c. false: out of memory (out
 * holds nothing). */
bool campaign_copies_make(const struct campaign *c, struct campaign_copies *out);
void campaign_copies_free(struct campaign_copies *x);
/* c's pointers lead to x's copies (c's ruleset's scenario list stays when x has none of its own):
 * borrowed, until campaign_own, or x's as long as x holds them. */
void campaign_copies_lend(struct campaign *c, const struct campaign_copies *x);
/* Whether two campaigns are the same as far as anything reads them; when not, `why` names the
 * first difference. A last.seq of CAMPAIGN_SEQ_UNKNOWN matches any number. */
bool campaign_same(const struct campaign *held, const struct campaign *loaded, char *why,
                   size_t len);
/* An action's log line as the campaign's last action, in memory (its number unknown): kept as
 * campaign_load would read it back. */
void campaign_note_last(struct campaign *c, const char *actor, const char *action,
                        const json_t *detail);

/* A finished_at in memory, as the save statements set it in the database: kept once set, the
 * transaction's time (db_tx_time) when it ends, none while it is not over. */
enum cres campaign_end_time(struct db *db, bool finished, char *at, size_t len);
/* Writes the campaign row's mutable fields and bumps its version by one. */
enum cres campaign_save(struct db *db, struct campaign *c);
/* Whether the write still goes on the campaign held unconfirmed (optimistic, above): false once
 * a read went first and sent the version check with it (none does before a reserve roll today:
 * an Idempotency-Key's lookup waits, api/write.c), the campaign then being locked at the
 * versions held, and the write reading what it needs as any other. */
bool campaign_unconfirmed(struct db *db, struct campaign *c);

/* The ruleset, or a refusal when this server does not have it loaded: CAMPAIGN_NO_RULES to the
 * players, and a warning naming the ruleset for the operator. */
#define CAMPAIGN_NO_RULES                                                                          \
    "This server does not have this campaign's rules, so the campaign cannot go on here."
const struct ruleset *campaign_ruleset(const struct campaign *c, struct cerr *e);

/* The last battle, or NULL before the first. */
struct battle *campaign_current(struct campaign *c);
struct battle *campaign_battle(struct campaign *c, int number);

/* Derived standing: battles won, medals and objective medals per side. */
void campaign_standing(const struct campaign *c, struct standing *st);
/* Its outcome as it stands (rules/outcome.c); a campaign of a grand campaign is graded as the
 * grand campaign grades its finished campaigns (RULES.md 8), so that both say the same. */
void campaign_graded_outcome(const struct campaign *c, const struct standing *st,
                             struct outcome *o);

/* The role a bearer key gives in this campaign (constant-time comparisons), or ROLE_NONE. */
enum role campaign_role(const struct campaign *c, const char *key);
/* The role whose previous key this is (a key replaced by a re-issue), or ROLE_NONE. */
enum role campaign_replaced_role(const struct campaign *c, const char *key);

/* The events in force at battle `battle` (rolled, known to the loaded ruleset, and not rolled
 * for a later battle; 0: every event rolled so far): their definitions. */
int campaign_events(const struct campaign *c, int battle, const struct event_def **out, int max);

/* Of those, the ones whose scope takes battle `number` in (docs/RULESETS.md: its number, its
 * `scenario`, the battle a side picked for it); `out` holds RS_MAX_EVENTS. */
int campaign_events_in_scope(const struct campaign *c, int number, const char *scenario,
                             const struct event_def **out);

/* What the events in force at battle `battle`, whose scope takes it in, do to a side's reserve
 * options. */
void campaign_option_mods(const struct campaign *c, enum side side, int battle,
                          struct option_mods *mods);

/* The pre-battle rolls battle `b` calls for (events in force whose scope takes it in): the
 * effects, with the events they belong to. */
struct pre_battle_need {
    const struct event_def *event;
    const struct effect_def *roll;
};
int campaign_pre_battle_needs(const struct campaign *c, const struct battle *b,
                              struct pre_battle_need *out, int max);

/* Whether `side` may roll once more on the What-if table now (an effect allows it, a battle
 * has been played since the last roll, the next battle has not begun, and it was not used). */
bool campaign_what_if_again(const struct campaign *c, enum side side);

/* Appends a line to the event log. A NULL detail (a json_pack that failed) is C_DBERR. */
enum cres campaign_log(struct db *db, struct campaign *c, const char *actor, const char *action,
                       json_t *detail /* stolen */);

/* Changes a side's tokens by `delta` (or to a value) and records it in the ledger. */
enum cres campaign_tokens(struct db *db, struct campaign *c, enum side side, int new_value,
                          const char *reason, int battle);

/* ---- rolls (campaign/roll.c) ---- */

/* How the dice of a roll request come. */
struct roll_input {
    bool table; /* faces entered from the table */
    char client_seed[CLIENT_SEED_MAX + 1];
    int nfaces; /* table faces */
    enum face faces[RULES_MAX_DICE];
    /* Import only: the roll as recorded in an export, taken as it is. */
    bool recorded;
    long recorded_n;
    int recorded_epoch;      /* 0 for a table roll */
    const char *recorded_at; /* when it was rolled; NULL or "": now */
};

struct roll {
    long n;
    enum side side;
    bool table;
    char client_seed[CLIENT_SEED_MAX + 1];
    int epoch;
    int count;
    enum face faces[RULES_MAX_DICE];
    const char *at; /* an imported roll's time (roll_input.recorded_at); NULL: now */
};

/*
 * Draws one roll of `count` dice for `side` without storing it: checks the dice source against
 * the campaign, takes the next roll number, and derives server faces from the seed (RULES.md
 * 1.2) or takes the table faces. `purpose` is "what_if", "victory_events" or "reserve".
 */
enum cres roll_draw(struct campaign *c, enum side side, const char *purpose, int count,
                    const struct roll_input *in, struct roll *out, struct cerr *e);

/* Stores a drawn roll (with `detail`, stolen) and logs it; the next roll number moves on. */
enum cres roll_store(struct db *db, struct campaign *c, const char *purpose, int battle,
                     const struct roll *r, json_t *detail);

/* Ids as a PostgreSQL text[] literal ("{sword,juno}"). */
void text_array_sql(const char (*items)[RS_ID_MAX], int n, char *out, size_t len);

/* Faces as a PostgreSQL text[] literal, and back. */
void faces_to_sql(const enum face *f, int n, char *out, size_t len);
int campaign_faces_from_sql(const char *arr, enum face *out, int max);

/* ---- actions (one file each under campaign/) ---- */

/* A campaign of a grand campaign: the grand campaign's id, the campaign's place there, and the
 * grand campaign's key hashes (hex: allies, axis, organizer), which the campaign shares (it gets
 * no keys of its own). */
struct grand_link {
    const char *id;
    int index;
    char key_hex[3][65];
    /* What the campaign at `index` is played with: its name in the book, its rules, and the
     * grand campaign's What-if choice (where those rules have events), dice and players. */
    const char *name;
    const struct ruleset_entry *rse; /* NULL: its rules are not loaded here */
    bool what_if;
    enum dice_mode dice;
    const char *players[SIDE_COUNT];
};

struct create_input {
    const char *id; /* NULL: a new random id (import passes the exported one) */
    const char *name;
    const struct ruleset_entry *rse;
    bool what_if;
    enum dice_mode dice;
    int tokens[SIDE_COUNT];
    const char *players[SIDE_COUNT];
    json_t *scenarios;              /* the campaign's own scenario list, or NULL */
    bool no_seed;                   /* import: seeds come from the export */
    const struct grand_link *grand; /* NULL: not part of a grand campaign */
};

struct create_output {
    char id[CAMPAIGN_ID_LEN + 1];
    char keys[3][KEY_TEXT_LEN + 1]; /* allies, axis, organizer */
    char commitment[65];
};

enum cres campaign_create(struct db *db, const struct create_input *in, struct create_output *out,
                          struct cerr *e);

/* What-if roll for `side` (campaign/what_if.c). */
struct what_if_output {
    struct roll roll;
    const struct event_def *event;
    bool applied; /* false when the other side had rolled it already and it does not stack */
};
enum cres campaign_what_if(struct db *db, struct campaign *c, enum side side,
                           const struct roll_input *in, struct what_if_output *out, struct cerr *e);

/* A new battle (campaign/battle.c). Fields left unset (scenario NULL, cards -1...) come from the
 * campaign's scenario list. */
struct battle_input {
    const char *scenario;
    int first_player; /* -1: from the list */
    int cards[SIDE_COUNT];
    int medals_to_win;
    int commissar; /* -1 none */
    int nmaps;     /* a multi-map battle: D-Day Landings map ids (medals and cards from data) */
    const char *maps[RS_MAX_MAPS];
    int nfeatures;
    const char *features[RS_MAX_FEATURES];
};
enum cres campaign_new_battle(struct db *db, struct campaign *c, const struct battle_input *in,
                              struct battle **out, struct cerr *e);

/* Victory event roll (campaign/victory_events.c). */
int campaign_victory_dice(const struct campaign *c, const struct battle *b, enum side side);
enum cres campaign_victory_roll(struct db *db, struct campaign *c, int battle, enum side side,
                                const struct roll_input *in, struct roll *out, struct cerr *e);

/* Reserve roll and choice (campaign/reserve.c). */
enum cres campaign_reserve_roll(struct db *db, struct campaign *c, int battle, enum side side,
                                const struct roll_input *in, struct roll *out,
                                struct option_list *offered, struct cerr *e);
struct choice_output {
    json_t *chosen; /* [{"id","grant","cost","dice"}] */
    int cost;
    int tokens;
};
enum cres campaign_reserve_choice(struct db *db, struct campaign *c, int battle, enum side side,
                                  const struct choice_item *items, int nitems,
                                  struct choice_output *out, struct cerr *e);

/* Battle result and carry-over (campaign/result.c). */
struct result_input {
    enum side winner;
    int medals[SIDE_COUNT];
    int undeployed[SIDE_COUNT];
    int objective[SIDE_COUNT];
    bool has_undeployed, has_objective;
    bool sudden_death; /* won by the scenario's special condition: the medals may say otherwise */
    bool replayed;     /* from an export: undeployed reserves up to the options taken (result.c) */
};
enum cres campaign_result(struct db *db, struct campaign *c, int battle,
                          const struct result_input *in, struct cerr *e);

/*
 * Finishing and seed rotation (campaign/finish.c). Both reveal every seed whose value this
 * server holds; a seed it never held (a secret that stayed with the server an import came
 * from) stays unrevealed, and the rolls made with it stay unverifiable.
 */
enum cres campaign_finish(struct db *db, struct campaign *c, struct cerr *e);
/* Reveals the seed and goes on with a new secret one, drawn here (logged: seed_rotated). */
enum cres campaign_rotate_seed(struct db *db, struct campaign *c, const char *actor,
                               struct cerr *e);
/* Import only: a recorded rotation moves to the next seed of the imported list. */
enum cres campaign_next_seed(struct db *db, struct campaign *c, struct cerr *e);

/* The seed server rolls are drawn from now, or a refusal (409) when it is not a secret this
 * server holds: revealed, not held here, or public because it came in a document. No path may
 * roll with a seed anyone else may know. */
const struct seed *campaign_secret_seed(const struct campaign *c, struct cerr *e);

/* A pre-battle roll an effect calls for (campaign/pre_battle.c): Naval Struggle's three dice. */
enum cres campaign_pre_battle_roll(struct db *db, struct campaign *c, int battle, enum side side,
                                   const struct roll_input *in, struct roll *out, int *hits,
                                   struct cerr *e);

/* A side picks the battle an event is for (campaign/pick.c): Night Attacks. */
enum cres campaign_pick_battle(struct db *db, struct campaign *c, int battle, enum side side,
                               const char *event_id, struct cerr *e);

/* The organizer marks a held token or star used (campaign/held.c). */
enum cres campaign_use_held(struct db *db, struct campaign *c, int id, struct cerr *e);

/* Records what a reserve choice granted that the side keeps (campaign/held.c). */
enum cres campaign_keep_grants(struct db *db, struct campaign *c, enum side side, int battle,
                               const struct choice_result *res);

/* At the end of a campaign, every held token or star is removed (campaign/held.c). */
enum cres campaign_remove_held(struct db *db, struct campaign *c);

/*
 * Restores a campaign from an export (GET .../export) under its id, with new keys (or, as
 * part of a grand campaign, `grand`'s); `c` receives the restored campaign. Replays every
 * action; refuses the whole import on the first one that does not replay (the field names it).
 */
enum cres campaign_import(struct db *db, json_t *doc, const struct grand_link *grand,
                          struct create_output *out, struct campaign *c, struct cerr *e);

/* ---- corrections (campaign/undo.c, campaign/keys.c) ---- */

/*
 * What an undo would undo now: `what` in players' words ("the Axis' reserve roll for battle 2
 * (star, flag)"), and `why_not` when it cannot be ("" when it can). False when nothing has been
 * done yet. UNDO_TEXT_MAX holds either with the longest text a ruleset may give (a token's).
 */
#define UNDO_TEXT_MAX (RS_TEXT_MAX + 192)
bool campaign_undo_info(const struct campaign *c, char *what, size_t wlen, char *why_not,
                        size_t nlen);
/*
 * What an undo takes back: the last action (UNDO_LAST), or an earlier one of a side's while
 * nothing after it depends on it: a roll entered from the table, by its number (UNDO_ROLL,
 * `n`), or a side's reserve choice in battle `n` (UNDO_CHOICE).
 */
enum undo_kind { UNDO_LAST, UNDO_ROLL, UNDO_CHOICE };
struct undo_target {
    enum undo_kind kind;
    int n;
    enum side side; /* UNDO_CHOICE */
};
/* Undoes an action (API.md): `role` is who asks (the organizer, or the side whose action it
 * was). On C_OK the campaign is as it would be had that action not been done, and *undone (a
 * new reference) says what was undone (logged as "undo"). */
enum cres campaign_undo(struct db *db, struct campaign *c, enum role role,
                        const struct undo_target *t, json_t **undone, struct cerr *e);
/* An action as the rule on undoing an earlier one sees it: "roll" or "reserve_choice" (any
 * other action is neither), the side, the battle, and a roll's purpose. */
struct undo_step {
    const char *action;
    enum side side;
    int battle;
    const char *purpose;
};
/* Whether `later`, done after `target`, leaves `target` free to be undone: a roll or reserve
 * choice of the other side at the same step of the same battle (victory events and pre-battle
 * rolls; reserve rolls and choices), which cannot depend on it. */
bool undo_independent(const struct undo_step *target, const struct undo_step *later);
/* A new key for `role`; the old one stops working at once (logged as "key_reissued"). On a
 * campaign of a grand campaign the key is the grand campaign's, for all its campaigns: `g` is
 * then left holding the grand campaign (its campaigns, whose versions moved), as loaded and
 * locked. */
struct grand;
enum cres campaign_reissue_key(struct db *db, struct campaign *c, struct grand *g, enum role role,
                               char key[KEY_TEXT_LEN + 1], struct cerr *e);
/* 32 random bytes as base64url text, and the hex of its SHA-256 (what is stored). */
void campaign_new_key(char key[KEY_TEXT_LEN + 1], char hash_hex[65]);
/* A random (version 4) UUID. */
void campaign_new_uuid(char out[CAMPAIGN_ID_LEN + 1]);
/* The role whose key hash (allies, axis, organizer) matches `key`, in constant time; an all-zero
 * hash (no key) never matches. */
enum role keys_role(const uint8_t hashes[3][32], const char *key);
/* Marks the rows the action just done wrote (token changes, held tokens) with its log entry,
 * so that an undo finds them. Called after every action; an action that wrote none of them
 * (c->unstamped false: most rolls and choices) sends nothing. */
enum cres campaign_stamp(struct db *db, struct campaign *c);

/* ---- one battle's rolls and choices (campaign/detail.c) ---- */

struct side_detail {
    bool ve_rolled;
    struct roll ve;
    bool pb_rolled; /* a pre-battle roll (purpose "pre_battle") */
    struct roll pb;
    char pb_id[RS_ID_MAX];
    char pb_at[40];
    bool rr_rolled;
    struct roll rr;
    json_t *offered; /* the options shown with the reserve roll */
    bool chosen;
    json_t *chosen_json;
    int cost, tokens_after;
    char chosen_at[40];
    char ve_at[40], rr_at[40];
};

struct battle_detail {
    struct side_detail side[SIDE_COUNT];
};

enum cres battle_detail_load(struct db *db, const struct campaign *c, int battle,
                             struct battle_detail *d);
void battle_detail_free(struct battle_detail *d);

/* ---- phases (campaign/phase.c) ---- */

/* Moves battle `b` forward through phases whose work is done (or that have none); `d` may be
 * NULL for a battle with nothing rolled yet. */
void phase_advance(const struct campaign *c, struct battle *b, const struct battle_detail *d);
/* The same, stored when the phase moved (after a roll or a choice). */
enum cres phase_advance_save(struct db *db, const struct campaign *c, struct battle *b,
                             const struct battle_detail *d);

/* Stores a battle's phase and result. */
enum cres battle_save(struct db *db, const struct campaign *c, struct battle *b);
/* Applies what the What-if events in force change in a battle's set-up (first player, Commissar).
 */
void battle_apply_overrides(const struct campaign *c, struct battle *b);

/* Refuses unless battle `number` exists, is the current one and is in phase `need`. */
enum cres phase_require(struct campaign *c, int number, enum phase need, struct battle **out,
                        struct cerr *e);

/* The victory-event outcome of a battle whose both sides have rolled (or have no dice). */
bool battle_victory_outcome(const struct campaign *c, const struct battle *b,
                            const struct battle_detail *d, struct victory_outcome *out);

/* What the battle waits for: e.g. ["allies:victory-events", "axis:reserve-choice"]. */
json_t *battle_waiting_for(const struct campaign *c, const struct battle *b,
                           const struct battle_detail *d);

/* The next scenario of the list after the last battle: index, SCENARIO_END, or -2 (no list). */
int campaign_next_scenario(const struct campaign *c);

#endif
