/* GET /api/v1/campaigns/{id}/export and POST /api/v1/campaigns/import: the backup. */
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum cres export_campaign(struct db *db, struct req *r, struct campaign *c, struct cerr *err,
                                 void *arg)
{
    (void)arg, (void)err;
    json_t *doc = view_export(db, c);
    if (!doc)
        return C_DBERR;
    char disp[96];
    snprintf(disp, sizeof disp, "attachment; filename=\"m44d-%s.json\"", c->id);
    const char *headers[] = {"Content-Disposition", disp, NULL};
    reply_json_headers(r, 200, doc, headers);
    return C_OK;
}

void handle_export(struct req *r)
{
    read_campaign_replica(r, export_campaign, NULL);
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
    enum cres rc = campaign_import(db, a->doc, NULL, &out, c, &w->err);
    if (rc == C_OK)
        rc = campaign_save(db, c); /* the restored campaign's final state */
    if (rc == C_OK) {
        snprintf(w->location, sizeof w->location, "/api/v1/campaigns/%s", out.id);
        char links[3][128];
        for (int k = 0; k < 3; k++)
            snprintf(links[k], sizeof links[k], "/c/%s#key=%s", out.id, out.keys[k]);
        w->status = 201;
        w->version = c->version;
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
