/* The reserve roll and the side's choice (RULES.md 3). */
#include "campaign/campaign.h"
#include "campaign/chat.h"

#include "db/store.h"
#include "campaign/rules_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The campaign's ruleset, if it has a reserve roll, and the battle in its reserves phase: rules
 * without one say so (the simplified rules), rather than that the battle is not at it yet. */
static enum cres reserves_phase(struct campaign *c, int battle, const struct ruleset **rs,
                                struct battle **b, struct cerr *e)
{
    if (!(*rs = campaign_ruleset(c, e)))
        return C_REFUSED;
    /* (A battle that is not there, or a campaign finished, is said as such first.) */
    if (!(*rs)->reserve.enabled && campaign_battle(c, battle) && !c->finished)
        return refuse(e, PROBLEM_RULE_VIOLATION, NULL, "There is no reserve roll in %s.",
                      (*rs)->name);
    return phase_require(c, battle, PHASE_RESERVES, b, e);
}

/* The battle in its reserves phase, the campaign's ruleset, and the battle's rolls and choices
 * so far (freed by the caller on C_OK). */
static enum cres open_reserves(struct db *db, struct campaign *c, int battle,
                               const struct ruleset **rs, struct battle **b,
                               struct battle_detail *d, struct cerr *e)
{
    enum cres rc = reserves_phase(c, battle, rs, b, e);
    if (rc != C_OK)
        return rc;
    return battle_detail_load(db, c, battle, d) == C_OK ? C_OK : C_DBERR;
}

enum cres campaign_reserve_roll(struct db *db, struct campaign *c, int battle, enum side side,
                                const struct roll_input *in, struct roll *out,
                                struct option_list *offered, struct cerr *e)
{
    const struct ruleset *rs;
    struct battle *b;
    bool rolled = false;
    enum cres rc;
    if (campaign_unconfirmed(db, c)) {
        /* Whether the side rolled is not held: the roll's statement refuses a second one. */
        if ((rc = reserves_phase(c, battle, &rs, &b, e)) != C_OK)
            return rc;
    } else {
        struct battle_detail d;
        if ((rc = open_reserves(db, c, battle, &rs, &b, &d, e)) != C_OK)
            return rc;
        rolled = d.side[side].rr_rolled;
        battle_detail_free(&d);
    }
    if (rolled)
        return refuse(e, PROBLEM_ALREADY_DONE, NULL,
                      "The %s already made their reserve roll for battle %d.", side_title(side),
                      battle);
    rc = roll_draw(c, side, "reserve", rs->reserve.dice, in, out, e);
    if (rc != C_OK)
        return rc;
    struct option_mods *mods = malloc(sizeof *mods);
    if (!mods)
        return C_DBERR;
    campaign_option_mods(c, side, battle, mods);
    reserve_options(rs, side, out->faces, out->count, mods, offered);
    free(mods);
    return roll_store(db, c, "reserve", battle, out,
                      json_pack("{s:o}", "options", options_to_json(offered)));
}

static enum problem_code choice_problem(enum choice_error err)
{
    switch (err) {
    case CHOICE_UNKNOWN_OPTION:
        return PROBLEM_UNKNOWN_OPTION;
    case CHOICE_DUPLICATE_OPTION:
        return PROBLEM_OPTION_CHOSEN_TWICE;
    case CHOICE_DIE_REUSED:
        return PROBLEM_DIE_USED_TWICE;
    case CHOICE_GRANT_REQUIRED:
        return PROBLEM_GRANT_REQUIRED;
    case CHOICE_INVALID_GRANT:
        return PROBLEM_INVALID_GRANT;
    case CHOICE_NOT_ENOUGH_TOKENS:
        return PROBLEM_NOT_ENOUGH_TOKENS;
    case CHOICE_TOO_MANY:
        return PROBLEM_INVALID_FIELD;
    case CHOICE_OK:
        break;
    }
    return PROBLEM_RULE_VIOLATION;
}

/* An option's text up to the colon ("Star + grenade"). */
static int label_len(const struct option *o)
{
    return (int)strcspn(o->text, ":");
}

/* An option as players name it: its label, and its dice when another option offered has the
 * same label ("Grenade (wild) on die 2": two grenades rolled). */
static void option_label(const struct option_list *offered, const struct option *o, char *buf,
                         size_t size)
{
    bool twin = false;
    for (int i = 0; i < offered->n; i++) {
        const struct option *t = &offered->o[i];
        twin |= t != o && label_len(t) == label_len(o) &&
                strncmp(t->text, o->text, (size_t)label_len(o)) == 0;
    }
    if (!twin)
        snprintf(buf, size, "%.*s", label_len(o), o->text);
    else if (o->ndice == 1)
        snprintf(buf, size, "%.*s on die %d", label_len(o), o->text, o->dice[0] + 1);
    else
        snprintf(buf, size, "%.*s on dice %d and %d", label_len(o), o->text, o->dice[0] + 1,
                 o->dice[1] + 1);
}

