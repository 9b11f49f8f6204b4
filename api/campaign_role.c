/* GET /api/v1/campaigns/{id}/role: which role the Authorization key has here (for links). */
#include "api/common.h"
#include "api/handlers.h"

static enum cres role(struct db *db, struct req *r, struct campaign *c, struct cerr *err, void *arg)
{
    (void)db, (void)arg;
    char buf[KEY_TEXT_LEN + 8];
    const char *key = bearer_key(r, buf, sizeof buf);
    enum role ro = campaign_role(c, key);
    if (ro == ROLE_NONE)
        return refuse_key(err, key, campaign_replaced_role(c, key), "campaign");
    reply_json(r, 200, json_pack("{s:s, s:s}", "campaign", c->id, "role", role_name(ro)));
    return C_OK;
}

void handle_campaign_role(struct req *r)
{
    read_campaign(r, role, NULL);
}
