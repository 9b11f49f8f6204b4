/*
 * The rules core: pure functions from dice to what the rule book says they mean
 * (../shared/spec/RULES.md). No I/O, no globals, no jansson or libpq here: plain structs in,
 * plain structs out. The ruleset *data* comes from the JSON files in rules/data, loaded by
 * rules/load.h.
 */
#ifndef M44_RULES_H
#define M44_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Sides and dice (RULES.md 1) ---- */

enum side { SIDE_ALLIES = 0, SIDE_AXIS = 1 };
#define SIDE_COUNT 2

/* Die symbols. A die has six faces: infantry twice, then armor, grenade, star, flag. */
enum face { FACE_INFANTRY = 0, FACE_ARMOR, FACE_GRENADE, FACE_STAR, FACE_FLAG };
#define FACE_COUNT 5

#define RULES_MAX_DICE 128 /* per side per roll; simplified rules roll medals + wins */

const char *side_name(enum side s);      /* "allies" / "axis" */
const char *side_title(enum side s);     /* "Allies" / "Axis" */
const char *side_adjective(enum side s); /* "Allied" / "Axis": "the Allied player" (book) */
enum side side_other(enum side s);
bool side_parse(const char *name, enum side *out);

const char *face_name(enum face f); /* "infantry", "armor", "grenade", "star", "flag" */
bool face_parse(const char *name, enum face *out);

/* The symbol on die face index 0..5 (0 and 1 are infantry). */
enum face face_of_index(int index);

/* ---- Verifiable server rolls (RULES.md 1.2) ---- */

#define SEED_BYTES      32
#define CLIENT_SEED_MAX 64

/*
 * Derives `count` faces for roll number `n` of campaign `campaign_id`: the byte stream
 * HMAC-SHA256(key=seed, msg="<campaign_id>:<n>:<client_seed>:<k>") for k = 0, 1, ...;
 * each byte b < 252 gives face index b % 6, bytes >= 252 are skipped.
 * Returns 0, or -1 when an argument is out of range.
 */
int dice_derive(const uint8_t seed[SEED_BYTES], const char *campaign_id, long n,
                const char *client_seed, int count, enum face *out);

/* SHA-256 of the seed as 64 lowercase hex characters plus NUL. */
void dice_commitment(const uint8_t seed[SEED_BYTES], char out[65]);

/* ---- Ruleset data ---- */

#define RS_ID_MAX            48
#define RS_NAME_MAX          96
#define RS_TEXT_MAX          320
#define RS_LONG_TEXT_MAX     1100
#define RS_GRANT_MAX         40
#define RS_MAX_GRANTS        64
#define RS_MAX_OPTION_GRANTS 8
#define RS_MAX_OPTIONS       32
#define RS_MAX_EVENTS        16
#define RS_MAX_EFFECTS       4
#define RS_MAX_SCOPE_ITEMS   8
#define RS_MAX_SCENARIOS     24
#define RS_MAX_GRADES        4
#define RS_MAX_TRACK         16
#define RS_MAX_NOTES         4

struct grant_def {
    char id[RS_GRANT_MAX];
    char text[RS_TEXT_MAX];
    bool kept; /* a token or star the side holds until it is used (RULES.md 9) */
    bool unit; /* brings a new unit onto the map: one left unplaced is an undeployed reserve */
};

/*
 * A reserve option as data: the dice symbols it uses, what it may grant and what each
 * alternative costs (RULES.md 9: an option's alternatives may cost differently).
 */
struct option_def {
    char key[RS_ID_MAX];
    int ndice; /* 1 or 2 */
    enum face dice[2];
    int ngrants;
    char grants[RS_MAX_OPTION_GRANTS][RS_GRANT_MAX]; /* alternatives */
    int grant_cost[RS_MAX_OPTION_GRANTS];            /* Reserve Tokens, per alternative */
    char text[RS_TEXT_MAX];
};

struct reserve_rules {
    bool enabled;
    int dice; /* dice per reserve roll (2) */
    int noptions[SIDE_COUNT];
    struct option_def options[SIDE_COUNT][RS_MAX_OPTIONS];
};

