/* GET /api/v1/grand-campaigns/{id}/role: which role the Authorization key has in a grand
 * campaign (the same in each of its campaigns), as GET /api/v1/campaigns/{id}/role. */
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/grand.h"

static enum cres role(struct db *db, struct req *r, struct grand *g, struct cerr *err, void *arg)
{
    (void)db, (void)arg;
    char buf[KEY_TEXT_LEN + 8];
    const char *key = bearer_key(r, buf, sizeof buf);
    enum role ro = grand_role(g, key);
    if (ro == ROLE_NONE)
        return refuse_key(err, key, grand_replaced_role(g, key), "grand campaign");
    reply_json(r, 200, json_pack("{s:s, s:s}", "grand_campaign", g->id, "role", role_name(ro)));
    return C_OK;
}

void handle_grand_role(struct req *r)
{
    read_grand_campaign(r, role, NULL);
}
