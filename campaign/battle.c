/* A new battle: from the request, or the next scenario of the campaign's list. */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "db/store.h"
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void text_array_sql(const char (*items)[RS_ID_MAX], int n, char *out, size_t len)
{
    size_t o = (size_t)snprintf(out, len, "{");
    for (int i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s", i ? "," : "", items[i]);
    if (o < len)
        snprintf(out + o, len - o, "}");
}

/* A multi-map battle (RULES.md 7): the maps must be one of the ruleset's combinations, which
 * sets the medals to win and, for OverThrough, each Commander-in-Chief's command cards. */
/* A name as players would write it: no spaces around it, one space between words. */
static void tidy_name(const char *in, char *out, size_t len)
{
    size_t o = 0;
    bool space = false;
    for (const char *p = in; *p && o + 1 < len; p++) {
        if (isspace((unsigned char)*p)) {
            space = o > 0;
            continue;
        }
        if (space && o + 2 < len)
            out[o++] = ' ';
        space = false;
        out[o++] = *p;
    }
    out[o] = '\0';
}

void battle_apply_overrides(const struct campaign *c, struct battle *b)
{
    /* What the events in force change at this battle (Soviet Invasion at Szack), on the set-up
     * as given: worked out again whenever the events in force change. */
    b->first_player = b->setup_first_player;
    b->commissar = b->setup_commissar;
    const struct event_def *events[RS_MAX_EVENTS];
    struct battle_overrides ov;
    what_if_battle_overrides(events, campaign_events_in_scope(c, b->number, b->scenario, events),
                             &ov);
    if (ov.first_player >= 0)
        b->first_player = (enum side)ov.first_player;
    if (ov.no_commissar)
        b->commissar = -1;
}

static enum cres battle_maps(const struct ruleset *rs, const struct battle_input *in,
                             struct battle *nb, struct cerr *e)
{
    if (in->nmaps == 0)
        return C_OK;
    /* The D-Day Landings maps are Normandy's: a campaign elsewhere has none (its ruleset). */
    if (rs->maps.nmaps == 0)
        return refuse(e, PROBLEM_INVALID_FIELD, "maps",
                      "There are no D-Day Landings maps in %s: a battle of it is on one map, "
                      "with the medals to win its scenario gives.",
                      rs->name);
    if (in->medals_to_win > 0)
        return refuse(e, PROBLEM_INVALID_FIELD, "medals_to_win",
                      "A battle on several maps takes its medals to win from the maps: send "
                      "maps or medals_to_win, not both.");
    int idx[RS_MAX_MAPS];
    for (int i = 0; i < in->nmaps; i++) {
        char id[RS_ID_MAX]; /* "Sword" is sword */
        size_t k = 0;
        for (; in->maps[i][k] && k + 1 < sizeof id; k++)
            id[k] = (char)tolower((unsigned char)in->maps[i][k]);
        id[k] = '\0';
        idx[i] = map_find(&rs->maps, id);
        if (idx[i] < 0) {
            char field[32];
            snprintf(field, sizeof field, "maps[%d]", i);
            return refuse(e, PROBLEM_INVALID_FIELD, field,
                          "\"%.40s\" is not a D-Day Landings map of this ruleset.", in->maps[i]);
        }
    }
    const struct map_combo *combo = map_combination(&rs->maps, idx, in->nmaps);
    if (!combo)
        return refuse(e, PROBLEM_INVALID_FIELD, "maps",
                      "These maps are not a combination the D-Day Landings rules give (two "
                      "neighbouring maps, the British or the American landings, or all six).");
    nb->nmaps = in->nmaps;
    for (int i = 0; i < in->nmaps; i++)
        snprintf(nb->maps[i], RS_ID_MAX, "%s", rs->maps.maps[idx[i]].id);
    nb->medals_to_win = combo->medals_to_win;
    for (int s = 0; s < SIDE_COUNT && combo->has_cards; s++)
        if (in->cards[s] <= 0)
            nb->cards[s] = combo->cards[s];
    return C_OK;
}

static enum cres battle_features(const struct ruleset *rs, const struct battle_input *in,
                                 struct battle *nb, struct cerr *e)
{
    for (int i = 0; i < in->nfeatures; i++) {
        bool known = false;
        for (int f = 0; f < rs->nfeatures; f++)
            known |= strcmp(rs->features[f].id, in->features[i]) == 0;
        char field[32];
        snprintf(field, sizeof field, "features[%d]", i);
        if (!known)
            return refuse(e, PROBLEM_INVALID_FIELD, field,
                          "\"%.40s\" is not a feature this ruleset knows.", in->features[i]);
        for (int k = 0; k < nb->nfeatures; k++)
            if (strcmp(nb->features[k], in->features[i]) == 0)
                return refuse(e, PROBLEM_INVALID_FIELD, field, "A feature is named twice.");
        snprintf(nb->features[nb->nfeatures++], RS_ID_MAX, "%s", in->features[i]);
    }
    return C_OK;
}

enum cres campaign_new_battle(struct db *db, struct campaign *c, const struct battle_input *in,
                              struct battle **out, struct cerr *e)
{
    const struct ruleset *rs = campaign_ruleset(c, e);
    if (!rs)
        return C_REFUSED;
    if (c->finished)
        return refuse(e, PROBLEM_CAMPAIGN_FINISHED, NULL, "The campaign is finished.");
    struct battle *cur = campaign_current(c);
    if (cur && cur->phase != PHASE_FINISHED) {
        refuse(e, PROBLEM_WRONG_PHASE, NULL,
               "Battle %d is %s; record its result before the next battle.", cur->number,
               phase_words(cur->phase));
        e->phase = phase_name(PHASE_FINISHED);
        return C_REFUSED;
    }
    if (c->nbattles >= MAX_BATTLES)
        return refuse(e, PROBLEM_RULE_VIOLATION, NULL, "A campaign has at most %d battles.",
                      MAX_BATTLES);
    struct battle nb = {.number = c->nbattles + 1, .winner = -1, .phase = PHASE_SETUP};
    int added[SIDE_COUNT] = {0, 0};
    int next = campaign_next_scenario(c);
    if (next >= 0) {
        const struct scenario_def *def = &c->scenarios->s[next];
        if (in->scenario && !scenario_names_match(in->scenario, def->name))
            return refuse(e, PROBLEM_SCENARIO_NOT_NEXT, "scenario",
                          "The campaign's scenario list says the next battle is \"%s\".",
                          def->name);
        snprintf(nb.scenario, sizeof nb.scenario, "%s", def->name);
        nb.first_player = def->first_player;
        memcpy(nb.cards, def->cards, sizeof nb.cards);
        nb.medals_to_win = def->medals_to_win;
        memcpy(added, def->tokens_added, sizeof added);
    } else if (next == SCENARIO_END) {
        return refuse(e, PROBLEM_ALREADY_DONE, NULL,
                      "The campaign's scenario list has ended: finish the campaign.");
    } else if (!in->scenario) {
        return refuse(e, PROBLEM_MISSING_FIELD, "scenario",
                      "scenario is required: this campaign has no scenario list.");
    } else {
        tidy_name(in->scenario, nb.scenario, sizeof nb.scenario);
        if (!nb.scenario[0] || text_blank(nb.scenario, strlen(nb.scenario)))
            return refuse(e, PROBLEM_INVALID_FIELD, "scenario",
                          "The scenario needs a name (not only spaces).");
    }
    /* Given fields override the list's (a group may play a variant). */
    if (in->first_player >= 0)
        nb.first_player = (enum side)in->first_player;
    for (int s = 0; s < SIDE_COUNT; s++)
        if (in->cards[s] > 0)
            nb.cards[s] = in->cards[s];
    if (in->medals_to_win > 0)
        nb.medals_to_win = in->medals_to_win;
    /* The Political Commissar is the Eastern Front's: a ruleset without its note has none. */
    if (in->commissar >= 0 && !rs->victory.commissar_note[0])
        return refuse(e, PROBLEM_INVALID_FIELD, "commissar",
                      "There is no Political Commissar in %s: it is a rule of the Eastern Front.",
                      rs->name);
    nb.commissar = in->commissar;
    enum cres rc = battle_maps(rs, in, &nb, e);
    if (rc == C_OK)
        rc = battle_features(rs, in, &nb, e);
    if (rc != C_OK)
        return rc;
    if (next < 0) {
        const char *missing = in->first_player < 0    ? "first_player"
                              : nb.cards[0] <= 0      ? "cards.allies"
                              : nb.cards[1] <= 0      ? "cards.axis"
                              : nb.medals_to_win <= 0 ? "medals_to_win"
                                                      : NULL;
        if (missing)
            return refuse(e, PROBLEM_MISSING_FIELD, missing,
                          "%s is required: this campaign has no scenario list%s.", missing,
                          nb.nmaps ? " and these maps do not set it" : "");
    }
    nb.setup_first_player = nb.first_player;
    nb.setup_commissar = nb.commissar;
    /* The database stamps the battle's set-up with the transaction's time. */
    const char *now = db_tx_time(db);
    if (!now)
        return C_DBERR;
    snprintf(nb.created_at, sizeof nb.created_at, "%s", now);
    battle_apply_overrides(c, &nb);
    phase_advance(c, &nb, NULL);
    char num[16], ca[16], cx[16], mw[16], maps[RS_MAX_MAPS * RS_ID_MAX + 4],
        features[RS_MAX_FEATURES * RS_ID_MAX + 4];
    text_array_sql((const char(*)[RS_ID_MAX])nb.maps, nb.nmaps, maps, sizeof maps);
    text_array_sql((const char(*)[RS_ID_MAX])nb.features, nb.nfeatures, features, sizeof features);
    snprintf(num, sizeof num, "%d", nb.number);
    snprintf(ca, sizeof ca, "%d", nb.cards[0]);
    snprintf(cx, sizeof cx, "%d", nb.cards[1]);
    snprintf(mw, sizeof mw, "%d", nb.medals_to_win);
    const char *p[] = {c->id,
                       num,
                       nb.scenario,
                       side_name(nb.first_player),
                       ca,
                       cx,
                       mw,
                       nb.commissar >= 0 ? side_name((enum side)nb.commissar) : NULL,
                       phase_name(nb.phase),
                       nb.nmaps ? maps : NULL,
                       features,
                       side_name(nb.setup_first_player),
                       nb.setup_commissar >= 0 ? side_name((enum side)nb.setup_commissar) : NULL};
    if (!db_battle_insert(db, p))
        return C_DBERR;
    c->battles[c->nbattles++] = nb;
    for (int s = 0; s < SIDE_COUNT; s++)
        if (added[s] && campaign_tokens(db, c, (enum side)s, c->tokens[s] + added[s],
                                        "scenario_bonus", nb.number) != C_OK)
            return C_DBERR;
    *out = &c->battles[c->nbattles - 1];
    /* The set-up as given: what the events change follows from them, when replayed too. */
    json_t *log =
        json_pack("{s:i, s:s, s:s, s:{s:i, s:i}, s:i, s:o}", "number", nb.number, "scenario",
                  nb.scenario, "first_player", side_name(nb.setup_first_player), "cards", "allies",
                  nb.cards[0], "axis", nb.cards[1], "medals_to_win", nb.medals_to_win, "commissar",
                  nb.setup_commissar >= 0 ? json_string(side_name((enum side)nb.setup_commissar))
                                          : json_null());
    if (nb.nmaps) {
        json_t *m = json_array();
        for (int i = 0; i < nb.nmaps; i++)
            json_array_append_new(m, json_string(nb.maps[i]));
        json_object_set_new(log, "maps", m);
    }
    if (nb.nfeatures) {
        json_t *f = json_array();
        for (int i = 0; i < nb.nfeatures; i++)
            json_array_append_new(f, json_string(nb.features[i]));
        json_object_set_new(log, "features", f);
    }
    rc = campaign_log(db, c, "organizer", "battle_created", log);
    if (rc == C_OK)
        rc = chat_tell(db, c, "battle_created", "Battle %d set up: %s. %s move first.", nb.number,
                       nb.scenario, side_title((enum side)nb.first_player));
    return rc;
}
