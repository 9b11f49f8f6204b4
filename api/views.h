/* The JSON a client reads: campaign standing, a battle, the roll log (API.md "Resources"). */
#ifndef M44_API_VIEWS_H
#define M44_API_VIEWS_H

#include "campaign/campaign.h"

#include <jansson.h>

/* The standing of GET /api/v1/campaigns/{id}. NULL on a database error. */
json_t *view_campaign(struct db *db, struct campaign *c);

/* GET /api/v1/campaigns/{id}/battles/{n}. NULL on a database error. */
json_t *view_battle(struct db *db, struct campaign *c, struct battle *b);

/* The roll log: [{"n","side","purpose","battle","source","client_seed","seed_epoch","faces",
 * "at"}]. NULL on a database error. */
json_t *view_rolls(struct db *db, const struct campaign *c);

/* The event log: [{"seq","at","actor","action","detail"}]. NULL on a database error. */
json_t *view_log(struct db *db, const struct campaign *c);

/* {"allies": n, "axis": n} */
json_t *pair_json(const int v[SIDE_COUNT]);

#endif
