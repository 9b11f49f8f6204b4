#include "cmd/m44d/config.h"
#include "tests/common/testkit.h"

#include <stdlib.h>
#include <string.h>

/* A fake environment: "NAME=value" entries. */
static const char *const *fake_env;

static char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = fake_env; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return (char *)*e + n + 1;
    return NULL;
}

static enum config_status parse(struct config *cfg, const char *const *args, const char *const *env,
                                char *err, size_t errlen)
{
    char *argv[32] = {"m44d"};
    int argc = 1;
    for (const char *const *a = args; a && *a; a++)
        argv[argc++] = (char *)*a;
    fake_env = env;
    err[0] = '\0';
    return config_parse(cfg, argc, argv, fake_getenv, err, errlen);
}

static void test_defaults(void)
{
    struct config c;
    char err[256];
    CU_ASSERT_EQUAL(parse(&c, NULL, NULL, err, sizeof err), CONFIG_OK);
    CU_ASSERT_STRING_EQUAL(c.listen_host, "127.0.0.1");
    CU_ASSERT_EQUAL(c.listen_port, 8044);
    CU_ASSERT_EQUAL(c.max_body, 1L << 20);
    CU_ASSERT_EQUAL(c.threads, 4);
    CU_ASSERT_STRING_EQUAL(c.log_format, "text");
    CU_ASSERT_STRING_EQUAL(c.database, "");
    CU_ASSERT_FALSE(c.migrate);
}

struct good_case {
    const char *args[6];
    const char *env[4];
    const char *what; /* field checked */
    long want_num;
    const char *want_str;
};

static const struct good_case good[] = {
    {{"--listen", "0.0.0.0:80"}, {NULL}, "listen", 80, "0.0.0.0"},
    {{"--listen=[::1]:9000"}, {NULL}, "listen", 9000, "::1"},
    {{NULL}, {"M44_LISTEN=10.0.0.1:1234"}, "listen", 1234, "10.0.0.1"},
    {{"--listen", "127.0.0.1:1"}, {"M44_LISTEN=10.0.0.1:1234"}, "listen", 1, "127.0.0.1"},
    {{"--database", "postgresql:///x"}, {NULL}, "database", 0, "postgresql:///x"},
    {{NULL}, {"DATABASE_URL=host=/tmp dbname=y"}, "database", 0, "host=/tmp dbname=y"},
    {{"--threads", "16"}, {NULL}, "threads", 16, NULL},
    {{"--threads=1"}, {"M44_THREADS=9"}, "threads", 1, NULL},
    {{NULL}, {"M44_THREADS=9"}, "threads", 9, NULL},
    {{"--max-body", "2M"}, {NULL}, "max_body", 2L << 20, NULL},
    {{"--max-body", "4096"}, {NULL}, "max_body", 4096, NULL},
    {{"--max-body=64k"}, {NULL}, "max_body", 65536, NULL},
    {{"--log-format", "json"}, {NULL}, "log_format", 0, "json"},
    {{NULL}, {"M44_LOG_FORMAT=json"}, "log_format", 0, "json"},
    {{"--migrate"}, {NULL}, "migrate", 1, NULL},
    {{"--rulesets-dir", "/etc/m44d/rulesets"}, {NULL}, "rulesets_dir", 0, "/etc/m44d/rulesets"},
    {{NULL}, {"M44_THREADS="}, "threads", 4, NULL}, /* empty variable = unset */
};

