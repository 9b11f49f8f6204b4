/* Ending a campaign (the seed is revealed), and rotating the seed mid-campaign. */
#include "campaign/campaign.h"
#include "campaign/chat.h"
#include "campaign/grand_rulesets.h"

#include "db/store.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

/* As db_seeds_reveal: every seed whose value is held here. */
static void mark_revealed(struct campaign *c)
{
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].known)
            c->seeds[i].revealed = true;
}

void campaign_graded_outcome(const struct campaign *c, const struct standing *st, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    o->winner = -1;
    if (!c->rse)
        return;
    campaign_outcome(c->rse->rs, st, o);
    const struct grand_ruleset *gr = c->grand_id[0] ? grand_ruleset_find(c->grand_ruleset) : NULL;
    if (!gr)
        return;
    /* As the grand campaign grades its parts (campaign/grand.c): a finished one, by its winner. */
    struct grand_part part = {.finished = c->finished, .winner = c->finished ? c->winner : -1};
    memcpy(part.battles_won, st->battles_won, sizeof part.battles_won);
    const struct grand_grade *g = grand_grade_of(gr->grades, gr->ngrades, &part);
    snprintf(o->grade, sizeof o->grade, "%s", g ? g->name : "");
    o->points = g ? g->points : 0;
}

/* "2 battles to 1", "15 victory points to 14": a measure a campaign is ranked by, counted. */
static void measure_words(enum rank_key k, int a, int b, char *out, size_t len)
{
    static const char *const one[] = {"battle", "medal", "victory point"};
    static const char *const many[] = {"battles", "medals", "victory points"};
    snprintf(out, len, "%d %s to %d", a, a == 1 ? one[k] : many[k], b);
}

/* "battles won 2 each": a measure the sides tied on. */
static void tie_words(enum rank_key k, int n, char *out, size_t len)
{
    static const char *const name[] = {"battles won", "medals", "victory points"};
    snprintf(out, len, "%s %d each", name[k], n);
}

/* The chat hears who won and by the measure that decided it, as the rules rank the campaign
 * (battles, or Campaign Book 1's victory points), what they tied on before it, and, in a grand
 * campaign, the grade and points. */
static enum cres chat_finished(struct db *db, const struct campaign *c, const struct standing *st,
                               const struct outcome *o)
{
    const struct outcome_rules *rules = &c->rse->rs->outcome; /* found: it finished */
    int ties = o->winner < 0 ? rules->nrank : o->decided_by;
    char tied[160] = "";
    for (int k = 0; k < ties; k++) {
        char one[60];
        tie_words(rules->rank_by[k], outcome_measure(rules->rank_by[k], st, o, SIDE_ALLIES), one,
                  sizeof one);
        size_t at = strlen(tied);
        snprintf(tied + at, sizeof tied - at, "%s%s", k ? ", " : "", one);
    }
    if (o->winner < 0)
        return chat_tell(db, c, "finished", "%s is over: a draw (%s).", c->name, tied);
    enum side w = (enum side)c->winner;
    enum rank_key by = rules->rank_by[o->decided_by];
    char decided[80];
    measure_words(by, outcome_measure(by, st, o, w), outcome_measure(by, st, o, 1 - w), decided,
                  sizeof decided);
    char grade[400] = "";
    if (c->grand_id[0] && o->grade[0])
        snprintf(grade, sizeof grade, " A %s victory: %d point%s in %s.", o->grade, o->points,
                 o->points == 1 ? "" : "s", c->grand_name);
    return chat_tell(db, c, "finished", "%s is over: %s won, %s%s%s%s.%s", c->name, side_title(w),
                     decided, ties ? ", after a tie (" : "", tied, ties ? ")" : "", grade);
}

