/*
 * Undo (API.md, "Correcting mistakes at the table"): the campaign's last action, as if it had
 * not been done. What can be undone: a battle result (carry-over reversed, the battle back in
 * `ready`), a reserve choice (the side chooses again from the same dice), a roll entered from
 * the table (voided: it keeps its number in the roll log, and the faces are entered again), a
 * battle set-up (nothing can have been rolled in it: that would be a later action), a What-if
 * roll from the table, a held token marked used, a battle picked for an event. Never a server
 * roll: that would let the same dice be rolled again. The organizer may undo any of these; a
 * side only its own. The undo is logged with who and when, and the log keeps the undone entry.
 *
 * An earlier action can be undone too, when the other side has gone on meanwhile: a side's
 * table roll or reserve choice in a battle, while everything done after it is the other side's
 * rolls and choices at the same step of the same battle (undo_independent). Each side's dice
 * and choices there are its own, so nothing done since depends on it; what does (its own
 * choice from those dice, a later step, the result) stops the undo, with the reason.
 *
 * What the action wrote is known exactly: the roll, choice or battle it names, and the token
 * changes and held tokens stamped with its log entry (campaign_stamp). After the rows are put
 * back, the campaign is read again and every derived state is worked out anew: tokens from the
 * ledger, the battle's phase and set-up from its rolls and the events in force.
 */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "db/store.h"
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dstr(const json_t *d, const char *key)
{
    const char *s = json_string_value(json_object_get(d, key));
    return s ? s : "";
}

static int dint(const json_t *d, const char *key)
{
    return (int)json_integer_value(json_object_get(d, key));
}

static const char *side_words(const char *side)
{
    enum side s;
    return side_parse(side, &s) ? side_title(s) : "organizer";
}

static const char *purpose_words(const char *purpose)
{
    return strcmp(purpose, "what_if") == 0          ? "What-if"
           : strcmp(purpose, "victory_events") == 0 ? "victory event"
           : strcmp(purpose, "pre_battle") == 0     ? "pre-battle"
                                                    : "reserve";
}

/* The faces as the page names them: "Flag, Armor". */
static void faces_words(const json_t *faces, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < json_array_size(faces); i++) {
        size_t l = strlen(out);
        const char *f = json_string_value(json_array_get(faces, i));
        snprintf(out + l, len - l, "%s%c%s", i ? ", " : "",
                 f && f[0] ? toupper((unsigned char)f[0]) : '?', f && f[0] ? f + 1 : "");
    }
}

/* The text of an event or grant id in the campaign's ruleset, or the id. */
static const char *event_name(const struct campaign *c, const char *id)
{
    const struct what_if_rules *w = c->rse ? &c->rse->rs->what_if : NULL;
    for (int k = 0; w && k < w->nevents; k++)
        if (strcmp(w->events[k].id, id) == 0)
            return w->events[k].name;
    return id;
}

