/*
 * Request bodies, from JSON to the structs campaign/ takes: one parser per kind of body, pure
 * (no connection, no database), so each can be unit-tested and fuzzed on its own. Each
 * refuses with a jerr naming the field.
 */
#ifndef M44_API_BODIES_H
#define M44_API_BODIES_H

#include "api/json_in.h"
#include "campaign/campaign.h"

/* Bytes to a JSON object ({} when empty); NULL with e set otherwise. */
json_t *json_body(const char *data, size_t len, struct jerr *e);

/* POST /campaigns (and the campaign_created action of an import): `path` prefixes fields.
 * Strings in `in` point into `body`; `list` receives a scenario list if one is given. */
bool parse_create(json_t *body, const char *path, struct create_input *in,
                  struct scenario_list *list, struct jerr *e);

/* POST /grand-campaigns. Strings in `in` point into `body`. */
struct grand_input;
/* `recorded`: a grand campaign's export being restored, its names taken as they were. */
bool parse_grand_create(json_t *body, bool recorded, struct grand_input *in, struct jerr *e);

/* A side's POST may name the side it acts for ({"side": "axis"}); true with *side when it does.
 * The key must then be that side's (403 otherwise); bodies that allow it check its value. */
bool body_side(json_t *body, enum side *side);

/* The body of a rolling POST: {} / {"client_seed"} / {"faces"}, and optionally "side". */
bool parse_roll(json_t *body, struct roll_input *in, struct jerr *e);

/* POST .../battles. */
bool parse_battle(json_t *body, struct battle_input *in, struct jerr *e);

/* POST .../reserve-choice ({"options"}, optionally "side"): items point into `body`; *n
 * receives their count. */
bool parse_choice(json_t *body, struct choice_item items[RULES_MAX_OFFERED], int *n,
                  struct jerr *e);

/* POST .../result. */
bool parse_result(json_t *body, struct result_input *in, struct jerr *e);

/* POST .../battles/{n}/pick: {"event"}, optionally "side"; *event points into `body`. */
bool parse_pick(json_t *body, const char **event, struct jerr *e);

/* POST /grand-campaigns/{id}/next: {} or {"reserve_tokens": {"allies", "axis"}}. */
struct grand_next_input;
bool parse_grand_next(json_t *body, struct grand_next_input *in, struct jerr *e);

/* POST .../undo: {} (the last action), {"roll": n} or {"reserve_choice": {"battle", "side"}}. */
bool parse_undo(json_t *body, struct undo_target *t, struct jerr *e);

/* POST .../finish and .../rotate-seed take no fields. */
bool parse_empty(json_t *body, struct jerr *e);

#endif