/* A grant as players name it: its text before any details ("an armor unit", "a sandbag"). */
static const char *grant_label(const struct ruleset *rs, const char *id, char *buf, size_t size)
{
    const struct grant_def *g = ruleset_grant(rs, id);
    if (!g)
        return NULL;
    size_t len = strlen(g->text);
    const char *paren = strstr(g->text, " ("), *comma = strstr(g->text, ", ");
    if (paren && (size_t)(paren - g->text) < len)
        len = (size_t)(paren - g->text);
    if (comma && (size_t)(comma - g->text) < len)
        len = (size_t)(comma - g->text);
    snprintf(buf, size, "%.*s", (int)len, g->text);
    return buf;
}

/* Appends `sep` and `text` to `buf`, cutting what does not fit. */
static void append(char *buf, size_t size, const char *sep, const char *text)
{
    size_t len = strlen(buf);
    for (const char *p = sep; *p && len + 1 < size; p++)
        buf[len++] = *p;
    for (const char *p = text; *p && len + 1 < size; p++)
        buf[len++] = *p;
    buf[len] = '\0';
}

/* The option's alternatives, "an infantry unit, an armor unit or an artillery unit". */
static void grant_list(const struct ruleset *rs, const struct option *o, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int g = 0; g < o->ngrants; g++) {
        char one[RS_TEXT_MAX];
        const char *name = grant_label(rs, o->grants[g], one, sizeof one);
        append(buf, size,
               g == 0                ? ""
               : g + 1 == o->ngrants ? " or "
                                     : ", ",
               name ? name : o->grants[g]);
    }
}

/* The labels of every option offered, "Grenade (wild), Star + grenade". */
static void offered_list(const struct option_list *offered, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < offered->n; i++) {
        char one[RS_TEXT_MAX];
        option_label(offered, &offered->o[i], one, sizeof one);
        append(buf, size, i == 0 ? "" : ", ", one);
    }
}

/* A refused choice in players' words: options and alternatives by their names in the book,
 * never by the ids a request carries (the field says which item). */
static enum cres refuse_choice(struct cerr *e, const struct ruleset *rs,
                               const struct choice_result *res, const struct option_list *offered,
                               const struct choice_item *items, int tokens)
{
    char field[64];
    const struct choice_item *it = res->item >= 0 ? &items[res->item] : NULL;
    snprintf(field, sizeof field, "options[%d].%s", res->item,
             res->error == CHOICE_GRANT_REQUIRED || res->error == CHOICE_INVALID_GRANT ? "grant"
                                                                                       : "id");
    enum problem_code code = choice_problem(res->error);
    const struct option *o = res->offered >= 0 ? &offered->o[res->offered] : NULL;
    char name[RS_TEXT_MAX] = "", list[CHAT_TEXT_MAX / 2];
    if (o)
        option_label(offered, o, name, sizeof name);
    switch (res->error) {
    case CHOICE_UNKNOWN_OPTION:
        offered_list(offered, list, sizeof list);
        if (!list[0])
            return refuse(e, code, field, "This roll offers no option to choose.");
        return refuse(e, code, field, "That is not an option of this roll. It offers: %s.", list);
    case CHOICE_DUPLICATE_OPTION:
        return refuse(e, code, field, "%s is chosen twice.", name);
    case CHOICE_DIE_REUSED: {
        char other[RS_TEXT_MAX];
        option_label(offered, &offered->o[res->holder], other, sizeof other);
        return refuse(e, code, field,
                      "%s uses a die that %s already uses: each die serves one option.", name,
                      other);
    }
    case CHOICE_GRANT_REQUIRED:
        grant_list(rs, o, list, sizeof list);
        return refuse(e, code, field, "%s offers a choice: %s. Say which one.", name, list);
    case CHOICE_INVALID_GRANT: {
        char asked[RS_TEXT_MAX];
        const char *asked_name = grant_label(rs, it->grant, asked, sizeof asked);
        grant_list(rs, o, list, sizeof list);
        if (asked_name)
            return refuse(e, code, field, "%s gives %s, not %s.", name, list, asked_name);
        return refuse(e, code, field, "%s gives %s, nothing else.", name, list);
    }
    case CHOICE_NOT_ENOUGH_TOKENS:
        return refuse(e, code, field, "These options cost %d Reserve Token%s; the side has %d.",
                      res->cost, res->cost == 1 ? "" : "s", tokens);
    default:
        return refuse(e, code, "options", "Too many options chosen.");
    }
}

/* "Axis rolled their reserves for battle 2: grenade, star: took an Elite armor unit (4 tanks
 * ...) (1 token; 1 left)." */
