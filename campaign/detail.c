/* One battle's rolls and choices, and what follows from them. */
#include "campaign/campaign.h"

#include "db/store.h"
#include "campaign/rules_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void battle_detail_free(struct battle_detail *d)
{
    for (int s = 0; s < SIDE_COUNT; s++) {
        json_decref(d->side[s].offered);
        json_decref(d->side[s].chosen_json);
    }
    memset(d, 0, sizeof *d);
}

static void read_roll(const PGresult *r, int row, struct roll *out)
{
    memset(out, 0, sizeof *out);
    out->n = atol(PQgetvalue(r, row, 0));
    enum side s;
    side_parse(PQgetvalue(r, row, 1), &s);
    out->side = s;
    out->table = strcmp(PQgetvalue(r, row, 4), "table") == 0;
    snprintf(out->client_seed, sizeof out->client_seed, "%s", PQgetvalue(r, row, 5));
    out->epoch = atoi(PQgetvalue(r, row, 6));
    out->count = campaign_faces_from_sql(PQgetvalue(r, row, 7), out->faces, RULES_MAX_DICE);
}

enum cres battle_detail_load(struct db *db, const struct campaign *c, int battle,
                             struct battle_detail *d)
{
    memset(d, 0, sizeof *d);
    char num[16];
    snprintf(num, sizeof num, "%d", battle);
    PGresult *r = db_battle_detail(db, c->id, num);
    if (!r)
        return C_DBERR;
    for (int i = 0; i < PQntuples(r); i++) {
        enum side s;
        if (!side_parse(PQgetvalue(r, i, 1), &s))
            continue;
        struct side_detail *sd = &d->side[s];
        const char *purpose = PQgetvalue(r, i, 2);
        if (strcmp(purpose, "victory_events") == 0) {
            sd->ve_rolled = true;
            read_roll(r, i, &sd->ve);
            snprintf(sd->ve_at, sizeof sd->ve_at, "%s", PQgetvalue(r, i, 9));
        } else if (strcmp(purpose, "reserve") == 0) {
            sd->rr_rolled = true;
            read_roll(r, i, &sd->rr);
            snprintf(sd->rr_at, sizeof sd->rr_at, "%s", PQgetvalue(r, i, 9));
            json_t *detail = json_loads(PQgetvalue(r, i, 8), 0, NULL);
            sd->offered = json_incref(json_object_get(detail, "options"));
            json_decref(detail);
        } else if (strcmp(purpose, "pre_battle") == 0) {
            sd->pb_rolled = true;
            read_roll(r, i, &sd->pb);
            snprintf(sd->pb_at, sizeof sd->pb_at, "%s", PQgetvalue(r, i, 9));
            json_t *detail = json_loads(PQgetvalue(r, i, 8), 0, NULL);
            snprintf(sd->pb_id, sizeof sd->pb_id, "%s",
                     json_string_value(json_object_get(detail, "roll"))
                         ? json_string_value(json_object_get(detail, "roll"))
                         : "");
            json_decref(detail);
        } else if (strcmp(purpose, "choice") == 0) {
            sd->chosen = true;
            sd->chosen_json = json_loads(PQgetvalue(r, i, 8), 0, NULL);
            sd->cost = atoi(PQgetvalue(r, i, 10));
            sd->tokens_after = atoi(PQgetvalue(r, i, 11));
            snprintf(sd->chosen_at, sizeof sd->chosen_at, "%s", PQgetvalue(r, i, 9));
        }
    }
    PQclear(r);
    return C_OK;
}

bool battle_victory_outcome(const struct campaign *c, const struct battle *b,
                            const struct battle_detail *d, struct victory_outcome *out)
{
    if (!c->rse || !c->rse->rs->victory.enabled)
        return false;
    const enum face *faces[SIDE_COUNT];
    int n[SIDE_COUNT];
    for (int s = 0; s < SIDE_COUNT; s++) {
        int dice = campaign_victory_dice(c, b, (enum side)s);
        if (dice > 0 && !d->side[s].ve_rolled)
            return false;
        faces[s] = d->side[s].ve.faces;
        n[s] = d->side[s].ve_rolled ? d->side[s].ve.count : 0;
    }
    victory_resolve(c->rse->rs, b->first_player, faces, n, b->cards, b->commissar, out);
    return true;
}
