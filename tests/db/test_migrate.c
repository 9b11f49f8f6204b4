#include "db/db.h"
#include "db/migrate.h"
#include "tests/common/testkit.h"
#include "util/embed.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int migration_count(void)
{
    int n = 0;
    for (const struct embedded_file *f = embedded_migrations; f->name; f++)
        n++;
    return n;
}

/* A one-row, one-column query on a fresh connection; returns the value as a number or -1. */
static long scalar(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQexec(c, sql);
    long v = (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) ? atol(PQgetvalue(r, 0, 0))
                                                                         : -1;
    PQclear(r);
    PQfinish(c);
    return v;
}

static void test_idempotent(void)
{
    char *ci = tk_new_database("migrate");
    db_init(ci);
    int n = migration_count();
    CU_ASSERT(n >= 1);
    CU_ASSERT_EQUAL(db_migrate(db_thread()), n);
    CU_ASSERT_EQUAL(db_migrate(db_thread()), 0);
    CU_ASSERT_EQUAL(db_migrate(db_thread()), 0);
    CU_ASSERT_EQUAL(scalar(ci, "SELECT count(*) FROM schema_migrations"), n);
    CU_ASSERT_EQUAL(scalar(ci, "SELECT count(*) FROM campaigns"), 0);
    db_shutdown();
    free(ci);
}

/* Several real `m44d --migrate` processes started together end in one correct schema. */
static void test_concurrent_migrators(void)
{
    char *ci = tk_new_database("migrate_race");
    char bin[512];
    snprintf(bin, sizeof bin, "%s/m44d", tk_env("M44_TEST_BIN"));
    enum { PROCS = 6 };
    pid_t pids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            int devnull = open("/dev/null", O_WRONLY);
            dup2(devnull, 2);
            execl(bin, bin, "--migrate", "--database", ci, (char *)NULL);
            _exit(127);
        }
    }
    for (int i = 0; i < PROCS; i++) {
        int status = -1;
        waitpid(pids[i], &status, 0);
        CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    int n = migration_count();
    CU_ASSERT_EQUAL(scalar(ci, "SELECT count(*) FROM schema_migrations"), n);
    CU_ASSERT_EQUAL(scalar(ci, "SELECT count(DISTINCT version) FROM schema_migrations"), n);
    /* Every table of the schema exists exactly once. */
    CU_ASSERT_EQUAL(scalar(ci, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND "
                               "tablename IN ('campaigns','seeds','battles','rolls',"
                               "'reserve_choices','effects','token_ledger','idempotency',"
                               "'event_log','schema_migrations')"),
                    10);
    free(ci);
}

static void test_migrate_flag_exit_status(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "'%s/m44d' --migrate --db-wait 0 --database 'host=/nonexistent dbname=x' "
             "2>/dev/null",
             tk_env("M44_TEST_BIN"));
    int st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    snprintf(cmd, sizeof cmd, "'%s/m44d' --threads 0 2>/dev/null", tk_env("M44_TEST_BIN"));
    st = system(cmd);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

void register_migrate_tests(void)
{
    CU_pSuite s = CU_add_suite("migrations", NULL, NULL);
    CU_add_test(s, "applying twice changes nothing", test_idempotent);
    CU_add_test(s, "concurrent migrators end in one schema", test_concurrent_migrators);
    CU_add_test(s, "--migrate exit status (1 no database, 2 bad config)",
                test_migrate_flag_exit_status);
}
