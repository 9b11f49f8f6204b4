/* The daemon's own endpoints, limits, logging and shutdown. */
#include "tests/common/daemon.h"
#include "tests/common/http.h"
#include "tests/common/testkit.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct daemon d;
static char *conninfo;

static int suite_init(void)
{
    conninfo = tk_new_database("api_health");
    /* One worker thread: every request uses the same database connection, so the readyz
     * test below sees that connection lost and re-established. */
    const char *args[] = {"--threads", "1", NULL};
    return daemon_start(&d, conninfo, args) ? 0 : 1;
}

static int suite_clean(void)
{
    int st = daemon_stop(&d, SIGTERM, 30);
    free(conninfo);
    return st == 0 ? 0 : 1;
}

static struct http_resp *get(const char *path)
{
    char url[256];
    return http_do("GET", daemon_url(&d, path, url, sizeof url), NULL, NULL);
}

static void assert_problem(const struct http_resp *r, long status, const char *code)
{
    char ct[128];
    CU_ASSERT_EQUAL(r->status, status);
    CU_ASSERT_PTR_NOT_NULL_FATAL(http_header(r, "Content-Type", ct, sizeof ct));
    CU_ASSERT_STRING_EQUAL(ct, "application/problem+json");
    CU_ASSERT_EQUAL(http_int(r, "status"), status);
    CU_ASSERT_STRING_EQUAL(http_str(r, "code"), code);
    CU_ASSERT(strlen(http_str(r, "title")) > 0);
    CU_ASSERT(strlen(http_str(r, "detail")) > 0);
    char type[128];
    snprintf(type, sizeof type, "urn:m44d:problem:%s", code);
    CU_ASSERT_STRING_EQUAL(http_str(r, "type"), type);
}

static void test_healthz(void)
{
    struct http_resp *r = get("/healthz");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "status"), "ok");
    http_free(r);
}

static long readyz_status(void)
{
    struct http_resp *r = get("/readyz");
    long st = r->status;
    if (st == 503) {
        assert_problem(r, 503, "database-unavailable");
        /* PostgreSQL's own words (its socket's path, the role) stay in the log. */
        const char *detail = http_str(r, "detail");
        CU_ASSERT_STRING_EQUAL(detail ? detail : "",
                               "The database does not answer (the server's log says why).");
    }
    http_free(r);
    return st;
}

static void test_readyz_follows_the_database(void)
{
    CU_ASSERT_EQUAL(readyz_status(), 200);
    CU_ASSERT_FATAL(tk_pg("stop"));
    CU_ASSERT_EQUAL(readyz_status(), 503);
    CU_ASSERT_EQUAL(readyz_status(), 503);
    char *log = tk_slurp(d.log);
    CU_ASSERT_PTR_NOT_NULL(log ? strstr(log, "readyz: the database does not answer: ") : NULL);
    free(log);
    struct http_resp *h = get("/healthz");
    CU_ASSERT_EQUAL(h->status, 200); /* the process itself is fine */
    http_free(h);
    CU_ASSERT_FATAL(tk_pg("start"));
    long st = 0;
    for (int i = 0; i < 50 && st != 200; i++) {
        st = readyz_status();
        if (st != 200)
            tk_sleep_ms(100);
    }
    CU_ASSERT_EQUAL(st, 200);
}

static void test_unknown_path_404(void)
{
    struct http_resp *r = get("/no/such/thing");
    assert_problem(r, 404, "not-found");
    http_free(r);
    r = get("/api/v1/nothing");
    assert_problem(r, 404, "not-found");
    http_free(r);
}

/* A browser's page at an address that is nothing gets the dashboard, which says so in words, with
 * 404; a program asking for JSON, and any path under /api/, gets the problem. */
