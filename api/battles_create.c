/* POST /api/v1/campaigns/{id}/battles: the organizer sets up the next battle. */
#include "api/bodies.h"
#include "api/common.h"
#include "api/handlers.h"

static enum cres create(struct db *db, struct write_ctx *w)
{
    struct battle *b;
    enum cres rc = campaign_new_battle(db, w->c, w->op->arg, &b, &w->err);
    if (rc != C_OK)
        return rc;
    snprintf(w->location, sizeof w->location, "/api/v1/campaigns/%s/battles/%d", w->c->id,
             b->number);
    w->status = 201;
    w->body = json_pack("{s:i, s:s, s:s, s:s, s:{s:i, s:i}, s:i}", "number", b->number, "phase",
                        phase_name(b->phase), "scenario", b->scenario, "first_player",
                        side_name(b->first_player), "cards", "allies", b->cards[0], "axis",
                        b->cards[1], "medals_to_win", b->medals_to_win);
    if (b->nmaps) {
        json_t *maps = json_array();
        for (int i = 0; i < b->nmaps; i++)
            json_array_append_new(maps, json_string(b->maps[i]));
        json_object_set_new(w->body, "maps", maps);
    }
    return C_OK;
}

void handle_battles_create(struct req *r)
{
    struct jerr e;
    struct battle_input in;
    json_t *body = body_parse(r, &e);
    if (!body || !parse_battle(body, &in, &e)) {
        reply_jerr(r, &e);
        json_decref(body);
        return;
    }
    struct write_op op = {.campaign = true, .need = NEED_ORGANIZER, .action = create, .arg = &in};
    write_run(r, &op);
    json_decref(body);
}
