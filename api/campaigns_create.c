/* POST /api/v1/campaigns: a new campaign; its three keys are shown once, here. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/rulesets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct create_arg {
    struct create_input in;
};

static enum cres create(struct db *db, struct write_ctx *w)
{
    struct create_arg *a = w->op->arg;
    struct create_output out;
    enum cres rc = campaign_create(db, &a->in, &out, &w->err);
    if (rc != C_OK)
        return rc;
    snprintf(w->location, sizeof w->location, "/api/v1/campaigns/%s", out.id);
    char links[3][128];
    for (int k = 0; k < 3; k++)
        snprintf(links[k], sizeof links[k], "/c/%s#key=%s", out.id, out.keys[k]);
    w->status = 201;
    w->body =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:{s:s, s:s, s:s}, s:s}", "id", out.id,
                  "organizer_key", out.keys[ROLE_ORGANIZER], "allies_key", out.keys[ROLE_ALLIES],
                  "axis_key", out.keys[ROLE_AXIS], "seed_commitment", out.commitment, "version", 1,
                  "links", "organizer", links[ROLE_ORGANIZER], "allies", links[ROLE_ALLIES], "axis",
                  links[ROLE_AXIS], "campaign", w->location);
    return C_OK;
}

void handle_campaigns_create(struct req *r)
{
    struct jerr e;
    json_t *body = body_parse(r, &e);
    struct create_arg a;
    struct scenario_list *list = malloc(sizeof *list);
    if (!list || !body || !parse_create(body, "", &a.in, list, &e)) {
        if (!list)
            jerr_set(&e, PROBLEM_INTERNAL, NULL, "Out of memory.");
        reply_jerr(r, &e);
    } else {
        struct write_op op = {.campaign = false,
                              .need = NEED_NONE,
                              .action = create,
                              .arg = &a,
                              .returns_keys = true};
        write_run(r, &op);
    }
    free(list);
    json_decref(body);
}
