/* POST /api/v1/grand-campaigns: a new grand campaign (RULES.md 8); its three keys, shown once
 * here, are the keys of every campaign of it. Its first campaign starts with .../next. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

#include <stdio.h>

struct create_arg {
    struct grand_input in;
};

/* The reply of a creation or an import: the id, the keys, and the dashboard's links. */
json_t *grand_keys_reply(const struct grand_output *out, const char *location, long long version)
{
    char links[3][128];
    for (int k = 0; k < 3; k++)
        snprintf(links[k], sizeof links[k], "/g/%s#key=%s", out->id, out->keys[k]);
    return json_pack("{s:s, s:s, s:s, s:s, s:I, s:{s:s, s:s, s:s, s:s}}", "id", out->id,
                     "organizer_key", out->keys[ROLE_ORGANIZER], "allies_key",
                     out->keys[ROLE_ALLIES], "axis_key", out->keys[ROLE_AXIS], "version",
                     (json_int_t)version, "links", "organizer", links[ROLE_ORGANIZER], "allies",
                     links[ROLE_ALLIES], "axis", links[ROLE_AXIS], "grand_campaign", location);
}

static enum cres create(struct db *db, struct write_ctx *w)
{
    struct create_arg *a = w->op->arg;
    struct grand_output out;
    enum cres rc = grand_create(db, &a->in, &out, &w->err);
    if (rc != C_OK)
        return rc;
    snprintf(w->location, sizeof w->location, "/api/v1/grand-campaigns/%s", out.id);
    w->status = 201;
    w->body = grand_keys_reply(&out, w->location, 1);
    return C_OK;
}

void handle_grand_campaigns_create(struct req *r)
{
    struct jerr e;
    json_t *body = body_parse(r, &e);
    struct create_arg a;
    if (!body || !parse_grand_create(body, false, &a.in, &e)) {
        reply_jerr(r, &e);
    } else {
        struct write_op op = {.need = NEED_NONE, .action = create, .arg = &a, .returns_keys = true};
        write_run(r, &op);
    }
    json_decref(body);
}