struct victory_rules {
    bool enabled;
    int from_battle;      /* first battle that has a victory event roll (2) */
    int base_dice;        /* dice before bonuses (2; 0 in the simplified rules) */
    int per_battle_won;   /* dice per battle the side has won (1) */
    bool previous_medals; /* add the medals the side won in the previous battle */
    int norder;
    enum face order[FACE_COUNT]; /* per side, in this order ... */
    int nlast;
    enum face last[FACE_COUNT]; /* ... then these, for both sides, after everything else */
    int min_hand;
    char instructions[FACE_COUNT][RS_TEXT_MAX]; /* "{roller}" / "{opponent}" are replaced */
    char commissar_note[RS_TEXT_MAX];
    int nnotes;
    char notes[RS_MAX_NOTES][RS_TEXT_MAX];
};

/* What a What-if event does to the game, as state the rules apply (RULES.md 5, 9). */
enum effect_type {
    EFFECT_TOKENS,          /* Reserve Tokens added or set (Relief, Force Z ...) */
    EFFECT_GRANT,           /* a reserve grant rewritten (British Tank Regiment) */
    EFFECT_REMOVE_GRANTS,   /* reserve grants taken from a side (Allied Air Supremacy) */
    EFFECT_FIRST_PLAYER,    /* a side moves first where the scope applies (Soviet Invasion) */
    EFFECT_NO_COMMISSAR,    /* the Political Commissar rule is lifted where the scope applies */
    EFFECT_EXTRA_WHAT_IF,   /* the side may roll once more on the What-if table after a battle */
    EFFECT_PRE_BATTLE_ROLL, /* a roll before battles with a feature (Naval Struggle) */
    EFFECT_PICK_BATTLE,     /* the side picks the one battle the event is for (Night Attacks) */
};
enum effect_side { EFFECT_ALLIES = 0, EFFECT_AXIS = 1, EFFECT_ROLLER = 2 };
enum token_op { TOKENS_ADD, TOKENS_SET };

#define RS_MAX_EFFECT_GRANTS 4

struct effect_def {
    enum effect_type type;
    enum effect_side side;
    enum token_op op; /* EFFECT_TOKENS */
    int amount;       /* EFFECT_TOKENS */
    int after_battle; /* EFFECT_TOKENS: 0 = at once, N = after battle N's result */
    char from[RS_GRANT_MAX], to[RS_GRANT_MAX]; /* EFFECT_GRANT: reserve grant rewritten */
    int ngrants;                               /* EFFECT_REMOVE_GRANTS */
    char grants[RS_MAX_EFFECT_GRANTS][RS_GRANT_MAX];
    /* EFFECT_PRE_BATTLE_ROLL: the roll's id, dice, the faces that are hits, the battle feature
     * that calls for it, and what the hits do */
    char roll[RS_ID_MAX];
    int dice;
    int nhits;
    enum face hits[FACE_COUNT];
    char feature[RS_ID_MAX];
    char text[RS_TEXT_MAX];
};

/* Which battles a standing effect is shown at. */
enum scope_kind {
    SCOPE_NONE,     /* nothing to show at battles (a token change only) */
    SCOPE_CAMPAIGN, /* every battle */
    SCOPE_EXCEPT,   /* every battle except the named scenarios */
    SCOPE_ONLY,     /* only the named scenarios */
    SCOPE_BATTLES,  /* only these battle numbers */
    SCOPE_PICKED,   /* only the battle a side picked (EFFECT_PICK_BATTLE) */
};

struct scope {
    enum scope_kind kind;
    int n;
    char scenarios[RS_MAX_SCOPE_ITEMS][RS_NAME_MAX]; /* EXCEPT / ONLY: whole names */
    int battles[RS_MAX_SCOPE_ITEMS];                 /* BATTLES */
    int nresults;                                    /* also shown with these battles' results */
    int results[RS_MAX_SCOPE_ITEMS];
};

struct event_def {
    char id[RS_ID_MAX];
    char name[RS_NAME_MAX];
    char text[RS_LONG_TEXT_MAX];
    int neffects;
    struct effect_def effects[RS_MAX_EFFECTS];
    struct scope scope;
    bool stacks; /* rolled by both sides: applies for each roller (else once) */
};

struct what_if_rules {
    bool enabled;
    enum face faces[5];          /* list position -> die symbol (the reading of RULES.md 5) */
    char face_note[RS_TEXT_MAX]; /* said wherever a roll's event is shown (RULES.md 9) */
    int nevents;
    struct event_def events[RS_MAX_EVENTS];
    int column[SIDE_COUNT][5]; /* per side: event index for list position 0..4 */
};

#define SCENARIO_END (-1)

struct scenario_def {
    char name[RS_NAME_MAX];
    enum side first_player;
    int cards[SIDE_COUNT];
    int medals_to_win;
    int tokens_added[SIDE_COUNT]; /* Reserve Tokens added when this scenario is reached */
    int next[SIDE_COUNT];         /* scenario index after a win by each side, or SCENARIO_END */
};

