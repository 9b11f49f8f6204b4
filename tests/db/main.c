/* Database tests against the throwaway PostgreSQL cluster started by tests/run.sh. */
#include "tests/common/testkit.h"

void register_migrate_tests(void);
void register_tx_tests(void);
void register_lock_tests(void);
void register_bench_sql_tests(void);
void register_schema_tests(void);
void register_outbox_tests(void);
void register_log_scale_tests(void);

int main(void)
{
    const tk_register_fn suites[] = {register_migrate_tests,  register_tx_tests,
                                     register_lock_tests,     register_bench_sql_tests,
                                     register_schema_tests,   register_outbox_tests,
                                     register_log_scale_tests};
    return tk_run("db", suites, (int)(sizeof suites / sizeof suites[0]));
}
