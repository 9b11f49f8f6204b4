/*
 * The test runner itself: a suite whose set-up or tear-down fails must fail the run, even when
 * no assertion failed. Each case runs this test program again (CUnit allows one run per
 * process), as `unit --testkit-child CASE`, and checks its exit status.
 */
#include "tests/common/testkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails(void)
{
    return 1;
}

static int passes(void)
{
    return 0;
}

static void trivial(void)
{
    CU_ASSERT(1);
}

static void register_init_fails(void)
{
    CU_pSuite s = CU_add_suite("set-up fails", fails, passes);
    CU_add_test(s, "never runs", trivial);
    CU_add_test(s, "never runs either", trivial);
}

static void register_clean_fails(void)
{
    CU_pSuite s = CU_add_suite("tear-down fails", passes, fails);
    CU_add_test(s, "runs and passes", trivial);
}

static void register_good(void)
{
    CU_pSuite s = CU_add_suite("all good", passes, passes);
    CU_add_test(s, "runs and passes", trivial);
}

int testkit_child(const char *which)
{
    const tk_register_fn init_fails[] = {register_init_fails, register_good};
    const tk_register_fn clean_fails[] = {register_clean_fails, register_good};
    const tk_register_fn good[] = {register_good};
    if (strcmp(which, "init") == 0)
        return tk_run("child", init_fails, 2);
    if (strcmp(which, "clean") == 0)
        return tk_run("child", clean_fails, 2);
    return tk_run("child", good, 1);
}

/* The exit status of `unit --testkit-child which` (its output discarded), or -1. */
static int child_run(const char *which)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(3);
        execl("/proc/self/exe", "unit", "--testkit-child", which, (char *)NULL);
        _exit(127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static void test_setup_failure_fails_the_run(void)
{
    CU_ASSERT_EQUAL(child_run("init"), 1);
}

static void test_teardown_failure_fails_the_run(void)
{
    CU_ASSERT_EQUAL(child_run("clean"), 1);
}

static void test_passing_run_passes(void)
{
    CU_ASSERT_EQUAL(child_run("good"), 0);
}

void register_testkit_tests(void)
{
    CU_pSuite s = CU_add_suite("test runner", NULL, NULL);
    CU_add_test(s, "a suite whose set-up fails fails the run", test_setup_failure_fails_the_run);
    CU_add_test(s, "a suite whose tear-down fails fails the run",
                test_teardown_failure_fails_the_run);
    CU_add_test(s, "a run where everything passes passes", test_passing_run_passes);
}