struct scenario_list {
    int n; /* 0: the organizer adds each battle by hand */
    int start;
    struct scenario_def s[RS_MAX_SCENARIOS];
    char note[RS_LONG_TEXT_MAX];
};

enum rank_key { RANK_BATTLES_WON, RANK_MEDALS, RANK_VICTORY_POINTS };

struct grade_def {
    char name[RS_ID_MAX];
    int min_margin; /* margin on the first ranking key */
    int points;     /* grand-campaign points */
};

struct outcome_rules {
    int nrank;
    enum rank_key rank_by[3];
    int ngrades; /* sorted by min_margin, largest first */
    struct grade_def grades[RS_MAX_GRADES];
    int track_len[SIDE_COUNT]; /* objective track: bonus by objective medals (last repeats) */
    int track[SIDE_COUNT][RS_MAX_TRACK];
};

/* D-Day Landings maps and their combinations (RULES.md 7). */
#define RS_MAX_MAPS     8
#define RS_MAX_COMBOS   16
#define RS_MAX_FEATURES 8

struct map_def {
    char id[RS_ID_MAX];
    char name[RS_NAME_MAX];
};

struct map_combo {
    int nmaps;
    int maps[RS_MAX_MAPS]; /* indices into map_rules.maps */
    int medals_to_win;     /* the maps' medals added up */
    bool has_cards;        /* OverThrough: each Commander-in-Chief's command cards */
    int cards[SIDE_COUNT];
    char mode[RS_NAME_MAX];
};

struct map_rules {
    int nmaps;
    struct map_def maps[RS_MAX_MAPS];
    int ncombos;
    struct map_combo combos[RS_MAX_COMBOS];
};

/* Something a scenario may have that an effect asks about ("destroyers"). */
struct feature_def {
    char id[RS_ID_MAX];
    char text[RS_TEXT_MAX];
};

struct ruleset {
    char id[RS_ID_MAX];
    char name[RS_NAME_MAX];
    char description[RS_TEXT_MAX];
    char reserve_placement[RS_TEXT_MAX]; /* where called-up units go, said to players */
    char source[RS_TEXT_MAX];
    int tokens_default[SIDE_COUNT];
    int ngrants;
    struct grant_def grants[RS_MAX_GRANTS];
    struct reserve_rules reserve;
    struct victory_rules victory;
    struct what_if_rules what_if;
    struct scenario_list scenarios;
    struct outcome_rules outcome;
    struct map_rules maps;
    int nfeatures;
    struct feature_def features[RS_MAX_FEATURES];
};

/* The text of a grant id in this ruleset, or NULL. */
const struct grant_def *ruleset_grant(const struct ruleset *rs, const char *id);

/* ---- Reserve roll (RULES.md 3) ---- */

#define RULES_MAX_OFFERED 64
#define OPTION_ID_MAX     (RS_ID_MAX + 16)

/* An option offered for one roll: the data option bound to the roll's dice. */
struct option {
    char id[OPTION_ID_MAX]; /* "<key>@<die>" or "<key>@<die>+<die>" */
    char key[RS_ID_MAX];
    int ndice;
    int dice[2]; /* indices into the roll's faces */
    int cost;    /* the cheapest alternative's: what taking the option costs at least */
    int ngrants;
    char grants[RS_MAX_OPTION_GRANTS][RS_GRANT_MAX];
    int grant_cost[RS_MAX_OPTION_GRANTS];
    char text[RS_TEXT_MAX];
};

struct option_list {
    int n;
    struct option o[RULES_MAX_OFFERED];
};

/* A grant rewritten by a standing effect (British Tank Regiment: armor-2 -> armor-3-elite). */
struct grant_rewrite {
    char from[RS_GRANT_MAX], to[RS_GRANT_MAX];
    char by[RS_NAME_MAX]; /* the event's name */
};

#define RULES_MAX_REWRITES (RS_MAX_EVENTS * RS_MAX_EFFECTS)
#define RULES_MAX_REMOVALS (RS_MAX_EVENTS * RS_MAX_EFFECT_GRANTS)

/* What the standing effects do to a side's reserve options. */
struct option_mods {
    int nrewrites;
    struct grant_rewrite rewrites[RULES_MAX_REWRITES];
    int nremovals; /* grants the side may not take (an option left with none is not offered) */
    char removals[RULES_MAX_REMOVALS][RS_GRANT_MAX];
    char removal_by[RULES_MAX_REMOVALS][RS_NAME_MAX]; /* the event's name */
};

