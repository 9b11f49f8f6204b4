/* GET /api/v1/grand-campaigns/{id}/export and POST /api/v1/grand-campaigns/import: the backup of
 * a whole grand campaign (format "m44d-grand-campaign-export"): the grand campaign, and the
 * export of each campaign started, in order. An import restores it under its id with new keys,
 * every campaign replayed as a campaign's import is, all in one transaction. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"
#include "campaign/grand.h"
#include "campaign/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum cres add_campaign(struct db *db, const struct campaign *c, int index, void *arg)
{
    (void)index;
    json_t *list = arg;
    json_t *doc = view_export(db, (struct campaign *)c);
    return doc && json_array_append_new(list, doc) == 0 ? C_OK : C_DBERR;
}

static enum cres export_grand(struct db *db, struct req *r, struct grand *g, struct cerr *err,
                              void *arg)
{
    (void)arg;
    json_t *campaigns = json_array();
    struct grand_played played[GRAND_MAX_CAMPAIGNS];
    json_t *standing = NULL;
    if (grand_parts(db, g, played, add_campaign, campaigns, err) != C_OK ||
        !(standing = view_grand(db, g, err))) {
        json_decref(campaigns);
        return C_DBERR;
    }
    char now[40];
    view_now(now);
    json_t *doc = json_pack(
        "{s:s, s:i, s:s, s:{s:s, s:s, s:s, s:b, s:s, s:{s:s, s:s}, s:s, s:I}, s:o, s:o}", "format",
        "m44d-grand-campaign-export", "format_version", 1, "exported_at", now, "grand_campaign",
        "id", g->id, "name", g->name, "grand_ruleset", g->ruleset_id, "what_if", g->what_if, "dice",
        dice_mode_name(g->dice), "players", "allies", g->players[SIDE_ALLIES], "axis",
        g->players[SIDE_AXIS], "created_at", g->created_at, "version", (json_int_t)g->version,
        "campaigns", campaigns, "standing", standing);
    if (!doc)
        return C_DBERR;
    char disp[110];
    snprintf(disp, sizeof disp, "attachment; filename=\"m44d-grand-%s.json\"", g->id);
    const char *headers[] = {"Content-Disposition", disp, NULL};
    reply_json_headers(r, 200, doc, headers);
    return C_OK;
}

void handle_grand_export(struct req *r)
{
    read_grand_campaign_replica(r, export_grand, NULL);
}

/* ---- import ---- */

struct import_arg {
    json_t *doc;
    struct grand_input in;
    char id[CAMPAIGN_ID_LEN + 1];
    char created_at[IMPORT_TIME_MAX];
    json_t *campaigns;
};

/* A refusal about field `field` of the document; *rc C_REFUSED. */
static bool bad(struct cerr *e, const char *field, const char *detail)
{
    refuse(e, PROBLEM_INVALID_FIELD, field, "%s", detail);
    return false;
}

/* The grand campaign's part of the document (the campaigns are read as they are replayed). */
static bool read_grand(struct import_arg *a, struct cerr *e)
{
    json_t *doc = a->doc;
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    json_t *ver = json_object_get(doc, "format_version");
    if (!fmt || strcmp(fmt, "m44d-grand-campaign-export") != 0 || !json_is_integer(ver) ||
        json_integer_value(ver) != 1)
        return bad(e, "format",
                   "This is not an m44d grand campaign export (format "
                   "\"m44d-grand-campaign-export\", format_version 1).");
    json_t *gc = json_object_get(doc, "grand_campaign");
    if (!canonical_uuid(json_string_value(json_object_get(gc, "id")), a->id))
        return bad(e, "grand_campaign.id",
                   "grand_campaign.id must be a UUID (8-4-4-4-12 hexadecimal digits).");
    /* The settings are checked as a creation's are (parse_grand_create; names as recorded),
     * without the members an export adds; a grand ruleset this server lacks is 409, as for a
     * campaign's import. */
    const char *gr = json_string_value(json_object_get(gc, "grand_ruleset"));
    if (gr && !grand_ruleset_find(gr)) {
        refuse(e, PROBLEM_RULESET_UNAVAILABLE, "grand_campaign.grand_ruleset",
               "This grand campaign's rules (%s) are not loaded on this server.", gr);
        return false;
    }
    json_t *settings = json_is_object(gc) ? json_copy(gc) : json_object();
    json_object_del(settings, "id");
    json_object_del(settings, "created_at");
    json_object_del(settings, "version");
    struct jerr je;
    bool ok = parse_grand_create(settings, true, &a->in, &je);
    json_decref(settings); /* a->in's strings point into gc, which a->doc holds */
    if (!ok) {
        char field[sizeof e->field];
        snprintf(field, sizeof field, "grand_campaign%s%.64s", je.field[0] ? "." : "", je.field);
        refuse(e, je.code, field, "%s", je.detail);
        return false;
    }
    a->in.id = a->id;
    if (!import_time(gc, "created_at", a->created_at))
        return bad(e, "grand_campaign.created_at",
                   "grand_campaign.created_at must be a time like 2026-11-24T01:50:04.146Z.");
    a->in.created_at = a->created_at;
    a->campaigns = json_object_get(doc, "campaigns");
    if (!json_is_array(a->campaigns) ||
        json_array_size(a->campaigns) > (size_t)a->in.gr->ncampaigns) {
        refuse(e, PROBLEM_INVALID_FIELD, "campaigns",
               "campaigns must list the exports of the campaigns started, at most %d.",
               a->in.gr->ncampaigns);
        return false;
    }
    /* Each campaign has an id of its own: one that is the grand campaign's, or another
     * campaign's of the document, would otherwise be refused as one already on this server. */
    char ids[GRAND_MAX_CAMPAIGNS][CAMPAIGN_ID_LEN + 1];
    for (size_t i = 0; i < json_array_size(a->campaigns) && i < GRAND_MAX_CAMPAIGNS; i++) {
        json_t *c = json_object_get(json_array_get(a->campaigns, i), "campaign");
        if (!canonical_uuid(json_string_value(json_object_get(c, "id")), ids[i])) {
            ids[i][0] = '\0'; /* never the same as an id; its own import says what is wrong */
            continue;
        }
        size_t same = 0;
        while (same < i && strcmp(ids[same], ids[i]) != 0)
            same++;
        if (strcmp(ids[i], a->id) != 0 && same == i)
            continue;
        char field[48], other[48];
        snprintf(field, sizeof field, "campaigns[%zu].campaign.id", i % 100);
        if (same < i)
            snprintf(other, sizeof other, "campaign %zu's", same + 1);
        else
            snprintf(other, sizeof other, "the grand campaign's");
        refuse(e, PROBLEM_INVALID_FIELD, field,
               "Campaign %zu has the same id as %s: each campaign of a grand campaign has an id "
               "of its own.",
               i + 1, other);
        return false;
    }
    return true;
}

