/* Every endpoint handler; each lives in the api/ file named after its endpoint. */
#ifndef M44_API_HANDLERS_H
#define M44_API_HANDLERS_H

#include <stdbool.h>

struct req;

/* api/health.c */
void handle_healthz(struct req *r);
void handle_readyz(struct req *r);
void handle_metrics(struct req *r);

/* api/rulesets.c */
void handle_rulesets_list(struct req *r);
void handle_rulesets_get(struct req *r);

/* api/campaigns_*.c, api/campaign_role.c */
void handle_campaigns_create(struct req *r);
void handle_campaigns_list(struct req *r);
void handle_campaigns_get(struct req *r);
/* The same, answered from the campaign's version alone where it can be (304, or the cached
 * standing); false, with nothing replied, when it needs the handler. */
bool campaigns_get_by_version(struct req *r, long long version);
void handle_campaign_role(struct req *r);

/* api/what_if.c, api/battles_*.c, api/victory_events.c, api/reserve_*.c, api/result.c */
void handle_what_if(struct req *r);
void handle_battles_create(struct req *r);
void handle_battles_get(struct req *r);
void handle_victory_events(struct req *r);
void handle_reserve_roll(struct req *r);
void handle_reserve_choice(struct req *r);
void handle_result(struct req *r);
void handle_pre_battle_roll(struct req *r);
void handle_battle_pick(struct req *r);
void handle_held_use(struct req *r);
void handle_service_worker(struct req *r);
void handle_undo(struct req *r);
void handle_keys_reissue(struct req *r);

/* api/finish.c */
void handle_finish(struct req *r);
void handle_rotate_seed(struct req *r);

/* api/rolls_list.c */
void handle_rolls_list(struct req *r);
void handle_campaign_log(struct req *r);

/* api/export.c */
void handle_export(struct req *r);
void handle_import(struct req *r);

/* api/grand_*.c: grand campaigns (RULES.md 8) */
void handle_grand_rulesets_list(struct req *r);
void handle_grand_rulesets_get(struct req *r);
void handle_grand_campaigns_create(struct req *r);
void handle_grand_campaigns_get(struct req *r);
bool grand_campaigns_get_by_version(struct req *r, long long version);
void handle_grand_role(struct req *r);
void handle_grand_next(struct req *r);
void handle_grand_keys_reissue(struct req *r);
void handle_grand_export(struct req *r);
void handle_grand_import(struct req *r);

/* api/webhook.c: the group's chat */
void handle_webhook_set(struct req *r);
void handle_webhook_get(struct req *r);
void handle_grand_webhook_set(struct req *r);
void handle_grand_webhook_get(struct req *r);

/* api/openapi.c, api/static.c */
void handle_openapi(struct req *r);
void handle_index(struct req *r);
/* A browser asking for a page at an unknown address gets the dashboard's not-found page (404):
 * true when replied so. */
bool static_not_found_page(struct req *r);
void handle_asset(struct req *r);

#endif