/*
 * Every option the side may take for these faces: each data option bound to every distinct
 * set of dice that shows its symbols, in data order then die order, with the effects' `mods`
 * (may be NULL) applied to the grants.
 */
void reserve_options(const struct ruleset *rs, enum side side, const enum face *faces, int nfaces,
                     const struct option_mods *mods, struct option_list *out);

struct choice_item {
    const char *id;    /* an offered option's id */
    const char *grant; /* one of its grants, or NULL when it has only one */
};

enum choice_error {
    CHOICE_OK = 0,
    CHOICE_UNKNOWN_OPTION,   /* no offered option has this id */
    CHOICE_DUPLICATE_OPTION, /* the same option twice */
    CHOICE_DIE_REUSED,       /* two options use the same die */
    CHOICE_GRANT_REQUIRED,   /* the option has alternatives and none was named */
    CHOICE_INVALID_GRANT,    /* the named grant is not one of the option's alternatives */
    CHOICE_NOT_ENOUGH_TOKENS,
    CHOICE_TOO_MANY,
};

struct chosen_option {
    int offered; /* index into the offered list */
    char grant[RS_GRANT_MAX];
    int cost; /* the chosen alternative's */
};

struct choice_result {
    enum choice_error error;
    int item;    /* the offending item (index into the choice), or -1 */
    int offered; /* the option it names (index into the offered list), or -1 */
    int holder;  /* CHOICE_DIE_REUSED: the option chosen before it that uses that die */
    /* Total tokens the choice spends (CHOICE_OK); with CHOICE_NOT_ENOUGH_TOKENS, what the
     * items up to the offending one would spend. */
    int cost;
    int nchosen;
    struct chosen_option chosen[RULES_MAX_OFFERED];
};

/* Checks a side's choice against the options offered and the tokens it has. */
void reserve_validate(const struct option_list *offered, const struct choice_item *items,
                      int nitems, int tokens, struct choice_result *out);

/* ---- Victory event roll (RULES.md 4, 6) ---- */

/*
 * Dice a side rolls before battle `battle` (>= 1). 0 when the ruleset has no roll before that
 * battle. `medals_previous` counts only for rulesets that use it (simplified).
 */
int victory_dice(const struct ruleset *rs, int battle, int battles_won, int medals_previous);
/* The same without the cap of RULES_MAX_DICE: a result that would go beyond it is refused. */
long victory_dice_needed(const struct ruleset *rs, int battle, int battles_won,
                         int medals_previous);

#define RULES_MAX_INSTRUCTIONS (2 * RULES_MAX_DICE)

struct instruction {
    enum side roller;
    enum face face;
    char text[RS_TEXT_MAX + 64];
};

struct victory_outcome {
    int n;
    struct instruction list[RULES_MAX_INSTRUCTIONS];
    int stars_against[SIDE_COUNT]; /* stars rolled by the opponent */
    int hand[SIDE_COUNT];          /* starting hands after Star results */
    bool commissar_note[SIDE_COUNT];
};

/*
 * The ordered instructions for both sides' faces and the starting hands. `commissar` is the
 * side playing under the Political Commissar rule, or -1.
 */
void victory_resolve(const struct ruleset *rs, enum side first_player,
                     const enum face *const faces[SIDE_COUNT], const int nfaces[SIDE_COUNT],
                     const int cards[SIDE_COUNT], int commissar, struct victory_outcome *out);

/* Replaces "{roller}" and "{opponent}" in a template. */
void rules_format(const char *tmpl, enum side roller, char *out, size_t len);

/* ---- What-if events (RULES.md 5) ---- */

/* The event a side's die picks, or NULL when the ruleset has none. */
const struct event_def *what_if_event(const struct ruleset *rs, enum side roller, enum face f);

/*
 * Applies an event's token effects that happen at once. `already` is true when the other
 * side rolled the same event before: then nothing happens unless the event stacks.
 * tokens[] never go below 0. Returns true if any token changed.
 */
bool what_if_apply_now(const struct event_def *ev, enum side roller, bool already,
                       int tokens[SIDE_COUNT]);

/* Applies the event's token effects due after battle `battle`'s result. */
bool what_if_apply_after_battle(const struct event_def *ev, const enum side *rollers, int nrollers,
                                int battle, int tokens[SIDE_COUNT]);

