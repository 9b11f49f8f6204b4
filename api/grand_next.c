/* POST /api/v1/grand-campaigns/{id}/next: the organizer starts the next campaign of the list
 * (the first, then each once the one before it has finished). Its keys are the grand
 * campaign's; What-if events are rolled in it first when the grand campaign has them on. */
#include "api/common.h"
#include "api/handlers.h"

#include <stdio.h>

static enum cres next(struct db *db, struct write_ctx *w)
{
    char id[CAMPAIGN_ID_LEN + 1];
    enum cres rc = grand_next(db, w->g, id, &w->err);
    if (rc != C_OK)
        return rc;
    const struct grand_member *m = &w->g->members[w->g->nmembers - 1];
    snprintf(w->location, sizeof w->location, "/api/v1/campaigns/%s", id);
    w->status = 201;
    w->body = json_pack("{s:s, s:i, s:s, s:s, s:s}", "id", id, "place", m->index, "name",
                        w->g->gr->campaigns[m->index - 1].name, "ruleset",
                        w->g->gr->campaigns[m->index - 1].ruleset, "campaign", w->location);
    return C_OK;
}

void handle_grand_next(struct req *r)
{
    if (!empty_body(r))
        return;
    struct write_op op = {.grand = true, .need = NEED_ORGANIZER, .action = next};
    write_run(r, &op);
}
