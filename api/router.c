#include "api/router.h"

#include "api/handlers.h"

#include <pthread.h>
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

/* A path or pattern cut at its slashes: "/a/b/" is "a", "b", "". Each route's pattern is cut
 * once; a request's path once per request, and then every route is matched against it by
 * comparing counts first, so that the routes of another shape cost nothing. */
#define MAX_SEGMENTS 16

struct segments {
    int n; /* -1: not a path (no leading slash, or too many segments to be a route) */
    unsigned short at[MAX_SEGMENTS], len[MAX_SEGMENTS];
};

static void cut(const char *s, struct segments *out)
{
    out->n = -1;
    if (s[0] != '/')
        return;
    int n = 0;
    size_t i = 0;
    while (s[i] == '/') {
        if (n == MAX_SEGMENTS)
            return;
        size_t from = ++i;
        while (s[i] && s[i] != '/')
            i++;
        if (i - from > 0xFFFF || from > 0xFFFF)
            return;
        out->at[n] = (unsigned short)from;
        out->len[n] = (unsigned short)(i - from);
        n++;
    }
    out->n = n;
}

static struct segments pattern_segments[sizeof routes / sizeof routes[0]];
static pthread_once_t patterns_cut = PTHREAD_ONCE_INIT;

static void cut_patterns(void)
{
    for (size_t i = 0; i < NROUTES; i++)
        cut(routes[i].pattern, &pattern_segments[i]);
}

/* A pattern's segment "{name}" takes any one non-empty segment. */
static bool is_param(const char *pattern, const struct segments *ps, int k)
{
    return ps->len[k] >= 2 && pattern[ps->at[k]] == '{' &&
           pattern[ps->at[k] + ps->len[k] - 1] == '}';
}

/* Whether route i matches the path with its parameters fitting the caller's room (at most
 * maxparams of them, taking buflen bytes with their NULs): their number, or -1. */
static int matches(size_t i, const char *path, const struct segments *s, int maxparams,
                   size_t buflen)
{
    const struct segments *ps = &pattern_segments[i];
    if (ps->n != s->n || s->n < 0)
        return -1;
    const char *pattern = routes[i].pattern;
    int params = 0;
    size_t used = 0;
    for (int k = 0; k < s->n; k++) {
        if (is_param(pattern, ps, k)) {
            used += (size_t)s->len[k] + 1;
            if (s->len[k] == 0 || ++params > maxparams || used > buflen)
                return -1;
        } else if (ps->len[k] != s->len[k] ||
                   memcmp(pattern + ps->at[k], path + s->at[k], s->len[k]) != 0) {
            return -1;
        }
    }
    return params;
}

/* Copies route i's parameters (matches() has found they fit) out of the path into buf. */
static void take_params(size_t i, const char *path, const struct segments *s, const char **params,
                        char *buf)
{
    const struct segments *ps = &pattern_segments[i];
    int n = 0;
    size_t used = 0;
    for (int k = 0; k < s->n; k++) {
        if (!is_param(routes[i].pattern, ps, k))
            continue;
        memcpy(buf + used, path + s->at[k], s->len[k]);
        buf[used + s->len[k]] = '\0';
        params[n++] = buf + used;
        used += (size_t)s->len[k] + 1;
    }
}

enum route_match router_match(const char *method, const char *path, const struct route **found,
                              const char **params, int *nparams, int maxparams, char *buf,
                              size_t buflen, char *allow, size_t allowlen)
{
    pthread_once(&patterns_cut, cut_patterns);
    const char *m = strcmp(method, "HEAD") == 0 ? "GET" : method;
    struct segments s;
    cut(path, &s);
    /* A path that spells out a route (/api/v1/campaigns/import) is that route, never an id of
     * a route with a parameter there: only the matches with the fewest parameters count. */
    int got[NROUTES], fewest = -1;
    for (size_t i = 0; i < NROUTES; i++) {
        got[i] = matches(i, path, &s, maxparams, buflen);
        if (got[i] >= 0 && (fewest < 0 || got[i] < fewest))
            fewest = got[i];
    }
    if (allowlen)
        allow[0] = '\0';
    if (fewest < 0)
        return ROUTE_NOT_FOUND;
    for (size_t i = 0; i < NROUTES; i++) {
        if (got[i] != fewest)
            continue;
        if (strcmp(routes[i].method, m) == 0) {
            take_params(i, path, &s, params, buf);
            *found = &routes[i];
            *nparams = fewest;
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