static enum cres chat_choice(struct db *db, const struct campaign *c, enum side side, int battle,
                             const struct roll *rr, const struct choice_result *res,
                             const struct ruleset *rs)
{
    if (!c->webhook_url)
        return C_OK;
    char faces[RULES_MAX_DICE * 12], took[CHAT_TEXT_MAX / 2] = "";
    chat_faces(rr->faces, rr->count, faces, sizeof faces);
    for (int k = 0; k < res->nchosen; k++) {
        const struct grant_def *g = ruleset_grant(rs, res->chosen[k].grant);
        const char *sep = k == 0 ? "" : k + 1 == res->nchosen ? " and " : ", ";
        char text[RS_TEXT_MAX];
        snprintf(text, sizeof text, "%s", g ? g->text : res->chosen[k].grant);
        /* "An Elite armor unit" reads "took an Elite armor unit" mid-sentence. */
        if (text[0] == 'A' && (text[1] == ' ' || (text[1] == 'n' && text[2] == ' ')))
            text[0] = 'a';
        if (strlen(took) + strlen(sep) + strlen(text) < sizeof took) {
            strcat(took, sep);
            strcat(took, text);
        }
    }
    char cost[64] = "";
    if (res->cost)
        snprintf(cost, sizeof cost, " (%d token%s; %d left)", res->cost, res->cost == 1 ? "" : "s",
                 c->tokens[side]);
    return chat_tell(db, c, "reserve_choice",
                     "%s rolled their reserves for battle %d: %s: took %s%s.", side_title(side),
                     battle, faces, res->nchosen ? took : "nothing", cost);
}

enum cres campaign_reserve_choice(struct db *db, struct campaign *c, int battle, enum side side,
                                  const struct choice_item *items, int nitems,
                                  struct choice_output *out, struct cerr *e)
{
    memset(out, 0, sizeof *out);
    const struct ruleset *rs;
    struct battle *b;
    struct battle_detail d;
    enum cres rc = open_reserves(db, c, battle, &rs, &b, &d, e);
    if (rc != C_OK)
        return rc;
    struct side_detail *sd = &d.side[side];
    struct option_list *offered = calloc(1, sizeof *offered);
    struct choice_result *res = calloc(1, sizeof *res);
    if (!offered || !res) {
        rc = C_DBERR;
        goto out;
    }
    if (!sd->rr_rolled) {
        rc = refuse(e, PROBLEM_WRONG_PHASE, NULL,
                    "The %s have not made their reserve roll for battle %d yet.", side_title(side),
                    battle);
        e->phase = phase_name(PHASE_RESERVES);
        goto out;
    }
    if (sd->chosen) {
        rc = refuse(e, PROBLEM_ALREADY_DONE, NULL,
                    "The %s already chose their reserves for battle %d.", side_title(side), battle);
        goto out;
    }
    if (options_from_json(sd->offered, offered) != 0) {
        rc = C_DBERR;
        goto out;
    }
    reserve_validate(offered, items, nitems, c->tokens[side], res);
    if (res->error != CHOICE_OK) {
        rc = refuse_choice(e, rs, res, offered, items, c->tokens[side]);
        goto out;
    }
    out->chosen = json_array();
    json_t *logged = json_array();
    for (int k = 0; k < res->nchosen; k++) {
        const struct option *o = &offered->o[res->chosen[k].offered];
        json_t *dice = json_array();
        for (int i = 0; i < o->ndice; i++)
            json_array_append_new(dice, json_integer(o->dice[i]));
        json_array_append_new(out->chosen, json_pack("{s:s, s:s, s:i, s:o}", "id", o->id, "grant",
                                                     res->chosen[k].grant, "cost",
                                                     res->chosen[k].cost, "dice", dice));
        json_array_append_new(logged,
                              json_pack("{s:s, s:s}", "id", o->id, "grant", res->chosen[k].grant));
    }
    out->cost = res->cost;
    rc = campaign_tokens(db, c, side, c->tokens[side] - res->cost, "reserve_choice", battle);
    out->tokens = c->tokens[side];
    char num[16], cost[16], after[16];
    snprintf(num, sizeof num, "%d", battle);
    snprintf(cost, sizeof cost, "%d", res->cost);
    snprintf(after, sizeof after, "%d", out->tokens);
    char *chosen = json_dumps(out->chosen, JSON_COMPACT);
    const char *p[] = {c->id, num, side_name(side), chosen, cost, after};
    if (rc == C_OK && (!chosen || !db_choice_insert(db, p)))
        rc = C_DBERR;
    free(chosen);
    if (rc == C_OK)
        rc = campaign_log(db, c, side_name(side), "reserve_choice",
                          json_pack("{s:i, s:s, s:O, s:i, s:i}", "battle", battle, "side",
                                    side_name(side), "options", logged, "cost", res->cost, "tokens",
                                    out->tokens));
    json_decref(logged);
    if (rc == C_OK)
        rc = chat_choice(db, c, side, battle, &sd->rr, res, rs);
    if (rc == C_OK)
        rc = campaign_keep_grants(db, c, side, battle, res);
    if (rc == C_OK) {
        sd->chosen = true;
        rc = phase_advance_save(db, c, b, &d);
    }
out:
    free(offered);
    free(res);
    battle_detail_free(&d);
    if (rc != C_OK) {
        json_decref(out->chosen);
        out->chosen = NULL;
    }
    return rc;
}
