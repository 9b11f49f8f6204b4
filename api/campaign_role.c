/* GET /api/v1/campaigns/{id}/role: which role the Authorization key has here (for links). */
#include "api/common.h"
#include "api/handlers.h"

static enum cres role(struct db *db, struct req *r, struct campaign *c, void *arg)
{
    (void)db, (void)arg;
    char buf[KEY_TEXT_LEN + 8];
    const char *key = bearer_key(r, buf, sizeof buf);
    enum role ro = campaign_role(c, key), replaced = campaign_replaced_role(c, key);
    if (ro == ROLE_NONE && replaced != ROLE_NONE) {
        reply_problem(r, PROBLEM_UNAUTHORIZED,
                      "This %s link was replaced by a new one: ask the organizer for the new link.",
                      replaced == ROLE_ORGANIZER ? "organizer" : side_title(role_side(replaced)));
        return C_OK;
    }
    if (ro == ROLE_NONE) {
        reply_problem(r, PROBLEM_UNAUTHORIZED, "%s",
                      key ? "This key is not a key of this campaign."
                          : "Send a key: Authorization: Bearer <key>.");
        return C_OK;
    }
    reply_json(r, 200, json_pack("{s:s, s:s}", "campaign", c->id, "role", role_name(ro)));
    return C_OK;
}

void handle_campaign_role(struct req *r)
{
    read_campaign(r, role, NULL);
}