/* What undoing logged action `a` would undo, as campaign_undo_info says it. */
static bool describe(const struct campaign *c, const struct log_action *a, char *what, size_t wlen,
                     char *why_not, size_t nlen)
{
    what[0] = why_not[0] = '\0';
    if (!a->seq)
        return false;
    const char *action = a->action, *actor = a->actor;
    const json_t *d = a->detail;
    bool can = true;
    if (strcmp(action, "roll") == 0) {
        char faces[RULES_MAX_DICE * 10];
        faces_words(json_object_get(d, "faces"), faces, sizeof faces);
        int battle = dint(d, "battle");
        const char *purpose = dstr(d, "purpose");
        if (battle > 0 && strcmp(purpose, "what_if") != 0)
            snprintf(what, wlen, "the %s' %s roll for battle %d (%s)", side_words(actor),
                     purpose_words(purpose), battle, faces);
        else
            snprintf(what, wlen, "the %s' %s roll (%s)", side_words(actor), purpose_words(purpose),
                     faces);
        if (strcmp(dstr(d, "source"), "server") == 0) {
            can = false;
            snprintf(why_not, nlen,
                     "The server rolled these dice: a server roll is never undone, because that "
                     "would let the dice be rolled again.");
        }
    } else if (strcmp(action, "reserve_choice") == 0) {
        snprintf(what, wlen, "the %s' reserve choice for battle %d", side_words(actor),
                 dint(d, "battle"));
    } else if (strcmp(action, "result") == 0) {
        const json_t *m = json_object_get(d, "medals");
        snprintf(what, wlen, "the result of battle %d (%s won, medals Allies %d, Axis %d)",
                 dint(d, "battle"), side_words(dstr(d, "winner")), dint(m, "allies"),
                 dint(m, "axis"));
    } else if (strcmp(action, "battle_created") == 0) {
        snprintf(what, wlen, "setting up battle %d (%s)", dint(d, "number"), dstr(d, "scenario"));
    } else if (strcmp(action, "held_used") == 0) {
        const struct grant_def *g = c->rse ? ruleset_grant(c->rse->rs, dstr(d, "grant")) : NULL;
        snprintf(what, wlen, "the %s using %s", side_words(dstr(d, "side")),
                 g ? g->text : dstr(d, "grant"));
    } else if (strcmp(action, "battle_picked") == 0) {
        snprintf(what, wlen, "the %s picking battle %d for %s", side_words(actor),
                 dint(d, "battle"), event_name(c, dstr(d, "event")));
    } else {
        can = false;
        if (strcmp(action, "finished") == 0) {
            snprintf(what, wlen, "finishing the campaign");
            snprintf(why_not, nlen,
                     "The campaign is finished and its seed revealed: it is not reopened.");
        } else if (strcmp(action, "seed_rotated") == 0) {
            snprintf(what, wlen, "revealing the seed and drawing a new one");
            snprintf(why_not, nlen, "A revealed seed cannot be hidden again.");
        } else if (strcmp(action, "imported") == 0) {
            snprintf(what, wlen, "bringing the campaign in from a backup");
            snprintf(why_not, nlen,
                     "The campaign was brought in from a backup: what came before cannot be "
                     "undone here.");
        } else if (strcmp(action, "campaign_created") == 0) {
            return false; /* nothing done yet */
        } else {
            snprintf(what, wlen, "the last action");
            snprintf(why_not, nlen, "This cannot be undone.");
        }
    }
    if (can && !c->rse) {
        can = false;
        snprintf(why_not, nlen, "%s", CAMPAIGN_NO_RULES);
    }
    if (can && a->seq <= c->undo_from) {
        can = false;
        snprintf(why_not, nlen,
                 "This was done before this server could undo actions; only what is done from "
                 "now on can be undone.");
    }
    text_cut_utf8(what);
    text_cut_utf8(why_not);
    return can || why_not[0];
}

bool campaign_undo_info(const struct campaign *c, char *what, size_t wlen, char *why_not,
                        size_t nlen)
{
    return describe(c, &c->last, what, wlen, why_not, nlen);
}

/* The tokens each side has, as the ledger now says. */
static enum cres tokens_from_ledger(struct db *db, struct campaign *c)
{
    PGresult *r = db_ledger_balances(db, c->id);
    if (!r)
        return C_DBERR;
    c->tokens[SIDE_ALLIES] = c->tokens[SIDE_AXIS] = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        enum side s;
        if (side_parse(PQgetvalue(r, i, 0), &s))
            c->tokens[s] = atoi(PQgetvalue(r, i, 1));
    }
    PQclear(r);
    return C_OK;
}

