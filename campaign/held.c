/* Tokens and stars a side won in a reserve roll and holds until it is used (RULES.md 9: Air
 * Power / Air Sortie tokens, Veteran Stars): kept, marked used by the organizer, removed at the
 * campaign's end. */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "db/store.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static struct held *find(struct campaign *c, int id)
{
    for (int i = 0; i < c->nheld; i++)
        if (c->held[i].id == id)
            return &c->held[i];
    return NULL;
}

enum cres campaign_keep_grants(struct db *db, struct campaign *c, enum side side, int battle,
                               const struct choice_result *res)
{
    const struct ruleset *rs = c->rse ? c->rse->rs : NULL;
    for (int k = 0; rs && k < res->nchosen; k++) {
        const struct grant_def *g = ruleset_grant(rs, res->chosen[k].grant);
        if (!g || !g->kept)
            continue;
        if (c->nheld >= MAX_HELD)
            return C_DBERR;
        struct held *h = &c->held[c->nheld];
        memset(h, 0, sizeof *h);
        h->id = c->nheld ? c->held[c->nheld - 1].id + 1 : 1;
        h->side = side;
        h->battle = battle;
        snprintf(h->grant, sizeof h->grant, "%s", g->id);
        snprintf(h->state, sizeof h->state, "held");
        char id[16], bat[16];
        snprintf(id, sizeof id, "%d", h->id);
        snprintf(bat, sizeof bat, "%d", battle);
        const char *p[] = {c->id, id, side_name(side), h->grant, bat};
        if (!db_held_insert(db, p))
            return C_DBERR;
        c->unstamped = true;
        c->nheld++;
    }
    return C_OK;
}

enum cres campaign_use_held(struct db *db, struct campaign *c, int id, struct cerr *e)
{
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL, "The campaign is finished.");
    struct held *h = find(c, id);
    if (!h)
        return refuse(e, PROBLEM_NOT_FOUND, "id", "The campaign holds nothing numbered %d.", id);
    if (strcmp(h->state, "held") != 0) {
        const struct grant_def *g = c->rse ? ruleset_grant(c->rse->rs, h->grant) : NULL;
        /* "An Air Sortie / Air Power token (...) from battle 1, held by the Allies, was ..." */
        char what[RS_TEXT_MAX];
        snprintf(what, sizeof what, "%s", g ? g->text : "A token or star");
        what[0] = (char)toupper((unsigned char)what[0]);
        return refuse(e, PROBLEM_ALREADY_DONE, NULL,
                      "%s from battle %d, held by the %s, was %s already.", what, h->battle,
                      side_title(h->side),
                      strcmp(h->state, "used") == 0 ? "marked used" : "removed");
    }
    char num[16];
    snprintf(num, sizeof num, "%d", id);
    if (!db_held_set(db, c->id, num, "used"))
        return C_DBERR;
    snprintf(h->state, sizeof h->state, "used");
    enum cres rc =
        campaign_log(db, c, "organizer", "held_used",
                     json_pack("{s:i, s:s, s:s, s:i}", "id", id, "side", side_name(h->side),
                               "grant", h->grant, "battle", h->battle));
    const struct grant_def *g = c->rse ? ruleset_grant(c->rse->rs, h->grant) : NULL;
    return rc == C_OK ? chat_tell(db, c, "held_used", "%s used %s (won in battle %d).",
                                  side_title(h->side), g ? g->text : h->grant, h->battle)
                      : rc;
}

enum cres campaign_remove_held(struct db *db, struct campaign *c)
{
    int removed = 0;
    for (int i = 0; i < c->nheld; i++)
        if (strcmp(c->held[i].state, "held") == 0) {
            snprintf(c->held[i].state, sizeof c->held[i].state, "removed");
            removed++;
        }
    if (!removed)
        return C_OK;
    return db_held_remove_all(db, c->id) ? C_OK : C_DBERR;
}