static void test_unknown_page_for_a_browser(void)
{
    const char *html[] = {"Accept: text/html,application/xhtml+xml,*/*;q=0.8", NULL};
    char url[256], type[80];
    struct http_resp *r = http_do("GET", daemon_url(&d, "/campaigns", url, sizeof url), NULL, html);
    CU_ASSERT_EQUAL(r->status, 404);
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "Content-Type", type, sizeof type));
    CU_ASSERT_PTR_NOT_NULL(strstr(type, "text/html"));
    CU_ASSERT_PTR_NOT_NULL(r->body && strstr(r->body, "<html"));
    http_free(r);
    r = http_do("GET", daemon_url(&d, "/api/v1/nothing", url, sizeof url), NULL, html);
    assert_problem(r, 404, "not-found");
    http_free(r);
    r = http_do("POST", daemon_url(&d, "/campaigns", url, sizeof url), "{}", html);
    assert_problem(r, 404, "not-found");
    http_free(r);
}

/* A wrong method is 405 with what the path takes; a path that spells out a route is that route,
 * never an id (GET on the import is not a campaign called "import"). */
static void test_wrong_method_405(void)
{
    static const struct {
        const char *method, *path, *allow;
    } cases[] = {
        {"DELETE", "/healthz", "GET, HEAD"},
        {"GET", "/api/v1/campaigns/import", "POST"},
        {"GET", "/api/v1/grand-campaigns/import", "POST"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char url[256], allow[64] = "";
        struct http_resp *r =
            http_do(cases[i].method, daemon_url(&d, cases[i].path, url, sizeof url), NULL, NULL);
        assert_problem(r, 405, "method-not-allowed");
        CU_ASSERT_PTR_NOT_NULL(http_header(r, "Allow", allow, sizeof allow));
        CU_ASSERT_STRING_EQUAL(allow, cases[i].allow);
        http_free(r);
    }
}

static void test_body_over_cap_with_length(void)
{
    size_t n = 2u << 20;
    char *big = malloc(n + 1);
    memset(big, 'x', n);
    big[n] = '\0';
    char url[256];
    struct http_resp *r = http_do("POST", daemon_url(&d, "/healthz", url, sizeof url), big, NULL);
    assert_problem(r, 413, "body-too-large");
    http_free(r);
    free(big);
}

/* A body announced over the cap is answered before it is sent when the client waits for "100
 * Continue", or when it is more than the daemon would read and throw away (16 MiB). */
static void test_body_over_cap_answered_at_once(void)
{
    static const char *const heads[] = {
        "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 2097152\r\nExpect: 100-continue\r\n\r\n",
        "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 67108864\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        int fd = tcp_connect(d.port);
        CU_ASSERT_FATAL(fd >= 0);
        CU_ASSERT(write(fd, heads[i], strlen(heads[i])) == (ssize_t)strlen(heads[i]));
        char resp[4096];
        tcp_read_all(fd, resp, sizeof resp, 10000); /* no byte of the body sent */
        close(fd);
        CU_ASSERT_PTR_NOT_NULL(strstr(resp, "HTTP/1.1 413"));
        CU_ASSERT_PTR_NULL(strstr(resp, "100 Continue"));
        CU_ASSERT_PTR_NOT_NULL(strstr(resp, "body-too-large"));
    }
}

/* Chunked upload without Content-Length: the cap is enforced while streaming. */
static void test_body_over_cap_streamed(void)
{
    int fd = tcp_connect(d.port);
    CU_ASSERT_FATAL(fd >= 0);
    const char *head = "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                       "Content-Type: application/json\r\n\r\n";
    CU_ASSERT(write(fd, head, strlen(head)) == (ssize_t)strlen(head));
    char chunk[64 * 1024 + 16];
    int hl = snprintf(chunk, sizeof chunk, "%x\r\n", 64 * 1024);
    memset(chunk + hl, 'y', 64 * 1024);
    memcpy(chunk + hl + 64 * 1024, "\r\n", 2);
    size_t clen = (size_t)hl + 64 * 1024 + 2;
    for (int i = 0; i < 32; i++) /* 2 MiB */
        if (write(fd, chunk, clen) != (ssize_t)clen)
            break;
    CU_ASSERT(write(fd, "0\r\n\r\n", 5) == 5);
    char resp[4096];
    tcp_read_all(fd, resp, sizeof resp, 5000);
    close(fd);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp, "HTTP/1.1 413"));
    CU_ASSERT_PTR_NOT_NULL(strstr(resp, "body-too-large"));
}

