/*
 * Restoring a campaign from its export, in two steps.
 *
 * 1. import_parse (pure: no database) reads the document into a plan and checks everything
 *    that can be checked without replaying it: the format, the campaign's id (made canonical),
 *    the seeds against their commitments, and every recorded roll against the dice source of
 *    the campaign, the seed epoch in force at that point and, where the seed's value is in the
 *    document, the faces that seed gives (RULES.md 1.2); the document's "rolls" must be the
 *    rolls of its actions. Nothing may follow "finished". Only the fields the plan understands
 *    are kept, so nothing of the document is stored verbatim. A roll whose seed's value is not
 *    in the document cannot be checked: it is kept, and stays "not verified" everywhere.
 * 2. campaign_import (campaign.h) replays the plan through the same functions that handled
 *    the actions the first time, in one transaction, and leaves an active campaign rolling
 *    with a new secret seed drawn by this server.
 *
 * What each action wrote takes the time the document gives it ("at"); an action without one
 * takes the time of the action before it (the creation, without one, the first time given), and
 * a document without any, the import's.
 *
 * Any refusal names the field ("actions[12]", "seeds[0]", "campaign.id") and nothing is written.
 */
#ifndef M44_CAMPAIGN_IMPORT_H
#define M44_CAMPAIGN_IMPORT_H

#include "campaign/campaign.h"

/* The actions an import replays, at most (the notes it passes over, earlier imports, key
 * re-issues and chat links, are not counted): well above what play reaches, rolls undone again
 * and again included, so that any export within --max-body imports. */
#define IMPORT_MAX_ACTIONS 10000

enum import_kind {
    IMPORT_ROLL,
    IMPORT_BATTLE,
    IMPORT_CHOICE,
    IMPORT_RESULT,
    IMPORT_FINISHED,
    IMPORT_SEED_ROTATED,
    IMPORT_HELD_USED,
    IMPORT_BATTLE_PICKED,
    IMPORT_UNDO, /* an action undone (API.md): the last not undone, or an earlier one */
};

/* A time as the export writes it, "2026-11-24T01:50:04.146Z"; "" when the document has none. */
#define IMPORT_TIME_MAX 40

struct import_action {
    enum import_kind kind;
    int index;                /* in the document's "actions" */
    char at[IMPORT_TIME_MAX]; /* when it happened: what it writes takes this time */
    enum side side;
    int battle;
    /* IMPORT_ROLL */
    const char *purpose;
    struct roll_input roll;
    /* IMPORT_BATTLE */
    struct battle_input setup;
    /* IMPORT_CHOICE */
    int nitems;
    struct choice_item items[RULES_MAX_OFFERED];
    /* IMPORT_RESULT */
    struct result_input result;
    /* IMPORT_UNDO: who undid it, and what (the last action, or an earlier one); IMPORT_ROLL:
     * undone later (the roll is then voided) */
    enum role by;
    struct undo_target undo;
    bool voided;
    long long seq; /* its number in the document's log (0: none given) */
    /* IMPORT_HELD_USED: the holding; IMPORT_BATTLE_PICKED: the event */
    int held;
    char event[RS_ID_MAX];
};

struct import_seed {
    int epoch;
    char commitment[65];
    bool has_value; /* the document carries it: it is public */
    uint8_t value[SEED_BYTES];
    char revealed_at[IMPORT_TIME_MAX];
};

struct import_plan {
    char id[CAMPAIGN_ID_LEN + 1];     /* canonical (lowercase) */
    struct create_input create;       /* strings point into the document */
    char created_at[IMPORT_TIME_MAX]; /* campaign_created's time */
    int nseeds;
    struct import_seed seeds[MAX_EPOCHS];
    int nactions;
    struct import_action *actions; /* owned by the plan */
    bool finished;
};

/* A time as an export writes it at obj[key] ("2026-11-24T01:50:04.146Z", or with an offset),
 * a day that exists, into `out`; absent or null: "". False when it is not such a time. */
bool import_time(json_t *obj, const char *key, char out[IMPORT_TIME_MAX]);

/* Reads and checks the document (see above). Returns C_OK with `plan` filled (free it with
 * import_plan_free; it points into `doc`, which must outlive it) or C_REFUSED with `e`. */
enum cres import_parse(json_t *doc, struct import_plan *plan, struct cerr *e);
void import_plan_free(struct import_plan *plan);

#endif
