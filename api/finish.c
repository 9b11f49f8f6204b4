/* POST /api/v1/campaigns/{id}/finish and .../rotate-seed (organizer). */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"
#include "api/views.h"

#include <sodium.h>

static json_t *seed_json(const struct seed *s)
{
    char hex[2 * SEED_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, s->bytes, SEED_BYTES);
    return json_pack("{s:i, s:s, s:s}", "epoch", s->epoch, "commitment", s->commitment,
                     "server_seed", hex);
}

static enum cres finish(struct db *db, struct write_ctx *w)
{
    enum cres rc = campaign_finish(db, w->c, &w->err);
    if (rc != C_OK)
        return rc;
    struct standing st;
    struct outcome o;
    campaign_standing(w->c, &st);
    campaign_graded_outcome(w->c, &st, &o);
    json_t *seeds = json_array();
    const struct seed *last = NULL;
    for (int i = 0; i < w->c->nseeds; i++)
        if (w->c->seeds[i].known) {
            json_array_append_new(seeds, seed_json(&w->c->seeds[i]));
            if (w->c->seeds[i].epoch == w->c->seed_epoch)
                last = &w->c->seeds[i];
        }
    char hex[2 * SEED_BYTES + 1] = "";
    if (last)
        sodium_bin2hex(hex, sizeof hex, last->bytes, SEED_BYTES);
    w->status = 200;
    w->body = json_pack("{s:s, s:o, s:o, s:o, s:s, s:i, s:o, s:o}", "status", "finished", "winner",
                        o.winner >= 0 ? json_string(side_name((enum side)o.winner)) : json_null(),
                        "battles_won", pair_json(st.battles_won), "medals", pair_json(st.medals),
                        "grade", o.grade, "points", o.points, "server_seed",
                        last ? json_string(hex) : json_null(), "seeds", seeds);
    json_object_set_new(w->body, "victory_points", pair_json(o.victory_points));
    return C_OK;
}

static enum cres rotate(struct db *db, struct write_ctx *w)
{
    int old = w->c->seed_epoch;
    enum cres rc = campaign_rotate_seed(db, w->c, "organizer", &w->err);
    if (rc != C_OK)
        return rc;
    const struct seed *revealed = NULL, *current = NULL;
    for (int i = 0; i < w->c->nseeds; i++) {
        if (w->c->seeds[i].epoch == old)
            revealed = &w->c->seeds[i];
        if (w->c->seeds[i].epoch == w->c->seed_epoch)
            current = &w->c->seeds[i];
    }
    if (!current)
        return C_DBERR; /* campaign_rotate_seed always adds the new epoch */
    w->status = 200;
    w->body = json_pack("{s:i, s:s, s:o}", "seed_epoch", current->epoch, "seed_commitment",
                        current->commitment, "revealed",
                        revealed && revealed->known ? seed_json(revealed) : json_null());
    return C_OK;
}

void handle_finish(struct req *r)
{
    if (!empty_body(r))
        return;
    /* The database stamps when it finished and when the seeds were revealed. */
    struct write_op op = {
        .campaign = true, .need = NEED_ORGANIZER, .action = finish, .reloads = true};
    write_run(r, &op);
}

void handle_rotate_seed(struct req *r)
{
    if (!empty_body(r))
        return;
    /* The database stamps when the old seed was revealed. */
    struct write_op op = {
        .campaign = true, .need = NEED_ORGANIZER, .action = rotate, .reloads = true};
    write_run(r, &op);
}