static void test_good(void)
{
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct config c;
        char err[256];
        const struct good_case *g = &good[i];
        enum config_status st = parse(&c, g->args, g->env, err, sizeof err);
        CU_ASSERT_EQUAL_FATAL(st, CONFIG_OK);
        if (strcmp(g->what, "listen") == 0) {
            CU_ASSERT_EQUAL(c.listen_port, (unsigned)g->want_num);
            CU_ASSERT_STRING_EQUAL(c.listen_host, g->want_str);
        } else if (strcmp(g->what, "database") == 0) {
            CU_ASSERT_STRING_EQUAL(c.database, g->want_str);
        } else if (strcmp(g->what, "threads") == 0) {
            CU_ASSERT_EQUAL(c.threads, g->want_num);
        } else if (strcmp(g->what, "max_body") == 0) {
            CU_ASSERT_EQUAL(c.max_body, g->want_num);
        } else if (strcmp(g->what, "log_format") == 0) {
            CU_ASSERT_STRING_EQUAL(c.log_format, g->want_str);
        } else if (strcmp(g->what, "migrate") == 0) {
            CU_ASSERT_TRUE(c.migrate);
        } else if (strcmp(g->what, "rulesets_dir") == 0) {
            CU_ASSERT_STRING_EQUAL(c.rulesets_dir, g->want_str);
        } else {
            CU_FAIL("unknown field in test table");
        }
    }
}

struct bad_case {
    const char *args[4];
    const char *env[3];
    const char *must_name; /* the message must contain this */
};

static const struct bad_case bad[] = {
    {{"--nope"}, {NULL}, "--nope"},
    {{"listen"}, {NULL}, "listen"},
    {{"--threads", "0"}, {NULL}, "--threads"},
    {{"--heavy-queue", "0"}, {NULL}, "--heavy-queue"}, /* nothing could ever reach a worker */
    {{"--threads", "abc"}, {NULL}, "--threads"},
    {{"--threads", "-3"}, {NULL}, "--threads"},
    {{"--threads", "4x"}, {NULL}, "--threads"},
    {{"--threads"}, {NULL}, "--threads"},
    {{"--max-body", "1G"}, {NULL}, "--max-body"},
    {{"--max-body", "100"}, {NULL}, "--max-body"},
    {{"--max-body", "999999999999999999999"}, {NULL}, "--max-body"},
    {{"--listen", "localhost"}, {NULL}, "--listen"},
    {{"--listen", ":80"}, {NULL}, "--listen"},
    {{"--listen", "127.0.0.1:70000"}, {NULL}, "--listen"},
    {{"--listen", "127.0.0.1:0"}, {NULL}, "--listen"},
    {{"--log-format", "xml"}, {NULL}, "--log-format"},
    {{"--migrate=yes"}, {NULL}, "--migrate"},
    {{NULL}, {"M44_THREADS=many"}, "M44_THREADS"},
    {{NULL}, {"M44_LISTEN=nowhere"}, "M44_LISTEN"},
    {{NULL}, {"M44_LOG_FORMAT=yaml"}, "M44_LOG_FORMAT"},
    {{NULL}, {"M44_MAX_BODY=1T"}, "M44_MAX_BODY"},
};

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct config c;
        char err[256];
        CU_ASSERT_EQUAL(parse(&c, bad[i].args, bad[i].env, err, sizeof err), CONFIG_ERROR);
        if (!strstr(err, bad[i].must_name))
            fprintf(stderr, "\ncase %zu: message \"%s\" does not name %s\n", i, err,
                    bad[i].must_name);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].must_name));
    }
}

static void test_help_lists_every_option(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    config_usage(f);
    fclose(f);
    const char *must[] = {"--listen",     "M44_LISTEN", "127.0.0.1:8044", "--database",
                          "DATABASE_URL", "--threads",  "--max-body",     "--log-format",
                          "--migrate",    "--help",     "--version",      "--rulesets-dir"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(text, must[i]));
    free(text);
}

void register_config_tests(void)
{
    CU_pSuite s = CU_add_suite("config", NULL, NULL);
    CU_add_test(s, "defaults", test_defaults);
    CU_add_test(s, "good values: flags, env, precedence", test_good);
    CU_add_test(s, "bad values name the option", test_bad);
    CU_add_test(s, "help lists every option", test_help_lists_every_option);
}
