/* util/log.h with its writer thread: every line arrives whole and in order, a warning is written
 * before log_msg returns, the writer writes a line on its own, and log_stop leaves nothing
 * behind. Each test sends stderr to a file of its own and reads it back. */
#include "tests/common/testkit.h"
#include "util/log.h"

#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define THREADS 4
#define LINES   4000 /* per thread */

static char path[256];
static int saved_stderr = -1;

static pthread_t reader;
static int reader_in = -1;

/* Copies the pipe to the file, a little at a time: stderr's reader is slow, as a busy journal
 * can be, so that a write of the log's writer takes a while. */
static void *read_slowly(void *arg)
{
    int out = open(path, O_WRONLY | O_APPEND);
    (void)arg;
    char buf[2048];
    ssize_t n;
    while ((n = read(reader_in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)n) != n)
            break;
        usleep(100);
    }
    close(out);
    close(reader_in);
    return NULL;
}

/* stderr goes to a new, empty file; `slow`: through a pipe read slowly. */
static void capture(const char *name, bool slow)
{
    char file[64];
    snprintf(file, sizeof file, "unit-log-%s.txt", name);
    tk_out_path(file, path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    if (slow) {
        int p[2];
        CU_ASSERT_FATAL(pipe(p) == 0);
        close(fd);
        fd = p[1];
        reader_in = p[0];
        pthread_create(&reader, NULL, read_slowly, NULL);
    }
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    log_set_level(LOG_INFO); /* the test runner keeps only errors */
}

static void release(void)
{
    log_set_level(getenv("M44_TEST_VERBOSE") ? LOG_DEBUG : LOG_ERROR); /* as tk_run sets it */
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO); /* the pipe's last writer: its reader then ends */
    close(saved_stderr);
    if (reader_in >= 0) {
        pthread_join(reader, NULL);
        reader_in = -1;
    }
}

static char *written(void)
{
    char *s = tk_slurp(path);
    return s ? s : strdup("");
}

/* Waits up to 5 s for `needle` to be in the file. */
static bool shows(const char *needle)
{
    for (int i = 0; i < 500; i++) {
        char *s = written();
        bool found = strstr(s, needle) != NULL;
        free(s);
        if (found)
            return true;
        tk_sleep_ms(10);
    }
    return false;
}

/* Request lines, and every 50th line a warning (written by this thread at once, after every
 * line waiting, the batch the writer is writing included). */
static void *log_lines(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < LINES; i++) {
        char p[64];
        snprintf(p, sizeof p, "/t%d/%d", t, i);
        if (i % 50 == 49)
            log_msg(LOG_WARN, "http", "127.0.0.1 GET %s 200", p);
        else
            log_request("127.0.0.1", "GET", p, "/t", 200, 0.5);
    }
    return NULL;
}

static bool i_is_warning(const char *line)
{
    return strstr(line, " warn  http: ") != NULL;
}

/* One round; the test runs ten, as a warning overtaking a batch is a race. */
static void lines_whole_and_in_order(void)
{
    capture("order", true);
    unsigned long before = log_writes();
    CU_ASSERT_TRUE_FATAL(log_start());
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, log_lines, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    log_stop();
    release();
    char *s = written();
    int next[THREADS] = {0}, lines = 0, bad = 0;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        int t, i;
        char tail[16];
        lines++;
        const char *at = strstr(line, " http: 127.0.0.1 GET /t");
        bool warning = i_is_warning(line);
        if (!at || sscanf(at, " http: 127.0.0.1 GET /t%d/%d %15s", &t, &i, tail) != 3 ||
            (i % 50 == 49) != warning || t < 0 || t >= THREADS || strcmp(tail, "200") != 0 ||
            i != next[t]) {
            bad++;
            continue;
        }
        next[t]++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(lines, THREADS * LINES);
    for (int t = 0; t < THREADS; t++)
        CU_ASSERT_EQUAL(next[t], LINES);
    /* Gathered: many lines to a write. Who wrote them (the writer, a warning's caller, a full
     * buffer's caller) depends on how the threads ran: a warning writes every line waiting, so
     * the writer may find nothing left to write. That the writer writes is shown below. */
    unsigned long writes = log_writes() - before;
    CU_ASSERT(writes >= THREADS * LINES / 50); /* each warning a write of its own, at once */
    CU_ASSERT(writes < THREADS * LINES / 2);
    free(s);
}

