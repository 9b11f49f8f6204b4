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

/* The standing of GET /api/v1/grand-campaigns/{id}. NULL on a database error. */
struct grand;
json_t *view_grand(struct db *db, const struct grand *g, struct cerr *e);

/* The export of GET /api/v1/campaigns/{id}/export (format "m44d-campaign-export"): the
 * campaign, its seeds, rolls, actions and standing. NULL on a database error. */
json_t *view_export(struct db *db, struct campaign *c);
/* The time now, UTC, as exports write it. */
void view_now(char out[40]);

/* {"organizer", "allies", "axis"}: for each role a short tag of its key's hash (`hash`: allies,
 * axis, organizer), a BLAKE2b keyed with the database's secret (key_tags_secret, set once at
 * start-up): it changes whenever the role's key is replaced and tells nothing of the key. A page
 * keeps the tag its key was last confirmed with and asks about its key again when it changes. */
void key_tags_secret(const uint8_t secret[32]);
json_t *key_tags_json(const uint8_t hash[3][32]);

/* {"allies": n, "axis": n} */
json_t *pair_json(const int v[SIDE_COUNT]);
/* The text, or null for NULL or ""; a side's name, or null for -1; a battle's result or null. */
json_t *str_or_null(const char *s);
json_t *side_or_null(int s);
json_t *result_json(const struct battle *b);

#endif
