/* Grand campaigns: creating one, loading it, starting its next campaign, its keys, its score. */
#include "campaign/grand.h"

#include "campaign/chat.h"
#include "db/store.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

enum cres grand_create(struct db *db, const struct grand_input *in, struct grand_output *out,
                       struct cerr *e)
{
    memset(out, 0, sizeof *out);
    if (in->id) { /* one space of ids with campaigns */
        long exists = db_campaign_exists(db, in->id);
        if (exists < 0)
            return C_DBERR;
        if (exists)
            return refuse(e, PROBLEM_CAMPAIGN_EXISTS, "grand_campaign.id",
                          "A campaign or grand campaign with id %s already exists on this "
                          "server.",
                          in->id);
        copy(out->id, sizeof out->id, in->id);
    } else
        campaign_new_uuid(out->id);
    char hashes[3][65];
    for (int k = 0; k < 3; k++)
        campaign_new_key(out->keys[k], hashes[k]);
    const char *p[] = {out->id,
                       in->name,
                       in->gr->id,
                       in->what_if ? "true" : "false",
                       dice_mode_name(in->dice),
                       in->players[SIDE_ALLIES],
                       in->players[SIDE_AXIS],
                       hashes[ROLE_ORGANIZER],
                       hashes[ROLE_ALLIES],
                       hashes[ROLE_AXIS],
                       in->created_at && *in->created_at ? in->created_at : NULL};
    long ok = db_grand_insert(db, p);
    const char *state = ok < 0 ? db_last_sqlstate(db) : NULL;
    if (state && strcmp(state, "23505") == 0 && in->id) /* a unique violation: one raced us */
        return refuse(e, PROBLEM_CAMPAIGN_EXISTS, "grand_campaign.id",
                      "A grand campaign with id %s already exists on this server.", in->id);
    return ok == 1 ? C_OK : C_DBERR;
}

static void hex_hash(const char *hex, uint8_t out[32])
{
    memset(out, 0, 32);
    if (hex && strlen(hex) == 64)
        sodium_hex2bin(out, 32, hex, 64, NULL, NULL, NULL);
}

enum cres grand_load(struct db *db, const char *id, bool lock, struct grand *g, struct cerr *e)
{
    memset(g, 0, sizeof *g);
    PGresult *r = db_grand_get(db, id, lock);
    if (!r)
        return C_DBERR;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return refuse(e, PROBLEM_NOT_FOUND, "id", "There is no such grand campaign.");
    }
    copy(g->id, sizeof g->id, PQgetvalue(r, 0, 0));
    copy(g->name, sizeof g->name, PQgetvalue(r, 0, 1));
    copy(g->ruleset_id, sizeof g->ruleset_id, PQgetvalue(r, 0, 2));
    g->gr = grand_ruleset_find(g->ruleset_id);
    g->what_if = PQgetvalue(r, 0, 3)[0] == 't';
    dice_mode_parse(PQgetvalue(r, 0, 4), &g->dice);
    copy(g->players[0], sizeof g->players[0], PQgetvalue(r, 0, 5));
    copy(g->players[1], sizeof g->players[1], PQgetvalue(r, 0, 6));
    for (int k = 0; k < 3; k++) {
        hex_hash(PQgetvalue(r, 0, 7 + k), g->key_hash[k]);
        hex_hash(PQgetvalue(r, 0, 10 + k), g->key_prev[k]);
    }
    g->version = atoll(PQgetvalue(r, 0, 13));
    copy(g->created_at, sizeof g->created_at, PQgetvalue(r, 0, 14));
    copy(g->webhook_url, sizeof g->webhook_url, PQgetvalue(r, 0, 15));
    chat_kind_parse(PQgetvalue(r, 0, 16), &g->webhook_kind);
    json_t *members = json_loads(PQgetvalue(r, 0, 17), 0, NULL);
    for (size_t i = 0; i < json_array_size(members) && g->nmembers < GRAND_MAX_CAMPAIGNS; i++) {
        json_t *m = json_array_get(members, i);
        struct grand_member *gm = &g->members[g->nmembers++];
        copy(gm->id, sizeof gm->id, json_string_value(json_array_get(m, 0)));
        gm->index = (int)json_integer_value(json_array_get(m, 1));
        gm->version = (long long)json_integer_value(json_array_get(m, 2));
    }
    json_decref(members);
    PQclear(r);
    return C_OK;
}