/* A battle's phase and set-up worked out again from its rolls and the events in force. */
static enum cres rephase(struct db *db, struct campaign *c, int number)
{
    struct battle *b = campaign_battle(c, number);
    if (!b)
        return C_OK;
    struct battle_detail d;
    if (battle_detail_load(db, c, number, &d) != C_OK)
        return C_DBERR;
    if (b->phase != PHASE_FINISHED)
        b->phase = PHASE_SETUP;
    battle_apply_overrides(c, b);
    phase_advance(c, b, &d);
    battle_detail_free(&d);
    return battle_save(db, c, b);
}

/* The side a logged roll or reserve choice is of. */
static enum side entry_side(const struct log_action *a)
{
    enum side s = SIDE_ALLIES;
    side_parse(dstr(a->detail, "side")[0] ? dstr(a->detail, "side") : a->actor, &s);
    return s;
}

/* 1: victory events and pre-battle rolls; 2: reserve rolls and choices; 0: anything else. */
static int step_rank(const struct undo_step *s)
{
    if (strcmp(s->action, "reserve_choice") == 0)
        return 2;
    if (strcmp(s->action, "roll") != 0 || !s->purpose)
        return 0;
    if (strcmp(s->purpose, "reserve") == 0)
        return 2;
    return strcmp(s->purpose, "victory_events") == 0 || strcmp(s->purpose, "pre_battle") == 0;
}

bool undo_independent(const struct undo_step *target, const struct undo_step *later)
{
    int k = step_rank(target);
    return k && step_rank(later) == k && later->side != target->side &&
           later->battle == target->battle;
}

static struct undo_step entry_step(const struct log_action *a)
{
    return (struct undo_step){a->action, entry_side(a), dint(a->detail, "battle"),
                              dstr(a->detail, "purpose")};
}

/* A log line as db_log_from gives it (row i), into *a: its detail a new reference. */
static bool entry_read(PGresult *r, int i, struct log_action *a)
{
    a->seq = strtoll(PQgetvalue(r, i, 0), NULL, 10);
    snprintf(a->actor, sizeof a->actor, "%s", PQgetvalue(r, i, 1));
    snprintf(a->action, sizeof a->action, "%s", PQgetvalue(r, i, 2));
    a->detail = json_loads(PQgetvalue(r, i, 3), 0, NULL);
    return a->detail != NULL;
}

/*
 * The earlier action `t` names, into *a (its detail a new reference, to let go of: NULL unless
 * C_OK), and in `after` what done since stops it from being undone ("" when nothing does), in
 * words: "the Allies' reserve choice for battle 2 came after it; undo that first."
 */
static enum cres earlier_action(struct db *db, const struct campaign *c,
                                const struct undo_target *t, struct log_action *a, char *after,
                                size_t alen, struct cerr *e)
{
    bool roll = t->kind == UNDO_ROLL;
    char n[16];
    snprintf(n, sizeof n, "%d", t->n);
    after[0] = '\0';
    PGresult *r = db_log_from(db, c->id, roll ? "roll" : "reserve_choice", n,
                              roll ? NULL : side_name(t->side));
    if (!r)
        return C_DBERR;
    enum cres rc = C_OK;
    if (PQntuples(r) == 0)
        rc = roll ? refuse(e, PROBLEM_NOT_UNDOABLE, "roll", "This campaign has no roll %d.", t->n)
                  : refuse(e, PROBLEM_NOT_UNDOABLE, "reserve_choice",
                           "The %s have made no reserve choice for battle %d.", side_title(t->side),
                           t->n);
    else if (PQgetvalue(r, 0, 4)[0] == 't')
        rc = roll ? refuse(e, PROBLEM_NOT_UNDOABLE, "roll", "Roll %d is undone already.", t->n)
                  : refuse(e, PROBLEM_NOT_UNDOABLE, "reserve_choice",
                           "The %s' reserve choice for battle %d is undone already.",
                           side_title(t->side), t->n);
    else if (!entry_read(r, 0, a))
        rc = C_DBERR;
    const struct undo_step target = rc == C_OK ? entry_step(a) : (struct undo_step){0};
    for (int i = 1; rc == C_OK && !after[0] && i < PQntuples(r); i++) {
        struct log_action later;
        if (PQgetvalue(r, i, 4)[0] == 't')
            continue; /* undone itself */
        if (!entry_read(r, i, &later)) {
            rc = C_DBERR;
            break;
        }
        const struct undo_step step = entry_step(&later);
        if (!undo_independent(&target, &step)) {
            char what[UNDO_TEXT_MAX], why_not[UNDO_TEXT_MAX];
            describe(c, &later, what, sizeof what, why_not, sizeof why_not);
            bool own = step_rank(&step) && step.side == target.side;
            snprintf(after, alen, "%s came after it%s", what,
                     own ? "; undo that first." : " and may depend on it.");
            text_cut_utf8(after);
        }
        json_decref(later.detail);
    }
    PQclear(r);
    if (rc != C_OK) {
        json_decref(a->detail);
        a->detail = NULL;
    }
    return rc;
}

