/* GET /api/v1/campaigns/{id}/export and POST /api/v1/campaigns/import: the backup. */
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum cres export(struct db *db, struct req *r, struct campaign *c, void *arg) {
    (void)arg; json_t *standing = view_campaign(db, c);
    json_t *rolls = standing ? view_rolls(db, c) : NULL;
    json_t *log = rolls ? view_log(db, c) : NULL;
    if (!log){json_decref(standing); json_decref(rolls); return C_DBERR;}
char now[40];
time_t t = time(NULL);
struct tm tm;
gmtime_r(&t, &tm);
strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
json_t *doc = json_pack(
    "{s:s, s:i, s:s, s:{s:s, s:s, s:s, s:b, s:s, s:s, s:I, s:O?}, s:O, s:o, s:o, s:o}", "format",
    "m44d-campaign-export", "format_version", 1, "exported_at", now, "campaign", "id", c->id,
    "name", c->name, "ruleset", c->ruleset_id, "what_if", c->what_if, "dice",
    dice_mode_name(c->dice), "status", c->finished ? "finished" : "active", "version",
    (json_int_t)c->version, "scenarios", c->scenarios_json, "seeds",
    json_object_get(standing, "seeds"), "rolls", rolls, "actions", log, "standing", standing);
char disp[96];
snprintf(disp, sizeof disp, "attachment; filename=\"m44d-%s.json\"", c->id);
const char *headers[] = {"Content-Disposition", disp, NULL};
reply_json_headers(r, 200, doc, headers);
return C_OK;
}

void handle_export(struct req *r)
{
    read_campaign(r, export, NULL);
}

struct import_arg {
    json_t *doc;
};

static enum cres import(struct db *db, struct write_ctx *w)
{
    struct import_arg *a = w->op->arg;
    struct create_output out;
    struct campaign *c = campaign_new();
    if (!c)
        return C_DBERR;
    enum cres rc = campaign_import(db, a->doc, &out, c, &w->err);
    if (rc == C_OK)
        rc = campaign_save(db, c); /* the restored campaign's final state */
    if (rc == C_OK) {
        snprintf(w->location, sizeof w->location, "/api/v1/campaigns/%s", out.id);
        char links[3][128];
        for (int k = 0; k < 3; k++)
            snprintf(links[k], sizeof links[k], "/c/%s#key=%s", out.id, out.keys[k]);
        w->status = 201;
        w->body = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:{s:s, s:s, s:s}}", "id", out.id,
                            "organizer_key", out.keys[ROLE_ORGANIZER], "allies_key",
                            out.keys[ROLE_ALLIES], "axis_key", out.keys[ROLE_AXIS],
                            "seed_commitment", out.commitment, "version", (json_int_t)c->version,
                            "status", c->finished ? "finished" : "active", "links", "organizer",
                            links[ROLE_ORGANIZER], "allies", links[ROLE_ALLIES], "axis",
                            links[ROLE_AXIS]);
    }
    campaign_free(c);
    return rc;
}

void handle_import(struct req *r)
{
    struct jerr e;
    struct import_arg a = {body_parse(r, &e)};
    if (!a.doc) {
        reply_jerr(r, &e);
        return;
    }
    struct write_op op = {
        .campaign = false, .need = NEED_NONE, .action = import, .arg = &a, .returns_keys = true};
    write_run(r, &op);
    json_decref(a.doc);
}