enum role grand_role(const struct grand *g, const char *key)
{
    return keys_role(g->key_hash, key);
}

enum role grand_replaced_role(const struct grand *g, const char *key)
{
    return keys_role(g->key_prev, key);
}

enum cres grand_save(struct db *db, struct grand *g)
{
    char version[24];
    snprintf(version, sizeof version, "%lld", g->version);
    if (!db_grand_bump(db, g->id, version))
        return C_DBERR;
    g->version++;
    return C_OK;
}

/* The started campaign at place `index`, loaded (NULL when it is not started). */
static enum cres load_member(struct db *db, const struct grand *g, int index, struct campaign *c,
                             bool *started, struct cerr *e)
{
    *started = false;
    for (int i = 0; i < g->nmembers; i++)
        if (g->members[i].index == index) {
            *started = true;
            return campaign_load(db, g->members[i].id, false, c, e);
        }
    return C_OK;
}

void grand_link_of(const struct grand *g, int index, struct grand_link *link)
{
    link->id = g->id;
    link->index = index;
    for (int k = 0; k < 3; k++)
        sodium_bin2hex(link->key_hex[k], sizeof link->key_hex[k], g->key_hash[k], 32);
    link->name = g->gr->campaigns[index - 1].name;
    link->rse = ruleset_entry(g->gr->campaigns[index - 1].ruleset);
    link->what_if = g->what_if && link->rse && link->rse->rs->what_if.enabled;
    link->dice = g->dice;
    link->players[SIDE_ALLIES] = g->players[SIDE_ALLIES];
    link->players[SIDE_AXIS] = g->players[SIDE_AXIS];
}

enum cres grand_next(struct db *db, struct grand *g, const struct grand_next_input *nin,
                     char new_id[CAMPAIGN_ID_LEN + 1], struct cerr *e)
{
    if (!g->gr)
        return refuse(e, PROBLEM_RULESET_UNAVAILABLE, NULL,
                      "This grand campaign's rules are not loaded on this server.");
    int next = g->nmembers + 1;
    if (next > g->gr->ncampaigns)
        return refuse(e, PROBLEM_ALREADY_DONE, NULL,
                      "All %d campaigns of this grand campaign have been started.",
                      g->gr->ncampaigns);
    if (g->nmembers) {
        struct campaign *prev = campaign_new();
        bool started;
        enum cres rc = prev ? load_member(db, g, g->nmembers, prev, &started, e) : C_DBERR;
        bool finished = rc == C_OK && prev->finished;
        char name[RS_NAME_MAX];
        copy(name, sizeof name, g->gr->campaigns[g->nmembers - 1].name);
        campaign_free(prev);
        if (rc != C_OK)
            return rc;
        if (!finished) {
            refuse(e, PROBLEM_WRONG_PHASE, NULL,
                   "%s is still being played: finish it before the next campaign starts.", name);
            e->phase = "finished";
            return C_REFUSED;
        }
    }
    struct grand_link link;
    grand_link_of(g, next, &link);
    if (!link.rse)
        return refuse(e, PROBLEM_RULESET_UNAVAILABLE, NULL,
                      "The rules of %s are not loaded on this server.", link.name);
    const struct ruleset *rs = link.rse->rs;
    if (nin->tokens_given && !rs->reserve.enabled && (nin->tokens[0] || nin->tokens[1]))
        return refuse(e, PROBLEM_INVALID_FIELD, "reserve_tokens",
                      "%s has no reserve roll, so no Reserve Tokens.", link.name);
    /* Named as the book names it; its standing names its grand campaign. */
    struct create_input in = {
        .name = link.name,
        .rse = link.rse,
        .what_if = link.what_if,
        .dice = link.dice,
        .tokens = {rs->tokens_default[0], rs->tokens_default[1]},
        .players = {link.players[0], link.players[1]},
        .grand = &link,
    };
    if (nin->tokens_given)
        for (int s = 0; s < SIDE_COUNT; s++)
            in.tokens[s] = nin->tokens[s];
    struct create_output out;
    enum cres rc = campaign_create(db, &in, &out, e);
    if (rc != C_OK)
        return rc;
    copy(new_id, CAMPAIGN_ID_LEN + 1, out.id);
    if (g->nmembers == 0 && !db_grand_keys_to_log(db, g->id, out.id))
        return C_DBERR;
    char text[CHAT_TEXT_MAX];
    snprintf(text, sizeof text, "%s begins: campaign %d of %d.%s", in.name, next, g->gr->ncampaigns,
             in.what_if ? " Each side rolls its What-if die first." : "");
    rc = chat_tell_grand(db, g, out.id, in.name, "campaign_started", text);
    if (rc != C_OK)
        return rc;
    struct grand_member *gm = &g->members[g->nmembers++];
    copy(gm->id, sizeof gm->id, out.id);
    gm->index = next;
    gm->version = 1;
    return C_OK;
}