static enum cres undo_action(struct db *db, struct campaign *c, enum role role,
                             const struct log_action *a, const char *after, json_t **undone,
                             struct cerr *e);

enum cres campaign_undo(struct db *db, struct campaign *c, enum role role,
                        const struct undo_target *t, json_t **undone, struct cerr *e)
{
    if (t->kind == UNDO_LAST)
        return undo_action(db, c, role, &c->last, NULL, undone, e);
    struct log_action a = {0};
    char after[UNDO_TEXT_MAX + 64]; /* what came after, and why that stops it */
    enum cres rc = earlier_action(db, c, t, &a, after, sizeof after, e);
    if (rc == C_OK)
        rc = undo_action(db, c, role, &a, after, undone, e);
    json_decref(a.detail);
    return rc;
}

/* Undoes logged action `a`: the last one (`after` NULL), or an earlier one, which `after` (from
 * earlier_action) may say cannot be undone now. Who may, and what never is, as for the last. */
static enum cres undo_action(struct db *db, struct campaign *c, enum role role,
                             const struct log_action *a, const char *after, json_t **undone,
                             struct cerr *e)
{
    char what[UNDO_TEXT_MAX], why_not[UNDO_TEXT_MAX];
    bool known = describe(c, a, what, sizeof what, why_not, sizeof why_not);
    const char *which = after ? "That action" : "The last action";
    /* What follows an undo (a battle's phase again) is worked out by the rules: without them,
     * refused as every other write is. */
    if (known && !campaign_ruleset(c, e))
        return C_REFUSED;
    if (!known)
        return refuse(e, PROBLEM_NOT_UNDOABLE, NULL, "There is nothing to undo in this campaign.");
    if (why_not[0])
        return refuse(e, PROBLEM_NOT_UNDOABLE, NULL, "%s, %s, cannot be undone. %s", which, what,
                      why_not);
    if (c->finished)
        return refuse(e, PROBLEM_NOT_UNDOABLE, NULL, "The campaign is finished.");
    char actor[16];
    snprintf(actor, sizeof actor, "%s", a->actor);
    if (role != ROLE_ORGANIZER && strcmp(actor, role_name(role)) != 0) {
        if (strcmp(actor, "organizer") == 0)
            return refuse(e, PROBLEM_NOT_UNDOABLE, NULL,
                          "%s is %s: only the organizer can undo it.", which, what);
        return refuse(e, PROBLEM_NOT_UNDOABLE, NULL,
                      "%s is %s: only the %s or the organizer can undo it.", which, what,
                      side_words(actor));
    }
    if (after && after[0])
        return refuse(e, PROBLEM_NOT_UNDOABLE, NULL, "%c%s cannot be undone now: %s",
                      toupper((unsigned char)what[0]), what + 1, after);
    /* Everything needed from the entry, before the campaign is read again. */
    long long seq = a->seq;
    char action[32], side[16], purpose[32], event[RS_ID_MAX], seqtext[24], num[16];
    snprintf(action, sizeof action, "%s", a->action);
    json_t *d = json_incref(a->detail);
    snprintf(side, sizeof side, "%s", dstr(d, "side")[0] ? dstr(d, "side") : actor);
    snprintf(purpose, sizeof purpose, "%s", dstr(d, "purpose"));
    snprintf(event, sizeof event, "%s", dstr(d, "event"));
    snprintf(seqtext, sizeof seqtext, "%lld", seq);
    int battle = strcmp(action, "battle_created") == 0 ? dint(d, "number") : dint(d, "battle");
    snprintf(num, sizeof num, "%d", battle);
    enum side s = SIDE_ALLIES;
    side_parse(side, &s);