static void test_metrics(void)
{
    struct http_resp *r = get("/healthz");
    http_free(r);
    /* The /healthz request leaves the gauge when libmicrohttpd reports it complete, which can
     * come a moment after its reply, on another HTTP thread: wait for it (a leak never does). */
    r = get("/metrics");
    for (int i = 0; i < 50 && !strstr(r->body, "m44d_http_requests_in_flight 1\n"); i++) {
        http_free(r);
        tk_sleep_ms(100);
        r = get("/metrics");
    }
    CU_ASSERT_EQUAL(r->status, 200);
    char ct[128];
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "Content-Type", ct, sizeof ct));
    CU_ASSERT_PTR_NOT_NULL(strstr(ct, "text/plain"));
    const char *must[] = {
        "m44d_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} ",
        "m44d_http_requests_total{method=\"\",route=\"unmatched\",status=\"404\"} ",
        "m44d_http_request_duration_seconds_bucket{le=\"+Inf\"} ",
        "m44d_http_request_duration_seconds_count ",
        "m44d_http_requests_in_flight 1\n", /* this request */
        "m44d_db_errors_total ",
        "m44d_db_reconnects_total ",
        "m44d_db_transactions_run_again_total{cause=\"moved_on\"} ",
        "m44d_db_transactions_run_again_total{cause=\"deadlock\"} ",
    };
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
        if (!strstr(r->body, must[i]))
            fprintf(stderr, "\nmissing in /metrics: %s\n", must[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(r->body, must[i]));
    }
    /* /readyz was answered 503 while PostgreSQL was down, and the daemon reconnected. */
    CU_ASSERT_PTR_NOT_NULL(strstr(r->body, "route=\"/readyz\",status=\"503\"}"));
    const char *rc = strstr(r->body, "\nm44d_db_reconnects_total ");
    CU_ASSERT(rc && atol(rc + strlen("\nm44d_db_reconnects_total ")) >= 1);
    http_free(r);
}

/* A daemon's log; "" when it cannot be read. */
static char *slurp(const char *path)
{
    char *s = tk_slurp(path);
    return s ? s : strdup("");
}

static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(s, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static void test_request_log_lines(void)
{
    /* Request lines are written by the log's own thread, within moments: this request's is
     * one more /healthz line than the log had before it, once the lines of the requests
     * before it were all written (the count stays the same for 200 ms). */
    char *log = slurp(d.log);
    int before = count_of(log, "http: 127.0.0.1 GET /healthz 200 ");
    for (int i = 0, still = 0; i < 100 && still < 4; i++) {
        free(log);
        tk_sleep_ms(50);
        log = slurp(d.log);
        int now = count_of(log, "http: 127.0.0.1 GET /healthz 200 ");
        still = now == before ? still + 1 : 0;
        before = now;
    }
    struct http_resp *r = get("/healthz?probe=1");
    http_free(r);
    for (int i = 0; i < 100 && count_of(log, "http: 127.0.0.1 GET /healthz 200 ") == before; i++) {
        free(log);
        tk_sleep_ms(50);
        log = slurp(d.log);
    }
    CU_ASSERT_EQUAL(count_of(log, "http: 127.0.0.1 GET /healthz 200 "), before + 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "http: 127.0.0.1 GET /healthz 200 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "http: 127.0.0.1 GET /no/such/thing 404 "));
    CU_ASSERT_PTR_NULL(strstr(log, "probe=1")); /* query strings (keys!) are never logged */
    /* The connection PostgreSQL's restart killed was logged with its reason. */
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "closing database connection: connection lost"));
    free(log);
}

