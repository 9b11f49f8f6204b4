/* GET /healthz, GET /readyz, GET /metrics */
#include "api/handlers.h"
#include "api/http.h"
#include "api/metrics.h"
#include "db/db.h"

#include <stdlib.h>

static struct db_statement st_ping = {"health_ping", "SELECT 1", 0, 0};

void handle_healthz(struct req *r)
{
    reply_json(r, 200, json_pack("{s:s}", "status", "ok"));
}

/* One ping; a connection found broken is re-established once before giving up. */
static bool database_answers(void)
{
    struct db *db = db_thread();
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!db_ensure(db))
            return false;
        PGresult *res = db_exec(db, &st_ping, NULL);
        if (res) {
            PQclear(res);
            return true;
        }
    }
    return false;
}

void handle_readyz(struct req *r)
{
    if (database_answers())
        reply_json(r, 200, json_pack("{s:s}", "status", "ready"));
    else
        reply_problem(r, PROBLEM_UNAVAILABLE, "The database does not answer: %s",
                      db_last_error(db_thread()));
}

void handle_metrics(struct req *r)
{
    size_t len;
    char *text = metrics_render(&len);
    if (!text) {
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory rendering metrics.");
        return;
    }
    reply_bytes(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, len, NULL);
    free(text);
}