    bool ok = true;
    if (strcmp(action, "roll") == 0) {
        char n[24];
        snprintf(n, sizeof n, "%d", dint(d, "n"));
        ok = db_roll_void(db, c->id, n);
        if (ok && strcmp(purpose, "what_if") == 0) {
            /* The event this roll gave: rolled by whom the rolls still standing say. */
            const char *ev = battle > 0 ? c->what_if_again_event[s] : c->what_if_event[s];
            if (ev[0])
                ok = db_effect_unroll(db, c->id, ev);
        }
    } else if (strcmp(action, "reserve_choice") == 0) {
        ok = db_choice_delete(db, c->id, num, side_name(s));
    } else if (strcmp(action, "result") == 0) {
        struct battle *b = campaign_battle(c, battle);
        if (b) {
            b->phase = PHASE_READY;
            b->winner = -1;
            b->sudden_death = false;
            memset(b->medals, 0, sizeof b->medals);
            memset(b->undeployed, 0, sizeof b->undeployed);
            memset(b->objective, 0, sizeof b->objective);
            ok = battle_save(db, c, b) == C_OK;
        }
    } else if (strcmp(action, "battle_created") == 0) {
        ok = db_battle_delete(db, c->id, num);
    } else if (strcmp(action, "held_used") == 0) {
        char id[16];
        snprintf(id, sizeof id, "%d", dint(d, "id"));
        ok = db_held_set(db, c->id, id, "held");
    } else if (strcmp(action, "battle_picked") == 0) {
        ok = db_effect_unpick(db, c->id, event);
    }
    json_decref(d);
    /* The token changes and held tokens the action made; its line in the log says it is
     * undone. */
    if (!ok || !db_action_unwrite(db, c->id, seqtext) || !db_log_undone(db, c->id, seqtext))
        return C_DBERR;
    /* The undo goes in the log before the campaign is read again: read then, its last action is
     * the one before the action undone, which is what the reply offers to undo next. */
    json_t *entry = json_pack("{s:I, s:s, s:s, s:s}", "undid", (json_int_t)seq, "action", action,
                              "actor", actor, "what", what);
    if (!entry)
        return C_DBERR;
    enum cres rc = campaign_log(db, c, role_name(role), "undo", json_incref(entry));
    /* Read it all again, and work out what follows. */
    char id[CAMPAIGN_ID_LEN + 1];
    snprintf(id, sizeof id, "%s", c->id);
    if (rc == C_OK)
        rc = campaign_load(db, id, false, c, e);
    if (rc == C_OK)
        rc = tokens_from_ledger(db, c);
    if (rc == C_OK && battle > 0 && strcmp(action, "battle_created") != 0)
        rc = rephase(db, c, battle);
    if (rc == C_OK && strcmp(action, "roll") == 0 && strcmp(purpose, "what_if") == 0)
        rc = rephase(db, c, 1); /* battle 1 may have waited for the What-if rolls */
    if (rc == C_OK)
        rc =
            chat_tell(db, c, "undo", "%s undid: %s.",
                      role == ROLE_ORGANIZER ? "The organizer" : side_title(role_side(role)), what);
    if (rc != C_OK) {
        json_decref(entry);
        return rc;
    }
    *undone = entry;
    return C_OK;
}
