/* POST /api/v1/campaigns/{id}/keys/{role}: the organizer issues a new key for a role (allies,
 * axis or organizer); the old one stops working at once (API.md). For a lost or leaked link. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

#include <sodium.h>
#include <string.h>

struct arg {
    enum role role;
};

static enum cres reissue(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    char key[KEY_TEXT_LEN + 1];
    enum cres rc = campaign_reissue_key(db, w->c, a->role, key, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 200;
    w->body = json_pack("{s:s, s:s}", "role", role_name(a->role), "key", key);
    sodium_memzero(key, sizeof key);
    return C_OK;
}

void handle_keys_reissue(struct req *r)
{
    struct arg a;
    const char *role = r->params[1];
    if (strcmp(role, "organizer") == 0)
        a.role = ROLE_ORGANIZER;
    else if (strcmp(role, "allies") == 0)
        a.role = ROLE_ALLIES;
    else if (strcmp(role, "axis") == 0)
        a.role = ROLE_AXIS;
    else {
        reply_problem_extra(r, PROBLEM_NOT_FOUND, json_pack("{s:s}", "field", "role"),
                            "A campaign has keys for allies, axis and organizer.");
        return;
    }
    struct jerr e;
    json_t *body = body_parse(r, &e);
    bool ok = body && parse_empty(body, &e);
    json_decref(body);
    if (!ok) {
        reply_jerr(r, &e);
        return;
    }
    struct write_op op = {.campaign = true,
                          .need = NEED_ORGANIZER,
                          .action = reissue,
                          .arg = &a,
                          .returns_keys = true};
    write_run(r, &op);
}