enum cres campaign_finish(struct db *db, struct campaign *c, struct cerr *e)
{
    const struct ruleset *rs = campaign_ruleset(c, e);
    if (!rs)
        return C_REFUSED;
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL, "The campaign is already finished.");
    struct battle *cur = campaign_current(c);
    if (cur && cur->phase != PHASE_FINISHED) {
        refuse(e, PROBLEM_WRONG_PHASE, NULL,
               "Battle %d is %s; record its result before finishing the campaign.", cur->number,
               phase_words(cur->phase));
        e->phase = phase_name(PHASE_FINISHED);
        return C_REFUSED;
    }
    struct standing st;
    struct outcome o;
    campaign_standing(c, &st);
    campaign_outcome(rs, &st, &o);
    c->winner = o.winner;
    c->finished = true;
    campaign_graded_outcome(c, &st, &o); /* finished: its grade */
    if (db_seeds_reveal(db, c->id) < 0 || campaign_remove_held(db, c) != C_OK)
        return C_DBERR;
    mark_revealed(c);
    enum cres rc = campaign_log(
        db, c, "organizer", "finished",
        json_pack("{s:o, s:{s:i, s:i}, s:s}", "winner",
                  o.winner >= 0 ? json_string(side_name((enum side)o.winner)) : json_null(),
                  "victory_points", "allies", o.victory_points[0], "axis", o.victory_points[1],
                  "grade", o.grade));
    return rc == C_OK ? chat_finished(db, c, &st, &o) : rc;
}

enum cres campaign_rotate_seed(struct db *db, struct campaign *c, const char *actor, struct cerr *e)
{
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL,
                      "The campaign is finished; its seeds are revealed.");
    if (c->nseeds >= MAX_EPOCHS)
        return refuse(e, PROBLEM_RULE_VIOLATION, NULL, "A campaign has at most %d seeds.",
                      MAX_EPOCHS);
    int old = c->seed_epoch, epoch = 0;
    bool old_known =
        false; /* a seed whose value stayed with the exporting server is not revealed */
    for (int i = 0; i < c->nseeds; i++) {
        if (c->seeds[i].epoch > epoch)
            epoch = c->seeds[i].epoch;
        if (c->seeds[i].epoch == old)
            old_known = c->seeds[i].known;
    }
    epoch++;
    if (db_seeds_reveal(db, c->id) < 0)
        return C_DBERR;
    mark_revealed(c);
    struct seed *s = &c->seeds[c->nseeds++];
    memset(s, 0, sizeof *s);
    s->epoch = epoch;
    s->known = true;
    randombytes_buf(s->bytes, SEED_BYTES);
    dice_commitment(s->bytes, s->commitment);
    char hex[2 * SEED_BYTES + 1], num[16];
    sodium_bin2hex(hex, sizeof hex, s->bytes, SEED_BYTES);
    snprintf(num, sizeof num, "%d", epoch);
    long ok = db_seed_insert(db, c->id, num, hex, s->commitment, false, "server");
    sodium_memzero(hex, sizeof hex);
    if (ok != 1)
        return C_DBERR;
    c->seed_epoch = epoch;
    return campaign_log(db, c, actor, "seed_rotated",
                        json_pack("{s:o, s:i, s:s}", "revealed_epoch",
                                  old_known ? json_integer(old) : json_null(), "epoch", epoch,
                                  "seed_commitment", s->commitment));
}

enum cres campaign_next_seed(struct db *db, struct campaign *c, struct cerr *e)
{
    const struct seed *next = NULL;
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].epoch == c->seed_epoch + 1)
            next = &c->seeds[i];
    if (!next)
        return refuse(e, PROBLEM_INVALID_FIELD, "seeds",
                      "A rotation needs the next seed of the list (epoch %d).", c->seed_epoch + 1);
    if (db_seeds_reveal(db, c->id) < 0)
        return C_DBERR;
    mark_revealed(c);
    int old = c->seed_epoch;
    bool old_known = false;
    for (int i = 0; i < c->nseeds; i++)
        if (c->seeds[i].epoch == old)
            old_known = c->seeds[i].known;
    c->seed_epoch = next->epoch;
    return campaign_log(db, c, "organizer", "seed_rotated",
                        json_pack("{s:o, s:i, s:s}", "revealed_epoch",
                                  old_known ? json_integer(old) : json_null(), "epoch", next->epoch,
                                  "seed_commitment", next->commitment));
}