/* Campaign `i` of the document, replayed as the campaign at place i + 1. */
static enum cres replay_one(struct db *db, struct import_arg *a, struct grand *g, size_t i,
                            struct cerr *e)
{
    json_t *doc = json_array_get(a->campaigns, i);
    const char *want = a->in.gr->campaigns[i].ruleset;
    const char *ruleset =
        json_string_value(json_object_get(json_object_get(doc, "campaign"), "ruleset"));
    if (!ruleset || strcmp(ruleset, want) != 0) {
        const struct ruleset_entry *rse = ruleset_entry(want);
        return refuse(e, PROBLEM_INVALID_FIELD, NULL,
                      "Campaign %zu of %s is played with the %s rules, not these.", i + 1,
                      a->in.gr->name, rse ? rse->rs->name : want);
    }
    struct grand_link link;
    grand_link_of(g, (int)i + 1, &link);
    struct create_output out;
    struct campaign *c = campaign_new();
    if (!c)
        return C_DBERR;
    enum cres rc = campaign_import(db, doc, &link, &out, c, e);
    if (rc == C_OK)
        rc = campaign_save(db, c);
    /* Each campaign starts once the one before it has finished. */
    if (rc == C_OK && !c->finished && i + 1 < json_array_size(a->campaigns))
        rc = refuse(e, PROBLEM_INVALID_FIELD, NULL,
                    "%s is not finished, yet the campaign after it started.", c->name);
    campaign_free(c);
    return rc;
}

/* The same; a refusal names the field in the whole document: campaigns[1].actions[12]. */
static enum cres import_one(struct db *db, struct import_arg *a, struct grand *g, size_t i,
                            struct cerr *e)
{
    enum cres rc = replay_one(db, a, g, i, e);
    if (rc == C_REFUSED) {
        char field[sizeof e->field], detail[sizeof e->detail];
        snprintf(field, sizeof field, "%s", e->field);
        snprintf(detail, sizeof detail, "%s", e->detail);
        snprintf(e->field, sizeof e->field, "campaigns[%d]%s%.60s", (int)i % 100,
                 field[0] ? "." : "", field);
        snprintf(e->detail, sizeof e->detail, "campaigns[%d]: %.360s", (int)i % 100, detail);
    }
    return rc;
}

static enum cres import_grand(struct db *db, struct write_ctx *w)
{
    struct import_arg *a = w->op->arg;
    if (!read_grand(a, &w->err))
        return C_REFUSED;
    struct grand_output out;
    enum cres rc = grand_create(db, &a->in, &out, &w->err);
    struct grand *g = rc == C_OK ? malloc(sizeof *g) : NULL;
    if (rc == C_OK && !g)
        rc = C_DBERR;
    if (rc == C_OK)
        rc = grand_load(db, out.id, true, g, &w->err);
    for (size_t i = 0; rc == C_OK && i < json_array_size(a->campaigns); i++) {
        rc = import_one(db, a, g, i, &w->err);
        if (rc == C_OK)
            rc = grand_load(db, out.id, true, g, &w->err); /* with the campaign just restored */
    }
    long long version = g ? g->version : 0;
    free(g);
    if (rc != C_OK)
        return rc;
    snprintf(w->location, sizeof w->location, "/api/v1/grand-campaigns/%s", out.id);
    w->status = 201;
    w->body = grand_keys_reply(&out, w->location, version);
    w->version = version;
    return C_OK;
}

void handle_grand_import(struct req *r)
{
    struct jerr e;
    struct import_arg a = {.doc = body_parse(r, &e)};
    if (!a.doc) {
        reply_jerr(r, &e);
        return;
    }
    struct write_op op = {.action = import_grand, .arg = &a, .returns_keys = true};
    write_run(r, &op);
    json_decref(a.doc);
}