static void test_lines_whole_and_in_order(void)
{
    for (int round = 0; round < 10; round++)
        lines_whole_and_in_order();
}

static void test_warning_written_at_once(void)
{
    capture("warning", false);
    CU_ASSERT_TRUE_FATAL(log_start());
    log_msg(LOG_INFO, "test", "an info line before the warning");
    log_msg(LOG_WARN, "test", "the warning");
    char *s = written(); /* before anything else could have written it */
    const char *info = strstr(s, "info  test: an info line before the warning\n");
    const char *warn = strstr(s, "warn  test: the warning\n");
    CU_ASSERT_PTR_NOT_NULL(info);
    CU_ASSERT_PTR_NOT_NULL(warn);
    CU_ASSERT(info && warn && info < warn);
    free(s);
    log_stop();
    release();
}

static void test_writer_writes_on_its_own(void)
{
    capture("alone", false);
    CU_ASSERT_TRUE_FATAL(log_start());
    log_msg(LOG_INFO, "test", "a first line");
    CU_ASSERT_TRUE(shows("info  test: a first line\n"));
    tk_sleep_ms(50);
    /* The writer, done with the first line, now waits: the next line must wake it. */
    log_msg(LOG_INFO, "test", "a line nobody flushes");
    CU_ASSERT_TRUE(shows("info  test: a line nobody flushes\n"));
    log_stop();
    /* Without the writer, the caller writes. */
    log_msg(LOG_INFO, "test", "a line after the stop");
    char *s = written();
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "info  test: a line after the stop\n"));
    free(s);
    release();
}

static void test_long_line_cut_whole(void)
{
    capture("long", false);
    CU_ASSERT_TRUE_FATAL(log_start());
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char component[300]; /* with the message (cut to 1023 bytes), past the line's 1200 */
    memset(component, 'c', sizeof component - 1);
    component[sizeof component - 1] = '\0';
    log_msg(LOG_INFO, component, "%s", big);
    log_msg(LOG_INFO, "test", "the next line");
    log_stop();
    release();
    char *s = written();
    char *nl = strchr(s, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
    /* The first line (time, level, 299 c's, 1023 x's) is cut to its 1200-byte buffer, the
     * NUL's place included, and ended by a newline of its own. */
    const char *x = strstr(s, "ccc: xxx");
    CU_ASSERT(x && x < nl);
    CU_ASSERT_EQUAL(nl - s, 1199);
    CU_ASSERT_PTR_NOT_NULL(strstr(nl + 1, " info  test: the next line\n"));
    CU_ASSERT_PTR_NULL(strstr(nl, "xx"));
    free(s);
}

/* The request line, as the format in util/log.h's users and the README show it. */
static void test_request_line(void)
{
    capture("request", false);
    log_request("192.0.2.1", "POST",
                "/a\x01"
                "b",
                "/a", 201, 12.25);
    log_request("", "GET", "/", "/", 404, 0.0004);
    log_request("198.51.100.2", "GET", "/x", "/x", 200, 1500);
    release();
    char *s = written();
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " info  http: 192.0.2.1 POST /a?b 201 12.250ms\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " info  http: - GET / 404 0.000ms\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " info  http: 198.51.100.2 GET /x 200 1500.000ms\n"));
    /* Each starts with the time to the millisecond, in UTC: 2026-11-24T08:24:48.731Z */
    int lines = 0;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        int y, mo, d, h, mi, sec, ms;
        char z = 0;
        lines++;
        CU_ASSERT_EQUAL(
            sscanf(line, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &sec, &ms, &z), 8);
        CU_ASSERT_EQUAL(z, 'Z');
        CU_ASSERT_EQUAL(line[23], 'Z');
    }
    CU_ASSERT_EQUAL(lines, 3);
    free(s);
}

