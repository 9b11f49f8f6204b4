/* GET /healthz, GET /readyz, GET /metrics */
#include "api/handlers.h"
#include "api/http.h"
#include "api/metrics.h"
#include "db/db.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* Answers, and says whether this session may write (off on a standby, or with
 * default_transaction_read_only). */
static struct db_statement st_ping = {"health_ping",
                                      "SELECT current_setting('transaction_read_only')", 0, 0};

void handle_healthz(struct req *r)
{
    reply_json(r, 200, json_pack("{s:s}", "status", "ok"));
}

enum readiness { READY, NO_DATABASE, READ_ONLY };

/* One ping; a connection found broken is re-established once before giving up. */
static enum readiness database_ready(void)
{
    struct db *db = db_thread();
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!db_ensure(db))
            return NO_DATABASE;
        PGresult *res = db_exec(db, &st_ping, NULL);
        if (res) {
            bool read_only = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "on") == 0;
            PQclear(res);
            /* Also not ready when a write was refused (a full disk) and none has gone through
             * since. */
            return read_only || db_writes_refused() ? READ_ONLY : READY;
        }
    }
    return NO_DATABASE;
}

void handle_readyz(struct req *r)
{
    switch (database_ready()) {
    case READY:
        reply_json(r, 200, json_pack("{s:s}", "status", "ready"));
        return;
    case READ_ONLY:
        reply_problem_retry(r, PROBLEM_READ_ONLY, 30,
                            "The database answers but refuses changes (read-only or full).");
        return;
    case NO_DATABASE:
        /* Why goes to the log only: PostgreSQL's words name roles, hosts and paths. */
        log_msg(LOG_WARN, "readyz", "the database does not answer: %s", db_last_error(db_thread()));
        reply_problem_retry(r, PROBLEM_UNAVAILABLE, 2,
                            "The database does not answer (the server's log says why).");
        return;
    }
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