enum cres grand_reissue_key(struct db *db, struct grand *g, enum role role, const char *saved,
                            char key[KEY_TEXT_LEN + 1], struct cerr *e)
{
    (void)e;
    char hash[65];
    campaign_new_key(key, hash);
    if (!db_grand_key_set(db, g->id, role_name(role), hash))
        return C_DBERR;
    memcpy(g->key_prev[role], g->key_hash[role], 32);
    sodium_hex2bin(g->key_hash[role], 32, hash, 64, NULL, NULL, NULL);
    sodium_memzero(hash, sizeof hash);
    /* Each campaign's log says so too (a key is an action on none of them); their versions
     * move, so that their pages, and their logs' ETags, do. Before the first campaign, the
     * grand campaign keeps it for that campaign's log. */
    if (g->nmembers == 0 && !db_grand_key_kept(db, g->id, role_name(role)))
        return C_DBERR;
    for (int i = 0; i < g->nmembers; i++)
        if (!db_log_insert(db, g->members[i].id, "organizer", "key_reissued",
                           role == ROLE_ORGANIZER ? "{\"role\":\"organizer\"}"
                           : role == ROLE_ALLIES  ? "{\"role\":\"allies\"}"
                                                  : "{\"role\":\"axis\"}"))
            return C_DBERR;
    return grand_members_touch(db, g, saved);
}

enum cres grand_members_touch(struct db *db, struct grand *g, const char *except_id)
{
    if (g->nmembers == 0)
        return C_OK;
    if (!db_grand_members_touch(db, g->id, except_id))
        return C_DBERR;
    g->members_moved = true;
    return C_OK;
}

int grand_size(const struct grand *g)
{
    return g->gr ? g->gr->ncampaigns : g->nmembers;
}

enum cres grand_parts(struct db *db, const struct grand *g, struct grand_played *out,
                      grand_each_fn each, void *arg, struct cerr *e)
{
    struct campaign *c = campaign_new();
    if (!c)
        return C_DBERR;
    enum cres rc = C_OK;
    for (int i = 0; i < grand_size(g) && rc == C_OK; i++) {
        struct grand_played *p = &out[i];
        memset(p, 0, sizeof *p);
        p->part.winner = -1;
        p->status = "not started";
        bool started;
        rc = load_member(db, g, i + 1, c, &started, e);
        if (rc != C_OK || !started)
            continue;
        struct standing st;
        campaign_standing(c, &st);
        copy(p->id, sizeof p->id, c->id);
        p->part.finished = c->finished;
        p->part.winner = c->finished ? c->winner : -1;
        memcpy(p->part.battles_won, st.battles_won, sizeof p->part.battles_won);
        memcpy(p->part.medals, st.medals, sizeof p->part.medals);
        p->status = c->finished ? "finished" : "active";
        if (g->gr)
            p->grade = grand_grade_of(g->gr->grades, g->gr->ngrades, &p->part);
        if (each)
            rc = each(db, c, i + 1, arg);
    }
    campaign_free(c);
    return rc;
}