/* A message quoting a client's path (a warning of a stalled body, a 5xx) is one line whatever
 * the path holds: a line break in it never starts a line of its own (a forged one), and in JSON
 * a path that is not UTF-8 does not lose the line. A database's error ending in a line break
 * ends the message. */
static void test_quoted_input_one_line(void)
{
    capture("quoted", false);
    log_msg(LOG_WARN, "http", "closing connection: POST %s",
            "/nope\n2026-11-25T00:00:00.000Z error main: INJECTED\r\n");
    log_msg(LOG_WARN, "db", "database not ready (%s); retrying", "FATAL:  no such role\n");
    log_set_format(LOG_JSON);
    log_msg(LOG_WARN, "http", "closing connection: GET %s", "/\xff\xfe-probe\n");
    log_request("192.0.2.1", "GET", "/\xff\xfe-probe", "-", 404, 1);
    log_set_format(LOG_TEXT);
    release();
    char *s = written();
    CU_ASSERT_PTR_NOT_NULL(
        strstr(s, " warn  http: closing connection: POST /nope?2026-11-25T00:00:00.000Z error "
                  "main: INJECTED\n"));
    CU_ASSERT_PTR_NULL(strstr(s, "\n2026-11-25T00:00:00.000Z"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " warn  db: database not ready (FATAL:  no such role?); "));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"msg\":\"closing connection: GET /?\?-probe\"}\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"path\":\"/?\?-probe\""));
    int lines = 0;
    for (const char *p = s; (p = strchr(p, '\n')); p++)
        lines++;
    CU_ASSERT_EQUAL(lines, 4);
    free(s);
}

/* Under systemd, stderr is the journal's stream, named by JOURNAL_STREAM ("device:inode"). */
static void test_journal_priorities(void)
{
    capture("journal", false);
    struct stat st;
    CU_ASSERT_FATAL(fstat(STDERR_FILENO, &st) == 0);
    char stream[64];
    snprintf(stream, sizeof stream, "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    setenv("JOURNAL_STREAM", stream, 1);
    log_detect_journal();
    CU_ASSERT_TRUE(log_start());
    log_request("192.0.2.1", "GET", "/j", "/j", 200, 1);
    log_msg(LOG_INFO, "test", "news");
    log_msg(LOG_WARN, "test", "a warning");
    log_msg(LOG_ERROR, "test", "an error");
    log_stop();
    /* Another stream named: not the journal's, no priorities. */
    setenv("JOURNAL_STREAM", "1:2", 1);
    log_detect_journal();
    log_msg(LOG_WARN, "test", "a warning elsewhere");
    unsetenv("JOURNAL_STREAM");
    log_detect_journal();
    release();
    char *s = written();
    CU_ASSERT_EQUAL(strncmp(s, "<6>", 3), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\n<6>2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " info  test: news\n<4>2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " warn  test: a warning\n<3>2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " error test: an error\n2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, " warn  test: a warning elsewhere\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "<6>2") && strstr(s, " GET /j 200 1.000ms\n"));
    free(s);
}

void register_log_tests(void)
{
    CU_pSuite s = CU_add_suite("log lines written by their own thread", NULL, NULL);
    CU_add_test(s, "lines from four threads arrive whole, each thread's in order, gathered",
                test_lines_whole_and_in_order);
    CU_add_test(s, "a warning is written before log_msg returns, after the lines before it",
                test_warning_written_at_once);
    CU_add_test(s, "the writer writes a line without being asked; after log_stop the caller does",
                test_writer_writes_on_its_own);
    CU_add_test(s, "a line cut to its buffer still ends, and the next line starts whole",
                test_long_line_cut_whole);
    CU_add_test(s, "a request's line: time, client, method, path, status, milliseconds",
                test_request_line);
    CU_add_test(s, "a message quoting a client's path is one line, in text and in JSON",
                test_quoted_input_one_line);
    CU_add_test(s, "to the journal, each line starts with its priority; elsewhere not",
                test_journal_priorities);
}
