/* POST /api/v1/grand-campaigns/{id}/next: the organizer starts the next campaign of the list
 * (the first, then each once the one before it has finished), optionally with the Reserve
 * Tokens each side starts it with. Its keys are the grand campaign's; What-if events are rolled
 * in it first when the grand campaign has them on. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

#include <stdio.h>

static enum cres next(struct db *db, struct write_ctx *w)
{
    const struct grand_next_input *in = w->op->arg;
    char id[CAMPAIGN_ID_LEN + 1];
    enum cres rc = grand_next(db, w->g, in, id, &w->err);
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
    struct grand_next_input in;
    struct jerr e;
    json_t *body = body_parse(r, &e);
    if (!body || !parse_grand_next(body, &in, &e)) {
        reply_jerr(r, &e);
        json_decref(body);
        return;
    }
    json_decref(body);
    struct write_op op = {.grand = true, .need = NEED_ORGANIZER, .action = next, .arg = &in};
    write_run(r, &op);
}
