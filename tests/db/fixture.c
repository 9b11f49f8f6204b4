#include "tests/db/fixture.h"

#include "db/db.h"
#include "db/migrate.h"
#include "tests/common/testkit.h"

#include <stdio.h>
#include <stdlib.h>

bool fixture_add_campaign(const char *id, const char *name)
{
    char sql[900];
    snprintf(sql, sizeof sql,
             "INSERT INTO campaigns (id, name, ruleset, what_if, dice, player_allies, "
             "player_axis, tokens_allies, tokens_axis, organizer_key_hash, allies_key_hash, "
             "axis_key_hash) VALUES ('%s', '%s', 'standard', false, 'server', 'A', 'B', 3, 3, "
             "'\\x00', '\\x01', '\\x02')",
             id, name);
    PGresult *r = db_exec_sql(db_thread(), sql);
    PQclear(r);
    return r != NULL;
}

char *fixture_campaign(const char *prefix, const char *id)
{
    char *conninfo = tk_new_database(prefix);
    db_init(conninfo);
    if (db_migrate(db_thread()) < 1 || !fixture_add_campaign(id, prefix))
        fixture_end(&conninfo);
    return conninfo;
}

bool fixture_sql(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        fprintf(stderr, "  %s", PQerrorMessage(c));
    PQclear(r);
    return ok;
}

int fixture_end(char **conninfo)
{
    db_shutdown();
    free(*conninfo);
    *conninfo = NULL;
    return 0;
}
