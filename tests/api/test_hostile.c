/*
 * Hostile clients: a body sent a byte a second, many connections from one address, and SQL,
 * quotes and control characters in every string field (stored and returned exactly).
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

struct prober {
    const struct daemon *d;
    volatile bool stop;
    int ok, bad;
    double worst;
};

/* GET /healthz every 100 ms: the other clients of the server. */
static void *probe(void *arg)
{
    struct prober *p = arg;
    char url[128];
    daemon_url(p->d, "/healthz", url, sizeof url);
    while (!p->stop) {
        double t0 = mono_seconds();
        struct http_resp *r = http_do("GET", url, NULL, NULL);
        double dt = mono_seconds() - t0;
        if (r->status == 200)
            p->ok++;
        else
            p->bad++;
        if (dt > p->worst)
            p->worst = dt;
        http_free(r);
        tk_sleep_ms(100);
    }
    return NULL;
}

/* A client that sends its body one byte a second is cut off by --timeout; others go on. */
static void test_slow_client(void)
{
    struct daemon d;
    const char *args[] = {"--timeout", "2", NULL};
    CU_ASSERT_FATAL(daemon_start(&d, api_conninfo, args));
    struct prober p = {.d = &d};
    pthread_t t;
    pthread_create(&t, NULL, probe, &p);
    int fd = tcp_connect(d.port);
    CU_ASSERT_FATAL(fd >= 0);
    const char *head = "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: "
                       "application/json\r\nContent-Length: 60\r\n\r\n";
    CU_ASSERT(write(fd, head, strlen(head)) == (ssize_t)strlen(head));
    double t0 = mono_seconds();
    bool cut = false;
    for (int i = 0; i < 20 && !cut; i++) {
        if (write(fd, "{", 1) != 1)
            cut = true;
        char buf[256];
        /* Closed by the server: the read sees the end of the stream (or a reset). */
        if (!cut && tcp_read_all(fd, buf, sizeof buf, 1000) == 0) {
            struct timeval tv = {0, 0};
            fd_set fds;
            FD_ZERO(&fds);
            FD_SET(fd, &fds);
            if (select(fd + 1, &fds, NULL, NULL, &tv) > 0 && read(fd, buf, 1) <= 0)
                cut = true;
        }
    }
    double held = mono_seconds() - t0;
    close(fd);
    p.stop = true;
    pthread_join(t, NULL);
    CU_ASSERT_TRUE(cut);
    CU_ASSERT(held < 10); /* a 2 s limit, not the 20 s the client wanted */
    CU_ASSERT(p.ok >= 2); /* the others were answered all along (how many: the machine's speed) */
    CU_ASSERT_EQUAL(p.bad, 0);
    CU_ASSERT_EQUAL(daemon_stop(&d, SIGTERM, 30), 0);
}

/* Connections beyond --per-ip-limit from one address are refused; freeing one lets one in. */
static void test_per_ip_limit(void)
{
    struct daemon d;
    const char *args[] = {"--per-ip-limit", "3", NULL};
    CU_ASSERT_FATAL(daemon_start(&d, api_conninfo, args));
    /* The start-up probe's connection is closed (counted from another address, which the limit
     * on this one does not touch; the count includes the metrics' own connection). */
    http_set_source("127.0.0.2");
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_connections_open", 1, 10000));
    int held[3];
    for (int i = 0; i < 3; i++) {
        held[i] = tcp_connect(d.port);
        CU_ASSERT(held[i] >= 0);
    }
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_connections_open", 4, 10000)); /* all three in */
    http_set_source(NULL);
    const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    int extra = tcp_connect(d.port);
    char buf[1024] = "";
    if (extra >= 0) {
        ssize_t w = write(extra, req, strlen(req));
        (void)w;
        tcp_read_all(extra, buf, sizeof buf, 2000);
        close(extra);
    }
    CU_ASSERT_PTR_NULL(strstr(buf, "200 OK")); /* the 4th connection got no answer */
    close(held[0]);
    /* Once m44d has seen the close (a moment; longer under valgrind), one more gets in. */
    for (int i = 0; i < 50 && !strstr(buf, "200 OK"); i++) {
        tk_sleep_ms(100);
        buf[0] = '\0';
        extra = tcp_connect(d.port);
        CU_ASSERT_FATAL(extra >= 0);
        CU_ASSERT(write(extra, req, strlen(req)) == (ssize_t)strlen(req));
        tcp_read_all(extra, buf, sizeof buf, 3000);
        close(extra);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "200 OK"));
    for (int i = 1; i < 3; i++)
        close(held[i]);
    CU_ASSERT_EQUAL(daemon_stop(&d, SIGTERM, 30), 0);
}

