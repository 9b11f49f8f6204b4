/* The chat's outbox: which due messages a sender takes first. */
#include "db/store.h"
#include "tests/common/testkit.h"
#include "tests/db/fixture.h"

#include <stdlib.h>
#include <string.h>

static char *conninfo;
static const char *const ID = "6a1c3a4e-0000-4000-8000-0000000000b0";

static int suite_init(void)
{
    return (conninfo = fixture_campaign("outbox", ID)) ? 0 : 1;
}

static int suite_clean(void)
{
    return fixture_end(&conninfo);
}

/* A message tried before waits behind every due message not yet tried, however long it has
 * been due: a chat that keeps failing (or never answers) does not hold up the chats that work.
 * Each chat's messages still go one at a time, in order. */
static void test_untried_first(void)
{
    PGconn *c = PQconnectdb(conninfo);
    CU_ASSERT_FATAL(PQstatus(c) == CONNECTION_OK);
    CU_ASSERT_FATAL(fixture_sql(
        c, "INSERT INTO outbox (scope, url, kind, message, attempts, next_at) VALUES "
           "('00000000-0000-4000-8000-00000000000a', 'http://failing.example/', 'generic', '{}', "
           "3, now() - interval '1 hour'), "
           "('00000000-0000-4000-8000-00000000000b', 'http://works.example/1', 'generic', '{}', "
           "0, now() - interval '1 minute'), "
           "('00000000-0000-4000-8000-00000000000b', 'http://works.example/2', 'generic', '{}', "
           "0, now() - interval '1 minute')"));
    PGresult *r = db_outbox_claim(db_thread(), "1", "60");
    CU_ASSERT_EQUAL_FATAL(PQntuples(r), 1);
    CU_ASSERT_STRING_EQUAL(PQgetvalue(r, 0, 1), "http://works.example/1");
    CU_ASSERT_STRING_EQUAL(PQgetvalue(r, 0, 4), "1");
    PQclear(r);
    /* Then the one tried before; the working chat's second waits for its first. */
    r = db_outbox_claim(db_thread(), "5", "60");
    CU_ASSERT_EQUAL_FATAL(PQntuples(r), 1);
    CU_ASSERT_STRING_EQUAL(PQgetvalue(r, 0, 1), "http://failing.example/");
    CU_ASSERT_STRING_EQUAL(PQgetvalue(r, 0, 4), "4");
    PQclear(r);
    PQfinish(c);
}

void register_outbox_tests(void)
{
    CU_pSuite s = CU_add_suite("the chat's outbox", suite_init, suite_clean);
    CU_add_test(s, "messages not yet tried go first", test_untried_first);
}
