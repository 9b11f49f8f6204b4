/*
 * Restoring a campaign from its export: the plan read by import_parse (campaign/import.h) is
 * replayed, in order, through the same functions that handled each action the first time,
 * with every roll taken as recorded; the campaign gets new keys. Any inconsistency refuses the
 * whole import; it runs in one transaction.
 */
#include "campaign/import.h"

#include "db/store.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seeds as exported: the commitments always; a value where the document has one (then it is
 * public, revealed, and never rolled with again). */
static enum cres import_seeds(struct db *db, const struct import_plan *p)
{
    for (int i = 0; i < p->nseeds; i++) {
        const struct import_seed *s = &p->seeds[i];
        char num[16], hex[2 * SEED_BYTES + 1] = "";
        snprintf(num, sizeof num, "%d", s->epoch);
        if (s->has_value)
            sodium_bin2hex(hex, sizeof hex, s->value, SEED_BYTES);
        if (db_seed_insert(db, p->id, num, s->has_value ? hex : NULL, s->commitment, s->has_value,
                           "import") != 1)
            return C_DBERR;
        if (s->has_value && s->revealed_at[0] &&
            !db_seed_revealed_at(db, p->id, num, s->revealed_at))
            return C_DBERR;
    }
    return C_OK;
}

/* What was written since the last call takes the time the document gives (import.h). */
static enum cres restamp(struct db *db, const char *id, const char *at)
{
    return !at[0] || db_campaign_restamp(db, id, at) ? C_OK : C_DBERR;
}

static enum cres replay_one(struct db *db, struct campaign *c, const struct import_action *a,
                            struct cerr *e)
{
    struct roll out;
    switch (a->kind) {
    case IMPORT_ROLL: {
        if (strcmp(a->purpose, "what_if") == 0) {
            struct what_if_output w;
            return campaign_what_if(db, c, a->side, &a->roll, &w, e);
        }
        if (strcmp(a->purpose, "victory_events") == 0)
            return campaign_victory_roll(db, c, a->battle, a->side, &a->roll, &out, e);
        if (strcmp(a->purpose, "pre_battle") == 0) {
            int hits;
            return campaign_pre_battle_roll(db, c, a->battle, a->side, &a->roll, &out, &hits, e);
        }
        struct option_list *offered = malloc(sizeof *offered);
        if (!offered)
            return C_DBERR;
        enum cres rolled =
            campaign_reserve_roll(db, c, a->battle, a->side, &a->roll, &out, offered, e);
        free(offered);
        return rolled;
    }
    case IMPORT_BATTLE: {
        struct battle *b;
        return campaign_new_battle(db, c, &a->setup, &b, e);
    }
    case IMPORT_CHOICE: {
        struct choice_output out_choice;
        enum cres chosen =
            campaign_reserve_choice(db, c, a->battle, a->side, a->items, a->nitems, &out_choice, e);
        json_decref(out_choice.chosen);
        return chosen;
    }
    case IMPORT_RESULT: {
        /* A backup restores what an earlier reading recorded: undeployed reserves up to the
         * options the side took, not only the units (campaign/result.c). */
        struct result_input in = a->result;
        in.replayed = true;
        return campaign_result(db, c, a->battle, &in, e);
    }
    case IMPORT_FINISHED:
        return campaign_finish(db, c, e);
    case IMPORT_SEED_ROTATED:
        return campaign_next_seed(db, c, e);
    case IMPORT_HELD_USED:
        return campaign_use_held(db, c, a->held, e);
    case IMPORT_BATTLE_PICKED:
        return campaign_pick_battle(db, c, a->battle, a->side, a->event, e);
    case IMPORT_UNDO: {
        /* The undo reads the last action from the log, as written so far, and the campaign as
         * stored: it is stored first. */
        char id[CAMPAIGN_ID_LEN + 1];
        snprintf(id, sizeof id, "%s", c->id);
        enum cres rc = campaign_save(db, c);
        if (rc == C_OK)
            rc = campaign_load(db, id, false, c, e);
        json_t *undone = NULL;
        if (rc == C_OK)
            rc = campaign_undo(db, c, a->by, &a->undo, &undone, e);
        json_decref(undone);
        return rc;
    }
    }
    return refuse(e, PROBLEM_INVALID_FIELD, "actions", "an action m44d cannot replay");
}

static const char *dice_words(enum dice_mode d)
{
    return d == DICE_SERVER  ? "rolled by the server"
           : d == DICE_TABLE ? "rolled at the table"
                             : "rolled by the server or at the table";
}

/* A campaign of a grand campaign is played as the grand campaign says (grand_next): under its
 * name in the book and rules, with the grand campaign's dice, What-if choice and players and no
 * scenario list of its own. Its Reserve Tokens are the organizer's to set, as in grand_next
 * (checked as a creation checks them). */