/* SQL, quotes, control characters and emoji in the strings not covered elsewhere. */
static void test_every_string_field(void)
{
    const char *nasty = "'; DROP TABLE rolls; -- \"q\" \\ \x01\x02\x1f \t\n ☠ 🎲";
    json_t *b = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "name", nasty, "ruleset", "standard",
                          "dice", "either", "players", "allies", nasty, "axis", nasty);
    char *body = jstr(b);
    json_decref(b);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon, body, &c));
    free(body);
    b = json_pack("{s:s, s:s, s:{s:i, s:i}, s:i}", "scenario", nasty, "first_player", "axis",
                  "cards", "allies", 4, "axis", 4, "medals_to_win", 4);
    body = jstr(b);
    json_decref(b);
    struct http_resp *r = camp_post(&api_daemon, &c, ORGANIZER, "/battles", body);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    free(body);
    /* A client seed of 64 bytes full of them: stored and shown exactly in the roll log. */
    char seed[65];
    snprintf(seed, sizeof seed, "%s", "'\";--\x01\n🎲\\ \t");
    size_t used = strlen(seed);
    memset(seed + used, 'z', 64 - used); /* exactly the 64 bytes allowed */
    seed[64] = '\0';
    b = json_pack("{s:s}", "client_seed", seed);
    body = jstr(b);
    json_decref(b);
    /* ... with an Idempotency-Key made of SQL characters. */
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/reserve-roll", c.id);
    const char *h[] = {"Idempotency-Key: ');DELETE FROM idempotency;--", NULL};
    r = api(&api_daemon, "POST", path, &c, ALLIES, body, h);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    r = api(&api_daemon, "POST", path, &c, ALLIES, body, h);
    CU_ASSERT_EQUAL(r->status, 201); /* replayed */
    http_free(r);
    free(body);
    r = camp_get(&api_daemon, &c, "/rolls");
    CU_ASSERT_STRING_EQUAL(http_str(r, "0.client_seed"), seed);
    CU_ASSERT_EQUAL(json_array_size(r->json), 1);
    http_free(r);
    /* An option id that is SQL: refused as unknown; the detail names the options the roll
     * offers, in players' words, and does not repeat what was sent. */
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"x'); DROP TABLE campaigns; --\"}]}");
    assert_problem(r, 422, "unknown-option");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), "That is not an option of this roll."));
    CU_ASSERT_PTR_NULL(strstr(http_str(r, "detail"), "DROP TABLE"));
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "name"), nasty);
    CU_ASSERT_STRING_EQUAL(http_str(r, "sides.allies.player"), nasty);
    CU_ASSERT_STRING_EQUAL(http_str(r, "sides.axis.player"), nasty);
    /* A scenario name is tidied as players write names (it is matched against the rules' own
     * names): no spaces around it, one space between words; nothing else changes. */
    CU_ASSERT_STRING_EQUAL(http_str(r, "battles.0.scenario"),
                           "'; DROP TABLE rolls; -- \"q\" \\ \x01\x02\x1f ☠ 🎲");
    http_free(r);
    r = camp_get(&api_daemon, &c, "/export");
    CU_ASSERT_STRING_EQUAL(http_str(r, "campaign.name"), nasty);
    http_free(r);
    CU_ASSERT(sql_long("SELECT count(*) FROM rolls") > 0);
}

/* The default --conn-memory is small, since every open connection holds all of it, but a
 * request head of 4 KB (four times what a phone's browser sends, with a proxy's headers) is
 * answered. (Cookies count twice, as libmicrohttpd parses them into a copy: m44d uses none,
 * and deploy/nginx/m44d.conf drops them.) */
static void test_realistic_head(void)
{
    char pad[3800];
    memset(pad, 'p', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    char head[4800];
    int n = snprintf(head, sizeof head,
                     "GET /healthz HTTP/1.1\r\nHost: m44.example.org\r\n"
                     "User-Agent: Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
                     "(KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36\r\n"
                     "Accept: */*\r\nAccept-Language: fr-FR,fr;q=0.9,en;q=0.8\r\n"
                     "X-Forwarded-For: 203.0.113.7\r\nX-Client-Data: %s\r\n"
                     "Connection: close\r\n\r\n",
                     pad);
    CU_ASSERT_FATAL(n > 4000 && n < (int)sizeof head);
    int fd = tcp_connect(api_daemon.port);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT(write(fd, head, (size_t)n) == n);
    char buf[1024] = "";
    tcp_read_all(fd, buf, sizeof buf, 3000);
    close(fd);
    if (!strstr(buf, "HTTP/1.1 200 OK"))
        fprintf(stderr, "a 4 KB request head got: %.80s\n", buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "HTTP/1.1 200 OK"));
}

/* Headers that are too big for --conn-memory end the connection, not the server. */
static void test_huge_headers(void)
{
    int fd = tcp_connect(api_daemon.port);
    CU_ASSERT_FATAL(fd >= 0);
    const char *head = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Junk: ";
    CU_ASSERT(write(fd, head, strlen(head)) == (ssize_t)strlen(head));
    char junk[8192];
    memset(junk, 'j', sizeof junk);
    for (int i = 0; i < 32; i++)
        if (write(fd, junk, sizeof junk) < 0)
            break;
    ssize_t w = write(fd, "\r\n\r\n", 4);
    (void)w;
    char buf[512];
    tcp_read_all(fd, buf, sizeof buf, 3000);
    close(fd);
    CU_ASSERT_PTR_NULL(strstr(buf, "200 OK"));
    struct http_resp *r = api(&api_daemon, "GET", "/healthz", NULL, ANYONE, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
}

void register_hostile_tests(void)
{
    CU_pSuite s = CU_add_suite("hostile clients", NULL, NULL);
    CU_add_test(s, "a body at one byte a second is cut off; others unaffected", test_slow_client);
    CU_add_test(s, "--per-ip-limit", test_per_ip_limit);
    CU_add_test(s, "a request head of 4 KB is answered at the default --conn-memory",
                test_realistic_head);
    CU_add_test(s, "SQL and control characters in every string field", test_every_string_field);
    CU_add_test(s, "oversized headers", test_huge_headers);
}
