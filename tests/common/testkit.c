#include "tests/common/testkit.h"

#include "tests/common/contract.h"

#include "util/log.h"

#include <CUnit/Basic.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int tk_run(const char *program, const tk_register_fn *registers, int n)
{
    log_set_level(getenv("M44_TEST_VERBOSE") ? LOG_DEBUG : LOG_ERROR);
    /* A write to a connection the server has closed (it refused a head too big, say) is an
     * error to check, not the end of the test program. */
    signal(SIGPIPE, SIG_IGN);
    /* Unbuffered, so that the log tests/run.sh keeps names the test running when the program
     * is stopped (a test past the suite's time limit), and stays in order with stderr. */
    setvbuf(stdout, NULL, _IONBF, 0);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    for (int i = 0; i < n; i++)
        registers[i]();
    /* After every test: mismatches with the API contract seen on other threads fail it. */
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
        if (!s->pTearDownFunc)
            s->pTearDownFunc = contract_flush;
    unsigned registered = CU_get_registry()->uiNumberOfTests;
    /* M44_TEST_ONLY=TEXT runs only the suites whose name contains TEXT (while working on one;
     * docs/TESTING.md). */
    const char *only = getenv("M44_TEST_ONLY");
    if (only && *only) {
        CU_set_fail_on_inactive(CU_FALSE);
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
            if (!strstr(s->pName, only)) {
                CU_set_suite_active(s, CU_FALSE);
                registered -= s->uiNumberOfTests;
            }
        printf("%s: only the suites whose name contains \"%s\"\n", program, only);
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    const CU_RunSummary *sum = CU_get_run_summary();
    unsigned run = sum->nTestsRun, failed_tests = sum->nTestsFailed;
    unsigned failures = sum->nAssertsFailed, records = sum->nFailureRecords;
    unsigned suites_failed = sum->nSuitesFailed;
    /* A suite whose set-up or tear-down failed leaves a failure record but no failed
     * assertion, and the tests of a suite that could not be set up never run: both fail. */
    unsigned not_run = registered > run ? registered - run : 0;
    CU_cleanup_registry();
    printf("\n%s: %u tests run, %u failed (%u failed assertions)", program, run, failed_tests,
           failures);
    if (suites_failed || records > failures || not_run)
        printf("; %u suite set-up or tear-down failure(s), %u test(s) never run", suites_failed,
               not_run);
    printf("\n");
    bool bad = failures || failed_tests || records || suites_failed || not_run || run == 0;
    return bad ? 1 : 0;
}

const char *tk_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        fprintf(stderr, "%s is not set: run the tests through tests/run.sh (make test)\n", name);
        exit(2);
    }
    return v;
}

char *tk_conninfo(const char *dbname)
{
    const char *host = tk_env("M44_TEST_PGHOST");
    size_t len = strlen(host) + strlen(dbname) + 64;
    char *s = malloc(len);
    snprintf(s, len, "host='%s' port=5432 user=m44 dbname=%s", host, dbname);
    return s;
}

char *tk_new_database(const char *prefix)
{
    static int counter;
    char name[64];
    snprintf(name, sizeof name, "%s_%d_%d", prefix, (int)getpid(), ++counter);
    char *admin = tk_conninfo("postgres");
    PGconn *c = PQconnectdb(admin);
    free(admin);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "cannot reach the test cluster: %s", PQerrorMessage(c));
        exit(2);
    }
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE \"%s\"", name);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        fprintf(stderr, "CREATE DATABASE failed: %s", PQerrorMessage(c));
        exit(2);
    }
    PQclear(r);
    PQfinish(c);
    return tk_conninfo(name);
}

bool tk_pg(const char *action)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s/scripts/pg.sh' %s '%s' --fast", tk_env("M44_ROOT"), action,
             tk_env("M44_TEST_PGDIR"));
    return system(cmd) == 0;
}

const char *tk_out_path(const char *name, char *buf, size_t len)
{
    const char *root = tk_env("M44_ROOT");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/out", root);
    mkdir(dir, 0755);
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

char *tk_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
    if (s)
        s[got] = '\0';
    fclose(f);
    return s;
}

void tk_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

const char *const tk_rulesets[] = {"standard",
                                   "island-hoppers",
                                   "bicycle-blitzkrieg",
                                   "fall-of-poland",
                                   "break-through-normandy",
                                   "simplified",
                                   "cb1-flanking-caen",
                                   "cb1-the-breakout",
                                   "cb1-taking-caen",
                                   "cb1-early-falaise",
                                   "cb1-falaise"};
const int tk_nrulesets = (int)(sizeof tk_rulesets / sizeof tk_rulesets[0]);
