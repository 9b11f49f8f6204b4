/* POST /api/v1/campaigns/{id}/what-if: a side rolls its What-if die. */
#include "api/common.h"
#include "api/handlers.h"
#include "campaign/rules_json.h"

static enum cres what_if(struct db *db, struct write_ctx *w)
{
    struct what_if_output out;
    enum cres rc = campaign_what_if(db, w->c, acting_side(w), w->op->arg, &out, &w->err);
    if (rc != C_OK)
        return rc;
    w->status = 201;
    w->body = json_pack("{s:s, s:I, s:o, s:s, s:{s:s, s:s, s:s, s:b}, s:b}", "side",
                        side_name(out.roll.side), "roll", (json_int_t)out.roll.n, "faces",
                        faces_to_json(out.roll.faces, out.roll.count), "source",
                        out.roll.table ? "table" : "server", "event", "id", out.event->id, "name",
                        out.event->name, "text", out.event->text, "stacks", out.event->stacks,
                        "applied", out.applied);
    /* Which face gives which event is a reading (RULES.md 9): said with every roll. */
    const char *note = w->c->rse ? w->c->rse->rs->what_if.face_note : "";
    if (note[0])
        json_object_set_new(w->body, "note", json_string(note));
    return C_OK;
}

void handle_what_if(struct req *r)
{
    struct roll_input in;
    struct write_op op = {.campaign = true, .need = NEED_SIDE, .action = what_if, .arg = &in};
    if (!parse_roll_body(r, &in, &op))
        return;
    write_run(r, &op);
}
