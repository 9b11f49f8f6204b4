#include "api/router.h"

#include "api/handlers.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The whole API at a glance. The OpenAPI document is checked against this table by a test.
 * The last column is the per-client limit a route counts against (api/ratelimit.h). */
static const struct route routes[] = {
    {"GET", "/healthz", handle_healthz, false, NULL, LIMIT_NONE},
    {"GET", "/readyz", handle_readyz, true, NULL, LIMIT_NONE},
    {"GET", "/metrics", handle_metrics, false, NULL, LIMIT_NONE},
    {"GET", "/", handle_index, false, NULL, LIMIT_NONE},
    {"GET", "/c/{id}", handle_index, false, NULL, LIMIT_NONE},
    {"GET", "/g/{id}", handle_index, false, NULL, LIMIT_NONE},
    {"GET", "/assets/{file}", handle_asset, false, NULL, LIMIT_NONE},
    {"GET", "/sw.js", handle_service_worker, false, NULL, LIMIT_NONE},
    {"GET", "/api/v1/openapi.json", handle_openapi, false, NULL, LIMIT_READ},
    {"GET", "/api/v1/rulesets", handle_rulesets_list, false, NULL, LIMIT_READ},
    {"GET", "/api/v1/rulesets/{id}", handle_rulesets_get, false, NULL, LIMIT_READ},
    {"POST", "/api/v1/campaigns", handle_campaigns_create, true, NULL, LIMIT_CREATE},
    {"GET", "/api/v1/campaigns", handle_campaigns_list, true, NULL, LIMIT_READ},
    {"POST", "/api/v1/campaigns/import", handle_import, true, NULL, LIMIT_HEAVY},
    {"GET", "/api/v1/campaigns/{id}", handle_campaigns_get, true, campaigns_get_by_version,
     LIMIT_READ},
    {"GET", "/api/v1/campaigns/{id}/role", handle_campaign_role, true, NULL, LIMIT_READ},
    {"GET", "/api/v1/campaigns/{id}/rolls", handle_rolls_list, true, NULL, LIMIT_READ},
    {"GET", "/api/v1/campaigns/{id}/log", handle_campaign_log, true, NULL, LIMIT_READ},
    {"GET", "/api/v1/campaigns/{id}/export", handle_export, true, NULL, LIMIT_HEAVY},
    {"POST", "/api/v1/campaigns/{id}/what-if", handle_what_if, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/battles", handle_battles_create, true, NULL, LIMIT_WRITE},
    {"GET", "/api/v1/campaigns/{id}/battles/{n}", handle_battles_get, true, NULL, LIMIT_READ},
    {"POST", "/api/v1/campaigns/{id}/battles/{n}/victory-events", handle_victory_events, true, NULL,
     LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/battles/{n}/reserve-roll", handle_reserve_roll, true, NULL,
     LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/battles/{n}/reserve-choice", handle_reserve_choice, true, NULL,
     LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/battles/{n}/pre-battle-roll", handle_pre_battle_roll, true,
     NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/battles/{n}/pick", handle_battle_pick, true, NULL,
     LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/battles/{n}/result", handle_result, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/held/{n}/use", handle_held_use, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/finish", handle_finish, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/rotate-seed", handle_rotate_seed, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/undo", handle_undo, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/keys/{role}", handle_keys_reissue, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/campaigns/{id}/webhook", handle_webhook_set, true, NULL, LIMIT_WRITE},
    {"GET", "/api/v1/campaigns/{id}/webhook", handle_webhook_get, true, NULL, LIMIT_READ},
    {"GET", "/api/v1/grand-rulesets", handle_grand_rulesets_list, false, NULL, LIMIT_READ},
    {"GET", "/api/v1/grand-rulesets/{id}", handle_grand_rulesets_get, false, NULL, LIMIT_READ},
    {"POST", "/api/v1/grand-campaigns", handle_grand_campaigns_create, true, NULL, LIMIT_CREATE},
    {"POST", "/api/v1/grand-campaigns/import", handle_grand_import, true, NULL, LIMIT_HEAVY},
    {"GET", "/api/v1/grand-campaigns/{id}", handle_grand_campaigns_get, true,
     grand_campaigns_get_by_version, LIMIT_READ},
    {"GET", "/api/v1/grand-campaigns/{id}/role", handle_grand_role, true, NULL, LIMIT_READ},
    {"POST", "/api/v1/grand-campaigns/{id}/next", handle_grand_next, true, NULL, LIMIT_WRITE},
    {"POST", "/api/v1/grand-campaigns/{id}/keys/{role}", handle_grand_keys_reissue, true, NULL,
     LIMIT_WRITE},
    {"GET", "/api/v1/grand-campaigns/{id}/export", handle_grand_export, true, NULL, LIMIT_HEAVY},
    {"POST", "/api/v1/grand-campaigns/{id}/webhook", handle_grand_webhook_set, true, NULL,
     LIMIT_WRITE},
    {"GET", "/api/v1/grand-campaigns/{id}/webhook", handle_grand_webhook_get, true, NULL,
     LIMIT_READ},
};

#define NROUTES (sizeof routes / sizeof routes[0])

const struct route *router_routes(size_t *count)
{
    *count = NROUTES;
    return routes;
}

/*
 * Matches one pattern against a path. Path parameters are copied, NUL-terminated, into
 * buf; returns the number of parameters, or -1 when the pattern does not match.
 */
static int match_pattern(const char *pattern, const char *path, const char **params, int maxparams,
                         char *buf, size_t buflen)
{
    int n = 0;
    size_t used = 0;
    const char *p = pattern, *s = path;
    while (*p && *s) {
        if (*p != '/' || *s != '/')
            return -1;
        p++, s++;
        const char *pend = strchr(p, '/'), *send = strchr(s, '/');
        size_t plen = pend ? (size_t)(pend - p) : strlen(p);
        size_t slen = send ? (size_t)(send - s) : strlen(s);
        if (plen >= 2 && p[0] == '{' && p[plen - 1] == '}') {
            if (slen == 0 || n >= maxparams || used + slen + 1 > buflen)
                return -1;
            memcpy(buf + used, s, slen);
            buf[used + slen] = '\0';
            params[n++] = buf + used;
            used += slen + 1;
        } else if (plen != slen || strncmp(p, s, plen) != 0) {
            return -1;
        }
        p += plen, s += slen;
    }
    return (*p || *s) ? -1 : n;
}

enum route_match router_match(const char *method, const char *path, const struct route **found,
                              const char **params, int *nparams, int maxparams, char *buf,
                              size_t buflen, char *allow, size_t allowlen)
{
    const char *m = strcmp(method, "HEAD") == 0 ? "GET" : method;
    /* A path that spells out a route (/api/v1/campaigns/import) is that route, never an id of
     * a route with a parameter there: only the matches with the fewest parameters count. */
    int fewest = -1;
    for (size_t i = 0; i < NROUTES; i++) {
        int n = match_pattern(routes[i].pattern, path, params, maxparams, buf, buflen);
        if (n >= 0 && (fewest < 0 || n < fewest))
            fewest = n;
    }
    if (allowlen)
        allow[0] = '\0';
    if (fewest < 0)
        return ROUTE_NOT_FOUND;
    for (size_t i = 0; i < NROUTES; i++) {
        int n = match_pattern(routes[i].pattern, path, params, maxparams, buf, buflen);
        if (n != fewest)
            continue;
        if (strcmp(routes[i].method, m) == 0) {
            *found = &routes[i];
            *nparams = n;
            return ROUTE_FOUND;
        }
        if (!strstr(allow, routes[i].method)) {
            size_t len = strlen(allow);
            snprintf(allow + len, allowlen - len, "%s%s", len ? ", " : "", routes[i].method);
            if (strcmp(routes[i].method, "GET") == 0 && !strstr(allow, "HEAD")) {
                len = strlen(allow);
                snprintf(allow + len, allowlen - len, ", HEAD");
            }
        }
    }
    return ROUTE_METHOD_NOT_ALLOWED;
}
