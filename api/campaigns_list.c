/* GET /api/v1/campaigns?limit=&cursor=: newest first. */
#include "api/common.h"
#include "api/handlers.h"
#include "db/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse_number(const char *s, long min, long max, long *out)
{
    char *end;
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    long v = strtol(s, &end, 10);
    if (*end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

struct list_ctx {
    const char *cursor;
    long limit;
    json_t *out;
};

static enum db_tx list_tx(struct db *db, void *arg)
{
    struct list_ctx *x = arg;
    char lim[24];
    snprintf(lim, sizeof lim, "%ld", x->limit + 1);
    PGresult *r = db_campaign_list(db, x->cursor, lim);
    if (!r)
        return DB_TX_ERROR;
    json_t *items = json_array();
    int n = PQntuples(r);
    for (int i = 0; i < n && i < x->limit; i++)
        json_array_append_new(items,
                              json_pack("{s:s, s:s, s:s, s:s, s:I, s:{s:s, s:s}, s:s}", "id",
                                        PQgetvalue(r, i, 0), "name", PQgetvalue(r, i, 1), "ruleset",
                                        PQgetvalue(r, i, 2), "status", PQgetvalue(r, i, 3),
                                        "version", (json_int_t)atoll(PQgetvalue(r, i, 4)),
                                        "players", "allies", PQgetvalue(r, i, 5), "axis",
                                        PQgetvalue(r, i, 6), "created_at", PQgetvalue(r, i, 7)));
    json_t *next = n > x->limit ? json_string(PQgetvalue(r, (int)x->limit - 1, 8)) : json_null();
    PQclear(r);
    json_decref(x->out);
    x->out = json_pack("{s:o, s:o, s:i}", "campaigns", items, "next_cursor", next, "limit",
                       (int)x->limit);
    return DB_TX_OK;
}

void handle_campaigns_list(struct req *r)
{
    struct list_ctx x = {.limit = 20};
    const char *limit = req_query(r, "limit"), *cursor = req_query(r, "cursor");
    long v;
    if (limit && !parse_number(limit, 1, 100, &x.limit)) {
        reply_problem_extra(r, PROBLEM_INVALID_PARAMETER, json_pack("{s:s}", "field", "limit"),
                            "limit must be a number from 1 to 100.");
        return;
    }
    if (cursor && !parse_number(cursor, 1, 9007199254740991L, &v)) {
        reply_problem_extra(r, PROBLEM_INVALID_PARAMETER, json_pack("{s:s}", "field", "cursor"),
                            "cursor must be the next_cursor of a previous page.");
        return;
    }
    x.cursor = cursor;
    enum db_result res = read_anywhere(r, list_tx, &x);
    if (res == DB_OK) {
        reply_json(r, 200, x.out);
    } else {
        json_decref(x.out);
        reply_db_failure(r, res);
    }
}
