/* POST /api/v1/campaigns/{id}/keys/{role}: the organizer issues a new key for a role (allies,
 * axis or organizer); the old one stops working at once (API.md). For a lost or leaked link.
 * POST /api/v1/grand-campaigns/{id}/keys/{role}: the same for a grand campaign, whose keys are
 * those of every campaign of it. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/grand.h"

#include <sodium.h>

struct arg {
    enum role role;
};

static enum cres reissue(struct db *db, struct write_ctx *w)
{
    struct arg *a = w->op->arg;
    char key[KEY_TEXT_LEN + 1];
    enum cres rc = w->op->grand ? grand_reissue_key(db, w->g, a->role, NULL, key, &w->err)
                                : campaign_reissue_key(db, w->c, w->g, a->role, key, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 200;
    w->body = json_pack("{s:s, s:s}", "role", role_name(a->role), "key", key);
    sodium_memzero(key, sizeof key);
    return C_OK;
}

static void reissue_key(struct req *r, bool grand)
{
    struct arg a;
    if (!path_role(r, 1, &a.role) || !empty_body(r))
        return;
    struct write_op op = {.campaign = !grand,
                          .grand = grand,
                          .need = NEED_ORGANIZER,
                          .action = reissue,
                          .arg = &a,
                          .returns_keys = true,
                          .reissues = &a.role,
                          .grand_wide = !grand, /* a grand campaign's key is all its campaigns' */
                          .reloads = true};     /* a rare action: read the keys again after */
    write_run(r, &op);
}

void handle_keys_reissue(struct req *r)
{
    reissue_key(r, false);
}

void handle_grand_keys_reissue(struct req *r)
{
    reissue_key(r, true);
}