static void test_json_log_format(void)
{
    struct daemon j;
    const char *args[] = {"--log-format", "json", NULL};
    CU_ASSERT_FATAL(daemon_start(&j, conninfo, args));
    char url[256];
    struct http_resp *r = http_do("GET", daemon_url(&j, "/healthz", url, sizeof url), NULL, NULL);
    http_free(r);
    CU_ASSERT_EQUAL(daemon_stop(&j, SIGTERM, 30), 0);
    char *log = slurp(j.log);
    int lines = 0, requests = 0;
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *o = json_loads(line, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL(o);
        lines++;
        const char *path = json_string_value(json_object_get(o, "path"));
        if (path && strcmp(path, "/healthz") == 0) {
            requests++;
            CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "method")), "GET");
            CU_ASSERT_EQUAL(json_integer_value(json_object_get(o, "status")), 200);
            CU_ASSERT(json_is_real(json_object_get(o, "duration_ms")));
        }
        json_decref(o);
    }
    CU_ASSERT(lines >= 3);
    CU_ASSERT(requests >= 1);
    free(log);
}

/* The first line of `path` (a /proc "comm" file: a thread's name) into `buf`; "" if none. */
static const char *first_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f && fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/* The number of threads of process `pid` named `name`. */
static int threads_named(pid_t pid, const char *name)
{
    char dir_path[64];
    snprintf(dir_path, sizeof dir_path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(dir_path);
    int n = 0;
    for (struct dirent *e; dir && (e = readdir(dir));) {
        char path[384], comm[64];
        snprintf(path, sizeof path, "%s/%s/comm", dir_path, e->d_name);
        n += e->d_name[0] != '.' && strcmp(first_line(path, comm, sizeof comm), name) == 0;
    }
    if (dir)
        closedir(dir);
    return n;
}

/* Every thread's name, for a count that came out wrong. */
static void print_threads(pid_t pid)
{
    char dir_path[64];
    snprintf(dir_path, sizeof dir_path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(dir_path);
    fprintf(stderr, "\nthreads:");
    for (struct dirent *e; dir && (e = readdir(dir));) {
        char path[384], comm[64];
        snprintf(path, sizeof path, "%s/%s/comm", dir_path, e->d_name);
        if (e->d_name[0] != '.')
            fprintf(stderr, " %s", first_line(path, comm, sizeof comm));
    }
    fprintf(stderr, "\n");
    if (dir)
        closedir(dir);
}

/* --http-threads sizes libmicrohttpd's pool, --threads the database workers: not each other. */
static void test_thread_options(void)
{
    struct daemon t;
    const char *args[] = {"--http-threads", "3", "--threads", "5", NULL};
    CU_ASSERT_FATAL(daemon_start(&t, conninfo, args));
    /* Each thread names itself once it runs, which under valgrind can be after m44d answers
     * its first request (libmicrohttpd's first worker answers while the others are still being
     * made): wait until only the main thread has the process's name and every pool is whole. */
    char path[64], main_name[64]; /* "m44d", or valgrind's under valgrind */
    snprintf(path, sizeof path, "/proc/%d/comm", (int)t.pid);
    first_line(path, main_name, sizeof main_name);
    CU_ASSERT_FATAL(main_name[0] != '\0');
    for (int i = 0;
         i < 200 &&
         (threads_named(t.pid, main_name) > 1 || threads_named(t.pid, "MHD-worker") < 3 ||
          threads_named(t.pid, "m44d-db") < 5 || threads_named(t.pid, "m44d-chat") < 4);
         i++)
        tk_sleep_ms(100);
    CU_ASSERT_EQUAL(threads_named(t.pid, main_name), 1);
    CU_ASSERT_EQUAL(threads_named(t.pid, "MHD-worker"), 3);
    CU_ASSERT_EQUAL(threads_named(t.pid, "m44d-db"), 5);
    CU_ASSERT_EQUAL(threads_named(t.pid, "m44d-versions"), 1);
    CU_ASSERT_EQUAL(threads_named(t.pid, "m44d-waiters"), 1);
    CU_ASSERT_EQUAL(threads_named(t.pid, "m44d-sweeper"), 1);
    CU_ASSERT_EQUAL(threads_named(t.pid, "m44d-chat"), 4); /* --chat-workers */
    if (threads_named(t.pid, "MHD-worker") != 3)
        print_threads(t.pid);
    CU_ASSERT_EQUAL(daemon_stop(&t, SIGTERM, 30), 0);
}

/*
 * SIGTERM while a request is in flight: the daemon stops accepting, the request completes,
 * and the exit status is 0.
 */
static void test_sigterm_drains(void)
{
    struct daemon t;
    CU_ASSERT_FATAL(daemon_start(&t, conninfo, NULL));
    int fd = tcp_connect(t.port);
    CU_ASSERT_FATAL(fd >= 0);
    const char *body = "{\"name\":\"drained\",\"ruleset\":\"standard\"}";
    char head[256];
    snprintf(head, sizeof head,
             "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n",
             strlen(body));
    CU_ASSERT(write(fd, head, strlen(head)) == (ssize_t)strlen(head));
    CU_ASSERT(write(fd, body, 5) == 5); /* part of the body: the request is in flight */
    /* ... once the daemon has taken it (a loaded machine may not have accepted it yet, and a
     * connection still in the listen queue is dropped with the socket): /metrics counts it
     * besides itself. */
    bool held = false;
    for (int i = 0; i < 100 && !held; i++) {
        char url[256];
        struct http_resp *m =
            http_do("GET", daemon_url(&t, "/metrics", url, sizeof url), NULL, NULL);
        held = strstr(m->body, "m44d_http_requests_in_flight 2\n") != NULL;
        http_free(m);
        if (!held)
            tk_sleep_ms(100);
    }
    CU_ASSERT_FATAL(held);
    kill(t.pid, SIGTERM);
    /* New connections are refused once the signal is handled (under valgrind that can take a
     * moment; a connection let in before is closed at once, so it holds nothing up). */
    int fd2 = tcp_connect(t.port);
    for (int i = 0; i < 100 && fd2 >= 0; i++) {
        close(fd2);
        tk_sleep_ms(100);
        fd2 = tcp_connect(t.port);
    }
    CU_ASSERT(fd2 < 0);
    if (fd2 >= 0)
        close(fd2);
    /* Still running: it waits for the request. */
    CU_ASSERT_EQUAL(kill(t.pid, 0), 0);
    CU_ASSERT(write(fd, body + 5, strlen(body) - 5) == (ssize_t)(strlen(body) - 5));
    char resp[2048];
    tcp_read_all(fd, resp, sizeof resp, 5000);
    close(fd);
    /* The request completed: the campaign was created and its keys returned. */
    CU_ASSERT_PTR_NOT_NULL(strstr(resp, "HTTP/1.1 201"));
    CU_ASSERT_PTR_NOT_NULL(strstr(resp, "\"organizer_key\""));
    CU_ASSERT_EQUAL(daemon_stop(&t, 0, 15), 0);
}

void register_health_tests(void)
{
    CU_pSuite s = CU_add_suite("daemon", suite_init, suite_clean);
    CU_add_test(s, "GET /healthz", test_healthz);
    CU_add_test(s, "GET /readyz follows PostgreSQL", test_readyz_follows_the_database);
    CU_add_test(s, "unknown path 404 problem+json", test_unknown_path_404);
    CU_add_test(s, "wrong method 405 problem+json, the import path too", test_wrong_method_405);
    CU_add_test(s, "an unknown page for a browser is the dashboard's, 404",
                test_unknown_page_for_a_browser);
    CU_add_test(s, "2 MiB body with Content-Length 413", test_body_over_cap_with_length);
    CU_add_test(s, "a body over the cap answered before it is sent",
                test_body_over_cap_answered_at_once);
    CU_add_test(s, "2 MiB chunked body 413", test_body_over_cap_streamed);
    CU_add_test(s, "GET /metrics", test_metrics);
    CU_add_test(s, "one log line per request", test_request_log_lines);
    CU_add_test(s, "--log-format json", test_json_log_format);
    CU_add_test(s, "--http-threads and --threads", test_thread_options);
    CU_add_test(s, "SIGTERM lets the request in flight finish", test_sigterm_drains);
}