static enum cres member_check(const struct create_input *in, const struct grand_link *g,
                              struct cerr *e)
{
    if (strcmp(in->name, g->name) != 0)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "This is \"%s\" of its grand campaign, not \"%.80s\".", g->name, in->name);
    if (!g->rse)
        return refuse(e, PROBLEM_RULESET_UNAVAILABLE, NULL,
                      "The rules of %s are not loaded on this server.", g->name);
    if (in->rse != g->rse)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "%s is played with \"%s\", not \"%s\".", g->name, g->rse->rs->name,
                      in->rse->rs->name);
    if (in->dice != g->dice)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "%s has its dice %s, but its grand campaign has them %s.", g->name,
                      dice_words(in->dice), dice_words(g->dice));
    if (in->what_if != g->what_if)
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "%s is played %s What-if events, but its grand campaign %s.", g->name,
                      in->what_if ? "with" : "without",
                      g->what_if ? "plays them" : "does not play them here");
    if (in->scenarios && !json_is_null(in->scenarios))
        return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                      "%s has a scenario list of its own, but a campaign of its grand campaign "
                      "takes its rules' own.",
                      g->name);
    for (int s = 0; s < SIDE_COUNT; s++)
        if (strcmp(in->players[s], g->players[s]) != 0)
            return refuse(e, PROBLEM_INVALID_FIELD, "actions[0]",
                          "%s names \"%.60s\" as the %s player, but its grand campaign names "
                          "\"%.60s\".",
                          g->name, in->players[s], side_title((enum side)s), g->players[s]);
    return C_OK;
}

enum cres campaign_import(struct db *db, json_t *doc, const struct grand_link *grand,
                          struct create_output *out, struct campaign *c, struct cerr *e)
{
    struct import_plan plan;
    enum cres rc = import_parse(doc, &plan, e);
    plan.create.grand = grand;
    if (rc == C_OK && grand)
        rc = member_check(&plan.create, grand, e);
    /* A consistent record, but one this server cannot go on with: an unfinished campaign goes
     * on here with a new seed of its own, and a campaign has at most MAX_EPOCHS. */
    if (rc == C_OK && !plan.finished && plan.nseeds >= MAX_EPOCHS)
        rc = refuse(e, PROBLEM_INVALID_FIELD, "seeds",
                    "An unfinished campaign goes on here with a new seed of its own, and a "
                    "campaign has at most %d: this one has %d already.",
                    MAX_EPOCHS, plan.nseeds);
    if (rc != C_OK) {
        import_plan_free(&plan);
        return rc;
    }
    /* Imports of one id wait for each other here, so the second finds the first's campaign. */
    if (db_campaign_id_lock(db, plan.id) < 0)
        rc = C_DBERR;
    if (rc == C_OK)
        rc = campaign_create(db, &plan.create, out, e);
    if (rc == C_OK)
        rc = import_seeds(db, &plan);
    if (rc == C_OK)
        rc = restamp(db, out->id, plan.created_at);
    if (rc == C_OK)
        rc = campaign_load(db, out->id, true, c, e);
    for (int i = 0; rc == C_OK && i < plan.nactions; i++) {
        rc = replay_one(db, c, &plan.actions[i], e);
        if (rc == C_OK)
            rc = campaign_stamp(db, c);
        /* The campaign's row is saved at the end; its end is saved now, to take its time. */
        if (rc == C_OK && plan.actions[i].kind == IMPORT_FINISHED)
            rc = campaign_save(db, c);
        if (rc == C_OK)
            rc = restamp(db, out->id, plan.actions[i].at);
        if (rc == C_REFUSED) {
            char detail_text[sizeof e->detail];
            snprintf(detail_text, sizeof detail_text, "%s", e->detail);
            snprintf(e->field, sizeof e->field, "actions[%d]", plan.actions[i].index);
            snprintf(e->detail, sizeof e->detail, "actions[%d] does not replay: %.300s",
                     plan.actions[i].index, detail_text);
            e->code = PROBLEM_INVALID_FIELD;
            e->phase = NULL;
        }
    }
    import_plan_free(&plan);
    /* Every seed that came in the document is public, and the last one may be a secret only the
     * exporting server holds: an active campaign goes on with a new seed drawn here. */
    if (rc == C_OK && !c->finished)
        rc = campaign_rotate_seed(db, c, "system", e);
    if (rc != C_OK)
        return rc;
    const struct seed *cur = NULL;
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].epoch == c->seed_epoch)
            cur = &c->seeds[i];
    snprintf(out->commitment, sizeof out->commitment, "%s", cur ? cur->commitment : "");
    return campaign_log(
        db, c, "system", "imported",
        json_pack("{s:i}", "actions", (int)json_array_size(json_object_get(doc, "actions"))));
}