/* Adds what the event does to `side`'s reserve options (rewrites, removals) to `mods`. */
void what_if_option_mods(const struct event_def *ev, enum side side, struct option_mods *mods);

/*
 * Whether a standing effect with this scope is shown at battle `number` of `scenario`.
 * `picked` is the battle a side picked for it (SCOPE_PICKED), or 0.
 */
bool scope_applies(const struct scope *sc, int number, const char *scenario, int picked);

/* Whether it is shown with battle `number`'s result. */
bool scope_applies_result(const struct scope *sc, int number);

/* Two scenario names are the same: whole names, letter case (accented Latin letters too) and
 * spacing ignored (RULES.md 9). */
bool scenario_names_match(const char *a, const char *b);

/* What the events in force at a battle, and whose scope takes it in (scope_applies), change in
 * its set-up (RULES.md 9: Soviet Invasion). */
struct battle_overrides {
    int first_player; /* -1: as set up */
    bool no_commissar;
};
void what_if_battle_overrides(const struct event_def *const *events, int n,
                              struct battle_overrides *out);

/* The event's pre-battle roll, if it has one, at a battle with `features` (ids). */
const struct effect_def *what_if_pre_battle_roll(const struct event_def *ev,
                                                 const char (*features)[RS_ID_MAX], int nfeatures);

/* Hits among a pre-battle roll's faces. */
int pre_battle_hits(const struct effect_def *e, const enum face *faces, int n);

/* The first effect of this type the event has, or NULL. */
const struct effect_def *event_effect(const struct event_def *ev, enum effect_type type);

/* ---- Multi-map battles (RULES.md 7) ---- */

/* The combination of exactly these maps (indices, any order), or NULL. */
const struct map_combo *map_combination(const struct map_rules *m, const int *maps, int n);

/* A map's index by id, or -1. */
int map_find(const struct map_rules *m, const char *id);

/* ---- Campaign outcome and scenario lists ---- */

struct standing {
    int battles_won[SIDE_COUNT];
    int medals[SIDE_COUNT];
    int objective_medals[SIDE_COUNT];
};

struct outcome {
    int winner;                     /* SIDE_ALLIES, SIDE_AXIS, or -1 for a draw */
    int victory_points[SIDE_COUNT]; /* medals + objective track bonus */
    bool has_track;
    char grade[RS_NAME_MAX]; /* "" when the ruleset grades nothing or it is a draw; a grand
                              * campaign's grade name (campaign_graded_outcome) fits too */
    int points;              /* grand-campaign points for the winner */
    int decided_by;          /* the index in rank_by of the measure that decided; -1 for a draw */
};

void campaign_outcome(const struct ruleset *rs, const struct standing *st, struct outcome *out);

/* A side's count in one of the measures a campaign is ranked by. */
int outcome_measure(enum rank_key k, const struct standing *st, const struct outcome *o,
                    enum side s);

/* The objective track bonus for `count` objective medals. */
int objective_bonus(const struct ruleset *rs, enum side side, int count);

/* Index of the scenario called `name` in the list, or -1. */
int scenario_find(const struct scenario_list *list, const char *name);

/* ---- Grand campaigns (RULES.md 8) ---- */

#define GRAND_MAX_CAMPAIGNS 12
#define GRAND_MAX_GRADES    4

/* A finished campaign's grade: the first whose ratio the winner's battles won reach (at least
 * min_ratio times the loser's); data, e.g. Major 2 (2 points), Minor 0 (1 point). */
struct grand_grade {
    char name[RS_NAME_MAX];
    int min_ratio;
    int points;
};

/* One campaign of a grand campaign, as played. */
struct grand_part {
    bool finished;
    int winner; /* the campaign's own winner (its ruleset decides), or -1: a draw */
    int battles_won[SIDE_COUNT];
    int medals[SIDE_COUNT];
};

struct grand_result {
    int points[SIDE_COUNT];
    int battles_won[SIDE_COUNT];
    int medals[SIDE_COUNT];
    int winner; /* more points; ties: battles won, then medals; -1 still tied */
};

/* The grade of a finished campaign (NULL for a draw or an unfinished one). */
const struct grand_grade *grand_grade_of(const struct grand_grade *grades, int ngrades,
                                         const struct grand_part *part);

/* Points, battles and medals over the parts, and who leads (RULES.md 8). */
void grand_outcome(const struct grand_grade *grades, int ngrades, const struct grand_part *parts,
                   int nparts, struct grand_result *out);

#endif
