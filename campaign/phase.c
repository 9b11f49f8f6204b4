/* The phases of a battle (RULES.md 2): setup, victory_events, reserves, ready, finished. */
#include "campaign/campaign.h"

#include "db/store.h"

#include <stdio.h>
#include <string.h>

int campaign_victory_dice(const struct campaign *c, const struct battle *b, enum side side)
{
    if (!c->rse)
        return 0;
    int won = 0, medals_previous = 0;
    for (int i = 0; i < c->nbattles; i++) {
        const struct battle *p = &c->battles[i];
        if (p->number >= b->number || p->phase != PHASE_FINISHED)
            continue;
        won += p->winner == (int)side;
        if (p->number == b->number - 1)
            medals_previous = p->medals[side];
    }
    return victory_dice(c->rse->rs, b->number, won, medals_previous);
}

static bool what_if_pending(const struct campaign *c)
{
    return c->what_if && (!c->what_if_event[SIDE_ALLIES][0] || !c->what_if_event[SIDE_AXIS][0]);
}

static bool side_done_victory(const struct campaign *c, const struct battle *b,
                              const struct battle_detail *d, enum side s)
{
    return campaign_victory_dice(c, b, s) == 0 || (d && d->side[s].ve_rolled);
}

/* The side still owes a pre-battle roll an effect calls for at this battle (Naval Struggle). */
static bool side_owes_pre_battle(const struct campaign *c, const struct battle *b,
                                 const struct battle_detail *d, enum side s)
{
    struct pre_battle_need needs[RS_MAX_EVENTS];
    int n = campaign_pre_battle_needs(c, b, needs, RS_MAX_EVENTS);
    for (int i = 0; i < n; i++)
        if ((enum side)needs[i].roll->side == s && !(d && d->side[s].pb_rolled))
            return true;
    return false;
}

void phase_advance(const struct campaign *c, struct battle *b, const struct battle_detail *d)
{
    const struct ruleset *rs = c->rse ? c->rse->rs : NULL;
    if (!rs)
        return;
    for (;;) {
        switch (b->phase) {
        case PHASE_SETUP:
            if (b->number == 1 && what_if_pending(c))
                return;
            b->phase = PHASE_VICTORY_EVENTS;
            break;
        case PHASE_VICTORY_EVENTS:
            /* Before anything else of the battle: the victory event rolls and any pre-battle
             * roll an effect calls for. */
            if (!side_done_victory(c, b, d, SIDE_ALLIES) ||
                !side_done_victory(c, b, d, SIDE_AXIS) ||
                side_owes_pre_battle(c, b, d, SIDE_ALLIES) ||
                side_owes_pre_battle(c, b, d, SIDE_AXIS))
                return;
            b->phase = rs->reserve.enabled ? PHASE_RESERVES : PHASE_READY;
            break;
        case PHASE_RESERVES:
            if (!d || !d->side[SIDE_ALLIES].chosen || !d->side[SIDE_AXIS].chosen)
                return;
            b->phase = PHASE_READY;
            break;
        case PHASE_READY:
        case PHASE_FINISHED:
            return;
        }
    }
}

enum cres phase_require(struct campaign *c, int number, enum phase need, struct battle **out,
                        struct cerr *e)
{
    struct battle *b = campaign_battle(c, number);
    if (!b)
        return refuse(e, PROBLEM_NOT_FOUND, "n", "This campaign has no battle %d.", number);
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL, "The campaign is finished.");
    if (b->phase != need) {
        refuse(e, PROBLEM_WRONG_PHASE, NULL,
               "Battle %d is %s; this can only be done when it is %s.", number,
               phase_words(b->phase), phase_words(need));
        e->phase = phase_name(need);
        return C_REFUSED;
    }
    *out = b;
    return C_OK;
}

enum cres battle_save(struct db *db, const struct campaign *c, struct battle *b)
{
    char num[16], v[6][16];
    snprintf(num, sizeof num, "%d", b->number);
    bool done = b->phase == PHASE_FINISHED;
    if (campaign_end_time(db, done, b->finished_at, sizeof b->finished_at) != C_OK)
        return C_DBERR;
    const int vals[6] = {b->medals[0],     b->medals[1],    b->undeployed[0],
                         b->undeployed[1], b->objective[0], b->objective[1]};
    for (int i = 0; i < 6; i++)
        snprintf(v[i], sizeof v[i], "%d", vals[i]);
    const char *p[] = {c->id,
                       num,
                       phase_name(b->phase),
                       done && b->winner >= 0 ? side_name((enum side)b->winner) : NULL,
                       done ? v[0] : NULL,
                       done ? v[1] : NULL,
                       done ? v[2] : NULL,
                       done ? v[3] : NULL,
                       done ? v[4] : NULL,
                       done ? v[5] : NULL,
                       done && b->sudden_death ? "true" : "false",
                       side_name(b->first_player),
                       b->commissar >= 0 ? side_name((enum side)b->commissar) : NULL};
    return db_battle_update(db, p) ? C_OK : C_DBERR;
}

json_t *battle_waiting_for(const struct campaign *c, const struct battle *b,
                           const struct battle_detail *d)
{
    json_t *w = json_array();
    char item[48];
    for (int s = 0; s < SIDE_COUNT; s++) {
        const char *need = NULL;
        switch (b->phase) {
        case PHASE_SETUP:
            need = c->what_if && !c->what_if_event[s][0] ? "what-if" : NULL;
            break;
        case PHASE_VICTORY_EVENTS:
            need = !side_done_victory(c, b, d, (enum side)s)     ? "victory-events"
                   : side_owes_pre_battle(c, b, d, (enum side)s) ? "pre-battle-roll"
                                                                 : NULL;
            break;
        case PHASE_RESERVES:
            need = !(d && d->side[s].rr_rolled) ? "reserve-roll"
                   : !d->side[s].chosen         ? "reserve-choice"
                                                : NULL;
            break;
        case PHASE_READY:
        case PHASE_FINISHED:
            break;
        }
        if (need) {
            snprintf(item, sizeof item, "%s:%s", side_name((enum side)s), need);
            json_array_append_new(w, json_string(item));
        }
    }
    if (b->phase == PHASE_READY)
        json_array_append_new(w, json_string("organizer:result"));
    return w;
}

int campaign_next_scenario(const struct campaign *c)
{
    const struct scenario_list *l = c->scenarios;
    if (!l)
        return -2;
    if (c->nbattles == 0)
        return l->start;
    const struct battle *last = &c->battles[c->nbattles - 1];
    if (last->phase != PHASE_FINISHED)
        return -3;
    int idx = scenario_find(l, last->scenario);
    if (idx < 0 || last->winner < 0)
        return SCENARIO_END;
    return l->s[idx].next[last->winner];
}

enum cres phase_advance_save(struct db *db, const struct campaign *c, struct battle *b,
                             const struct battle_detail *d)
{
    enum phase before = b->phase;
    phase_advance(c, b, d);
    return b->phase != before ? battle_save(db, c, b) : C_OK;
}
