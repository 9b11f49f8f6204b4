/*
 * Abuse tests (make test-faults): what a public address gets. Each test
 * reproduces one finding of the public-instance review against a real m44d and
 * PostgreSQL, and checks the limit that now answers it: floods get 429 with
 * Retry-After, bodies that are not JSON 415, over-long texts 400, exports and
 * imports their own bounded workers, slow heads and hung-up long polls their
 * slots back, parked polls a cap, clients behind a trusted proxy their own
 * address, a lost COMMIT the truth, a read-only database 503, and malformed
 * requests a reply or a close. Every wait is bounded; nothing here is timed for
 * speed.
 */
#include "tests/common/daemon.h"
#include "tests/common/http.h"
#include "tests/common/pgcut.h"
#include "tests/common/testkit.h"

#include <dirent.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- helpers ---- */

static long sql_long(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    long v = -1;
    PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, sql) : NULL;
    if (r && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        v = atol(PQgetvalue(r, 0, 0));
    else
        fprintf(stderr, "sql failed: %s: %s\n", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    return v;
}

static bool sql_exec(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, sql) : NULL;
    bool ok = r && (PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);
    if (!ok)
        fprintf(stderr, "sql failed: %s: %s\n", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    return ok;
}

/* A daemon on a new database with these options. */
struct setup {
    struct daemon d;
    char *db;
};

static bool start(struct setup *s, const char *prefix, const char *const *args)
{
    s->db = tk_new_database(prefix);
    return s->db && daemon_start(&s->d, s->db, args);
}

static void stop(struct setup *s)
{
    CU_ASSERT_EQUAL(daemon_stop(&s->d, SIGTERM, 15), 0);
    free(s->db);
    s->db = NULL;
}

static struct http_resp *req(const struct setup *s, const char *method, const char *path,
                             const char *body, const char *const *headers)
{
    char url[512];
    return http_do(method, daemon_url(&s->d, path, url, sizeof url), body, headers);
}

static const char *code_of(const struct http_resp *r)
{
    return http_str(r, "code");
}

struct camp {
    char id[40], org[80], allies[80], axis[80];
};

static bool create(const struct setup *s, struct camp *c)
{
    struct http_resp *r =
        req(s, "POST", "/api/v1/campaigns", "{\"name\":\"Abuse\",\"ruleset\":\"standard\"}", NULL);
    bool ok = r->status == 201;
    if (ok) {
        snprintf(c->id, sizeof c->id, "%s", http_str(r, "id"));
        snprintf(c->org, sizeof c->org, "Authorization: Bearer %s", http_str(r, "organizer_key"));
        snprintf(c->allies, sizeof c->allies, "Authorization: Bearer %s",
                 http_str(r, "allies_key"));
        snprintf(c->axis, sizeof c->axis, "Authorization: Bearer %s", http_str(r, "axis_key"));
    } else {
        fprintf(stderr, "create: %ld %s\n", r->status, r->body ? r->body : "");
    }
    http_free(r);
    return ok;
}

static long battle(const struct setup *s, const struct camp *c)
{
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%.39s/battles", c->id);
    const char *h[] = {c->org, NULL};
    struct http_resp *r = req(s, "POST", path,
                              "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"axis\","
                              "\"cards\":{\"allies\":4,\"axis\":4},\"medals_to_win\":4}",
                              h);
    long st = r->status;
    http_free(r);
    return st;
}

static struct http_resp *roll(const struct setup *s, const struct camp *c, bool allies,
                              const char *idem)
{
    char path[160], ih[120];
    snprintf(path, sizeof path, "/api/v1/campaigns/%.39s/battles/1/reserve-roll", c->id);
    snprintf(ih, sizeof ih, "Idempotency-Key: %s", idem ? idem : "");
    const char *h[] = {allies ? c->allies : c->axis, idem ? ih : NULL, NULL};
    return req(s, "POST", path, "{\"client_seed\":\"abuse\"}", h);
}

/* Sends raw bytes on a new connection (from `source`); returns the socket, or
 * -1. */
static int raw_send(const struct setup *s, const char *source, const char *text)
{
    int fd = tcp_connect_from(s->d.port, source);
    if (fd >= 0 && send(fd, text, strlen(text), MSG_NOSIGNAL) != (ssize_t)strlen(text)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The status of the first reply on `fd` (waiting up to timeout_ms), or 0. */
static int raw_status(int fd, char *buf, size_t len, int timeout_ms)
{
    tcp_read_all(fd, buf, len, timeout_ms);
    int status = 0;
    return sscanf(buf, "HTTP/1.1 %d", &status) == 1 ? status : 0;
}

/* ---- floods and what they may send ---- */

/* 4,992 creations in 1.7 s from one client: now the burst, then 429 with
 * Retry-After; another client is not held up, and the reads of the first go on.
 */
static void test_creation_flood(void)
{
    struct setup s;
    const char *args[] = {"--rate-create=1", "--burst-create=5", "--rate-read=60",
                          "--burst-read=30", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_flood", args));
    int created = 0, limited = 0;
    for (int i = 0; i < 40; i++) {
        struct http_resp *r = req(&s, "POST", "/api/v1/campaigns",
                                  "{\"name\":\"Flood\",\"ruleset\":\"standard\"}", NULL);
        if (r->status == 201)
            created++;
        if (r->status == 429) {
            limited++;
            char ra[16];
            CU_ASSERT_PTR_NOT_NULL(http_header(r, "Retry-After", ra, sizeof ra));
            CU_ASSERT(atoi(ra) >= 1 && atoi(ra) <= 60);
            CU_ASSERT_STRING_EQUAL(code_of(r), "too-many-requests");
        }
        http_free(r);
    }
    CU_ASSERT_EQUAL(created, 5);
    CU_ASSERT_EQUAL(limited, 35);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM campaigns"), 5);
    /* Another address has its own bucket. */
    http_set_source("127.0.0.2");
    struct camp c;
    CU_ASSERT(create(&s, &c));
    http_set_source(NULL);
    /* Reads have their own, larger limit: still answered, until it too runs out.
     */
    int reads = 0;
    for (int i = 0; i < 40; i++) {
        struct http_resp *r = req(&s, "GET", "/api/v1/rulesets", NULL, NULL);
        reads += r->status == 200;
        http_free(r);
    }
    CU_ASSERT(reads >= 30 && reads < 40);
    CU_ASSERT(daemon_metric(&s.d, "m44d_rate_limited_total{limit=\"create\"}") == 35);
    /* Health is outside every limit. */
    struct http_resp *h = req(&s, "GET", "/healthz", NULL, NULL);
    CU_ASSERT_EQUAL(h->status, 200);
    http_free(h);
    stop(&s);
}

/* Creation took any Content-Type, so any web page could create campaigns
 * without the browser asking first. A body that is not JSON is now refused with
 * 415, and nothing is created. */
static void test_not_json(void)
{
    struct setup s;
    CU_ASSERT_FATAL(start(&s, "abuse_ctype", NULL));
    const char *types[] = {"Content-Type: text/plain",
                           "Content-Type: application/x-www-form-urlencoded",
                           "Content-Type: multipart/form-data; boundary=x",
                           "Content-Type: application/jsonp", "Content-Type: ",
                           /* JSON is read as UTF-8 only (RFC 8259 8.1): another charset would be
                            * read as what it is not. */
                           "Content-Type: application/json; charset=utf-16",
                           "Content-Type: application/json;charset=\"latin1\""};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const char *h[] = {types[i], NULL};
        struct http_resp *r =
            req(&s, "POST", "/api/v1/campaigns", "{\"name\":\"CSRF\",\"ruleset\":\"standard\"}", h);
        CU_ASSERT_EQUAL(r->status, 415);
        CU_ASSERT_STRING_EQUAL(code_of(r), "unsupported-media-type");
        http_free(r);
    }
    /* JSON said to be compressed is not read as what it is not (RFC 9110 8.4). */
    const char *coded[] = {"Content-Type: application/json", "Content-Encoding: gzip", NULL};
    struct http_resp *z =
        req(&s, "POST", "/api/v1/campaigns", "{\"name\":\"Zip\",\"ruleset\":\"standard\"}", coded);
    CU_ASSERT_EQUAL(z->status, 415);
    CU_ASSERT_STRING_EQUAL(code_of(z), "unsupported-media-type");
    CU_ASSERT_PTR_NOT_NULL(strstr(z->body, "uncompressed"));
    http_free(z);
    /* Said twice, it could be read two ways (the first or the last): refused. */
    const char *twice[] = {"Content-Type: application/json", "Content-Encoding: identity",
                           "Content-Encoding: gzip", NULL};
    z = req(&s, "POST", "/api/v1/campaigns", "{\"name\":\"Zip\",\"ruleset\":\"standard\"}", twice);
    CU_ASSERT_EQUAL(z->status, 400);
    CU_ASSERT_PTR_NOT_NULL(strstr(z->body, "Content-Encoding is given more than once"));
    http_free(z);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM campaigns"), 0);
    /* JSON with its parameters is JSON; "identity" is no coding at all. */
    const char *plain[] = {"Content-Type: application/json", "Content-Encoding: identity", NULL};
    z = req(&s, "POST", "/api/v1/campaigns", "{\"name\":\"Fine\",\"ruleset\":\"standard\"}", plain);
    CU_ASSERT_EQUAL(z->status, 201);
    http_free(z);
    const char *ok[] = {"Content-Type: Application/JSON; charset=utf-8", NULL};
    struct http_resp *r =
        req(&s, "POST", "/api/v1/campaigns", "{\"name\":\"Fine\",\"ruleset\":\"standard\"}", ok);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    const char *quoted[] = {"Content-Type: application/json;charset=\"UTF-8\"", NULL};
    r = req(&s, "POST", "/api/v1/campaigns", "{\"name\":\"Fine\",\"ruleset\":\"standard\"}",
            quoted);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    /* A client waiting for "100 Continue" gets the refusal instead, before sending the body. */
    int wait_fd = raw_send(&s, NULL,
                           "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: "
                           "text/plain\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n");
    char wbuf[2048];
    CU_ASSERT_EQUAL(raw_status(wait_fd, wbuf, sizeof wbuf, 3000), 415);
    close(wait_fd);
    /* A POST with no body needs no type (an undo as curl -X POST sends it). */
    struct camp c;
    CU_ASSERT_FATAL(create(&s, &c));
    int fd = raw_send(&s, NULL,
                      "POST /api/v1/campaigns/00000000-0000-4000-8000-000000000000/undo "
                      "HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    char buf[2048];
    CU_ASSERT_EQUAL(raw_status(fd, buf, sizeof buf, 3000), 404);
    close(fd);
    stop(&s);
}

/* scenarios.list[].note had no limit: one 933 KB creation stored 1.9 MB. Every
 * text now has a maximum; over it is 400 naming the field, and nothing is
 * stored. */
static void test_text_limits(void)
{
    struct setup s;
    CU_ASSERT_FATAL(start(&s, "abuse_text", NULL));
    char *big = malloc(900001);
    memset(big, 'n', 900000);
    big[900000] = '\0';
    json_t *sc = json_pack("{s:s, s:[{s:s, s:s, s:{s:i, s:i}, s:i, s:s}], s:{s:{s:s, s:s}}}",
                           "start", "Hill", "list", "name", "Hill", "first_player", "allies",
                           "cards", "allies", 4, "axis", 4, "medals_to_win", 4, "note", big,
                           "branches", "Hill", "allies", "END", "axis", "END");
    json_t *body =
        json_pack("{s:s, s:s, s:o}", "name", "Notes", "ruleset", "standard", "scenarios", sc);
    char *text = json_dumps(body, JSON_COMPACT);
    struct http_resp *r = req(&s, "POST", "/api/v1/campaigns", text, NULL);
    CU_ASSERT_EQUAL(r->status, 400);
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "scenarios.list[0].note");
    http_free(r);
    free(text);
    /* 319 bytes is within the limit. */
    big[319] = '\0';
    json_object_set_new(json_array_get(json_object_get(sc, "list"), 0), "note", json_string(big));
    text = json_dumps(body, JSON_COMPACT);
    r = req(&s, "POST", "/api/v1/campaigns", text, NULL);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    free(text);
    json_decref(body);
    /* The campaign's name and the players' names. */
    big[201] = '\0';
    body = json_pack("{s:s, s:s}", "name", big, "ruleset", "standard");
    text = json_dumps(body, JSON_COMPACT);
    r = req(&s, "POST", "/api/v1/campaigns", text, NULL);
    CU_ASSERT_EQUAL(r->status, 400);
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "name");
    http_free(r);
    free(text);
    json_decref(body);
    big[101] = '\0';
    body = json_pack("{s:s, s:s, s:{s:s}}", "name", "N", "ruleset", "standard", "players", "allies",
                     big);
    text = json_dumps(body, JSON_COMPACT);
    r = req(&s, "POST", "/api/v1/campaigns", text, NULL);
    CU_ASSERT_EQUAL(r->status, 400);
    CU_ASSERT_STRING_EQUAL(http_str(r, "field"), "players.allies");
    http_free(r);
    free(text);
    json_decref(body);
    free(big);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM campaigns"), 1);
    stop(&s);
}

/* 60 imports at once pushed other requests to 2 s; 32 exports sent 1.27 GB.
 * Exports and imports now have their own workers and a bounded queue (more: 503
 * busy at once), and count against the creation limit; play goes on beside
 * them. */
struct async {
    pthread_t t;
    const struct setup *s;
    const char *path, *body;
    char code[40];      /* the problem's code, if any */
    bool retry_after;   /* whether the reply said when to retry */
    atomic_long status; /* 0 until the reply is in (set last) */
};

static void *async_post(void *arg)
{
    struct async *a = arg;
    struct http_resp *r = req(a->s, "POST", a->path, a->body, NULL);
    char ra[16];
    snprintf(a->code, sizeof a->code, "%s", code_of(r));
    a->retry_after = http_header(r, "Retry-After", ra, sizeof ra) != NULL;
    atomic_store(&a->status, r->status ? r->status : -1);
    http_free(r);
    return NULL;
}

static bool waiting_on_lock(const char *conninfo, int n)
{
    for (int t = 0; t < 100; t++) {
        if (sql_long(conninfo, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                               "'Lock' AND backend_type = 'client backend'") >= n)
            return true;
        tk_sleep_ms(50);
    }
    return false;
}

#define QUEUED(workers) "m44d_requests_queued{workers=\"" workers "\"}"

static void test_heavy_bounded(void)
{
    struct setup s;
    const char *args[] = {"--heavy-workers=1", "--heavy-queue=1", "--threads=2", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_heavy", args));
    struct camp c;
    CU_ASSERT_FATAL(create(&s, &c));
    CU_ASSERT_EQUAL(battle(&s, &c), 201);
    struct http_resp *r = roll(&s, &c, true, NULL);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/export", c.id);
    r = req(&s, "GET", path, NULL, NULL);
    CU_ASSERT_FATAL(r->status == 200);
    char *doc = strdup(r->body);
    http_free(r);
    /* Imports stop at the rolls table, which the test holds. */
    PGconn *holder = PQconnectdb(s.db);
    PGresult *x = PQexec(holder, "BEGIN; LOCK TABLE rolls IN EXCLUSIVE MODE");
    CU_ASSERT_EQUAL(PQresultStatus(x), PGRES_COMMAND_OK);
    PQclear(x);
    char *other = strdup(doc); /* the same campaign under another id */
    char *at = strstr(other, c.id);
    CU_ASSERT_FATAL(at != NULL);
    while (at) {
        memcpy(at, "11111111-1111-4111-8111-111111111111", 36);
        at = strstr(other, c.id);
    }
    /* The first import goes to the one worker and waits there. */
    struct async a1 = {.s = &s, .path = "/api/v1/campaigns/import", .body = other};
    pthread_create(&a1.t, NULL, async_post, &a1);
    CU_ASSERT(waiting_on_lock(s.db, 1));
    /* Two more: whichever comes first waits in the queue, the other finds it full (which comes
     * first is the machine's affair, so both are sent and the first answered is looked at). */
    struct async a2 = {.s = &s, .path = "/api/v1/campaigns/import", .body = other};
    struct async a3 = {.s = &s, .path = "/api/v1/campaigns/import", .body = other};
    pthread_create(&a2.t, NULL, async_post, &a2);
    pthread_create(&a3.t, NULL, async_post, &a3);
    struct async *full = NULL;
    for (int t = 0; t < 400 && !full; t++) {
        full = atomic_load(&a2.status) ? &a2 : atomic_load(&a3.status) ? &a3 : NULL;
        if (!full)
            tk_sleep_ms(50);
    }
    /* (Not fatal: the lock is let go and every thread joined below, whatever happened.) */
    CU_ASSERT(full != NULL);
    struct async *queued = full == &a2 ? &a3 : &a2;
    if (full) {
        CU_ASSERT_EQUAL(atomic_load(&full->status), 503);
        CU_ASSERT_STRING_EQUAL(full->code, "busy");
        CU_ASSERT_TRUE(full->retry_after);
        CU_ASSERT_EQUAL(atomic_load(&queued->status), 0); /* still waiting in the queue */
        CU_ASSERT_EQUAL(daemon_metric(&s.d, QUEUED("heavy")), 1);
    }
    /* Play goes on meanwhile: a standing read, a new campaign, a battle. */
    snprintf(path, sizeof path, "/api/v1/campaigns/%s", c.id);
    r = req(&s, "GET", path, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    struct camp c2;
    CU_ASSERT(create(&s, &c2));
    CU_ASSERT_EQUAL(battle(&s, &c2), 201);
    x = PQexec(holder, "COMMIT");
    PQclear(x);
    PQfinish(holder);
    pthread_join(a1.t, NULL);
    pthread_join(a2.t, NULL);
    pthread_join(a3.t, NULL);
    CU_ASSERT_EQUAL(daemon_metric(&s.d, QUEUED("heavy")), 0);
    /* One import made the campaign; the queued one found it there. */
    long s1 = atomic_load(&a1.status), sq = atomic_load(&queued->status);
    CU_ASSERT(full && ((s1 == 201 && sq == 409) || (s1 == 409 && sq == 201)));
    free(other);
    free(doc);
    stop(&s);

    /* Exports count against the creation limit. */
    const char *lim[] = {"--rate-create=1", "--burst-create=3", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_export", lim));
    CU_ASSERT_FATAL(create(&s, &c));
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/export", c.id);
    long st[3];
    for (int i = 0; i < 3; i++) {
        r = req(&s, "GET", path, NULL, NULL);
        st[i] = r->status;
        http_free(r);
    }
    CU_ASSERT_EQUAL(st[0], 200);
    CU_ASSERT_EQUAL(st[1], 200);
    CU_ASSERT_EQUAL(st[2], 429);
    stop(&s);
}

/* ---- slots ---- */

/* One header byte every 2 s kept a connection > 65 s. The whole head now has
 * --head-timeout. */
static void test_slow_head(void)
{
    struct setup s;
    const char *args[] = {"--head-timeout=2", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_slowhead", args));
    int fd = tcp_connect(s.d.port);
    CU_ASSERT_FATAL(fd >= 0);
    const char *head = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaa";
    bool closed = false;
    for (size_t i = 0; head[i] && !closed; i++) {
        if (send(fd, head + i, 1, MSG_NOSIGNAL) != 1)
            closed = true;
        else
            closed = tcp_closed_within(fd, 250); /* a byte every 250 ms: never idle long */
    }
    /* Cut after about 2 s: at most 24 bytes were sent (6 s), far from the head's
     * end. */
    CU_ASSERT(closed);
    close(fd);
    CU_ASSERT(daemon_metric(&s.d, "m44d_head_timeouts_total") >= 1);
    /* A connection opened and left silent is closed the same way. */
    fd = tcp_connect(s.d.port);
    CU_ASSERT(tcp_closed_within(fd, 6000));
    close(fd);
    /* A quick client is not touched. */
    struct http_resp *r = req(&s, "GET", "/healthz", NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    stop(&s);
}

/* Idle connections from a few addresses (each within --per-ip-limit) filled
 * --max-connections, and a new client waited up to --head-timeout. Nearly full,
 * m44d now closes the longest idle ones: /healthz from a fresh address is
 * answered at once. */
static void test_idle_crowd(void)
{
    struct setup s;
    const char *args[] = {"--max-connections=40", "--per-ip-limit=10", "--head-timeout=60", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_idle", args));
    int fds[40], n = 0;
    const char *from[] = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"};
    for (int a = 0; a < 4; a++)
        for (int i = 0; i < 10; i++) {
            int fd = tcp_connect_from(s.d.port, from[a]);
            if (fd >= 0)
                fds[n++] = fd;
        }
    CU_ASSERT_EQUAL(n, 40);
    tk_sleep_ms(300); /* all accepted (the metrics are read from elsewhere) */
    http_set_source("127.0.0.6");
    int fd = raw_send(&s, "127.0.0.6", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    char buf[4096];
    /* Within 5 s, not the 60 s of --head-timeout. */
    CU_ASSERT_EQUAL(raw_status(fd, buf, sizeof buf, 5000), 200);
    if (fd >= 0)
        close(fd);
    CU_ASSERT(daemon_metric(&s.d, "m44d_idle_connections_shed_total") >= 1);
    /* None was refused: the new one waited for room rather than being turned away. */
    CU_ASSERT_EQUAL(daemon_metric(&s.d, "m44d_connections_refused_total"), 0);
    /* The ones cut are the idle ones: still at most 7/8 of the slots in use then. */
    int closed = 0;
    for (int i = 0; i < n; i++) {
        closed += tcp_closed_within(fds[i], 20);
        close(fds[i]);
    }
    CU_ASSERT(closed >= 5 && closed < 40);
    http_set_source(NULL);
    stop(&s);
}

static int park(const struct setup *s, const char *source, const struct camp *c, const char *etag)
{
    char text[512];
    snprintf(text, sizeof text,
             "GET /api/v1/campaigns/%s?wait=30 HTTP/1.1\r\nHost: "
             "x\r\nIf-None-Match: %s\r\n\r\n",
             c->id, etag);
    return raw_send(s, source, text);
}

static void etag_of(const struct setup *s, const struct camp *c, char *etag, size_t len)
{
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s", c->id);
    struct http_resp *r = req(s, "GET", path, NULL, NULL);
    http_header(r, "ETag", etag, len);
    http_free(r);
}

/* 64 long polls whose clients hung up stayed counted for 30 s, and locked their
 * address out. A parked poll whose client has gone is now answered within a
 * second, its slot free. */
static void test_hung_up_polls(void)
{
    struct setup s;
    const char *args[] = {"--per-ip-limit=20", "--parked-per-client=64", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_hangup", args));
    struct camp c;
    CU_ASSERT_FATAL(create(&s, &c));
    char etag[40];
    etag_of(&s, &c, etag, sizeof etag);
    http_set_source("127.0.0.2"); /* the metrics are read from elsewhere */
    int fds[20];
    for (int i = 0; i < 20; i++)
        fds[i] = park(&s, "127.0.0.3", &c, etag);
    CU_ASSERT(daemon_metric_becomes(&s.d, "m44d_long_polls_waiting", 20, 5000));
    /* The address is at its limit: one more connection is refused. */
    int extra = raw_send(&s, "127.0.0.3", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    char buf[4096];
    CU_ASSERT(extra < 0 || raw_status(extra, buf, sizeof buf, 2000) == 0);
    if (extra >= 0)
        close(extra);
    /* One more, elsewhere, whose client sends a byte after its request, unread,
     * before it hangs up. */
    int odd = park(&s, "127.0.0.4", &c, etag);
    CU_ASSERT(daemon_metric_becomes(&s.d, "m44d_long_polls_waiting", 21, 5000));
    CU_ASSERT_EQUAL(send(odd, "x", 1, MSG_NOSIGNAL), 1);
    close(odd);
    for (int i = 0; i < 20; i++)
        close(fds[i]);
    CU_ASSERT(daemon_metric_becomes(&s.d, "m44d_long_polls_waiting", 0, 3000));
    CU_ASSERT_EQUAL(daemon_metric(&s.d, "m44d_long_poll_wakes_total{cause=\"client_gone\"}"), 21);
    /* ... their connections closed once answered, within a moment (the metrics' own is the one
     * left; a slot held for the poll's 30 s would fail here), and the address may connect
     * again at once. */
    CU_ASSERT(daemon_metric_becomes(&s.d, "m44d_connections_open", 1, 2000));
    int fd = raw_send(&s, "127.0.0.3", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    CU_ASSERT_EQUAL(raw_status(fd, buf, sizeof buf, 3000), 200);
    close(fd);
    http_set_source(NULL);
    stop(&s);
}

/* 9 addresses x 64 parked polls took all 512 slots and /healthz timed out.
 * Parked polls now have a cap per client and in all; the excess is answered at
 * once (429), writes and health checks go on. */
static void test_parked_caps(void)
{
    struct setup s;
    const char *args[] = {"--max-parked=6", "--parked-per-client=4", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_caps", args));
    struct camp c;
    CU_ASSERT_FATAL(create(&s, &c));
    CU_ASSERT_EQUAL(battle(&s, &c), 201);
    char etag[40];
    etag_of(&s, &c, etag, sizeof etag);
    http_set_source("127.0.0.9");
    int fds[6], n = 0;
    for (int i = 0; i < 4; i++)
        fds[n++] = park(&s, "127.0.0.2", &c, etag);
    CU_ASSERT(daemon_metric_becomes(&s.d, "m44d_long_polls_waiting", 4, 5000));
    /* A fifth from the same client: 429 at once. */
    int fd = park(&s, "127.0.0.2", &c, etag);
    char buf[4096];
    CU_ASSERT_EQUAL(raw_status(fd, buf, sizeof buf, 3000), 429);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Retry-After: "));
    close(fd);
    for (int i = 0; i < 2; i++)
        fds[n++] = park(&s, "127.0.0.3", &c, etag);
    CU_ASSERT(daemon_metric_becomes(&s.d, "m44d_long_polls_waiting", 6, 5000));
    /* Full in all: a new client's poll is answered at once too. */
    fd = park(&s, "127.0.0.4", &c, etag);
    CU_ASSERT_EQUAL(raw_status(fd, buf, sizeof buf, 3000), 429);
    close(fd);
    /* Health, readiness and a write from a fresh address. */
    http_set_source("127.0.0.5");
    struct http_resp *r = req(&s, "GET", "/healthz", NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    r = req(&s, "GET", "/readyz", NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    r = roll(&s, &c, true, NULL);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    /* The roll woke every parked poll: each gets the new standing. */
    for (int i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(raw_status(fds[i], buf, sizeof buf, 5000), 200);
        close(fds[i]);
    }
    http_set_source(NULL);
    stop(&s);
}

/* A client is an IPv6 /64, so one holding a /56 was 256 clients for the
 * creation limit. All the /64s of one /48 now also share a site's bucket. */
static void test_ipv6_site(void)
{
    struct setup s;
    const char *args[] = {"--trust-proxy=127.0.0.1", "--rate-create=1",       "--burst-create=2",
                          "--rate-create-site=1",    "--burst-create-site=5", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_site", args));
    const char *body = "{\"name\":\"Site\",\"ruleset\":\"standard\"}";
    char h[80];
    const char *hs[] = {h, NULL};
    long st[8];
    /* Two from one /64 (its burst), the third refused: a /64 is one client. */
    for (int i = 0; i < 3; i++) {
        snprintf(h, sizeof h, "X-Forwarded-For: 2001:db8:0:1::%d", i + 1);
        struct http_resp *r = req(&s, "POST", "/api/v1/campaigns", body, hs);
        st[i] = r->status;
        http_free(r);
    }
    CU_ASSERT_EQUAL(st[0], 201);
    CU_ASSERT_EQUAL(st[1], 201);
    CU_ASSERT_EQUAL(st[2], 429);
    /* Other /64s of the same /48: three more make the site's five, then 429 for a
     * /64 never seen. */
    for (int i = 0; i < 4; i++) {
        snprintf(h, sizeof h, "X-Forwarded-For: 2001:db8:0:%x::1", 0x100 + i);
        struct http_resp *r = req(&s, "POST", "/api/v1/campaigns", body, hs);
        st[i] = r->status;
        if (i == 3) {
            char ra[16] = "";
            CU_ASSERT(http_header(r, "Retry-After", ra, sizeof ra) && atoi(ra) >= 1);
        }
        http_free(r);
    }
    CU_ASSERT_EQUAL(st[0], 201);
    CU_ASSERT_EQUAL(st[1], 201);
    CU_ASSERT_EQUAL(st[2], 201);
    CU_ASSERT_EQUAL(st[3], 429);
    /* Another /48, and an IPv4 client, are not held up. */
    const char *v6[] = {"X-Forwarded-For: 2001:db8:1::1", NULL};
    const char *v4[] = {"X-Forwarded-For: 198.51.100.7", NULL};
    struct http_resp *r = req(&s, "POST", "/api/v1/campaigns", body, v6);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    r = req(&s, "POST", "/api/v1/campaigns", body, v4);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM campaigns"), 7);
    stop(&s);
}

/* Behind a reverse proxy every client was one address: 64 connections for the
 * whole service, and the logs showed only the proxy. */
static void test_trusted_proxy(void)
{
    struct setup s;
    const char *args[] = {"--trust-proxy=127.0.0.1,127.0.0.8/30", "--per-ip-limit=2",
                          "--rate-create=1", "--burst-create=2", NULL};
    CU_ASSERT_FATAL(start(&s, "abuse_proxy", args));
    /* The proxy holds more connections than --per-ip-limit: each is served. */
    int fds[5];
    char buf[4096];
    for (int i = 0; i < 5; i++)
        fds[i] = raw_send(&s, "127.0.0.1", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(raw_status(fds[i], buf, sizeof buf, 3000), 200);
        close(fds[i]);
    }
    /* Clients named by the proxy have their own limits: the last address not a
     * proxy. */
    const char *xff[] = {"X-Forwarded-For: 198.51.100.7", NULL};
    const char *chain[] = {"X-Forwarded-For: 10.9.9.9, 198.51.100.7, 127.0.0.9", NULL};
    const char *other[] = {"X-Forwarded-For: 198.51.100.8", NULL};
    const char *body = "{\"name\":\"Proxied\",\"ruleset\":\"standard\"}";
    long st[4];
    struct http_resp *r;
    r = req(&s, "POST", "/api/v1/campaigns", body, xff);
    st[0] = r->status;
    http_free(r);
    r = req(&s, "POST", "/api/v1/campaigns", body, chain); /* the same client, via two proxies */
    st[1] = r->status;
    http_free(r);
    r = req(&s, "POST", "/api/v1/campaigns", body, xff);
    st[2] = r->status;
    http_free(r);
    r = req(&s, "POST", "/api/v1/campaigns", body, other);
    st[3] = r->status;
    http_free(r);
    CU_ASSERT_EQUAL(st[0], 201);
    CU_ASSERT_EQUAL(st[1], 201);
    CU_ASSERT_EQUAL(st[2], 429);
    CU_ASSERT_EQUAL(st[3], 201);
    /* A long X-Forwarded-For of the client's own cannot push out what the proxy appended. */
    char *longxff = malloc(6000);
    strcpy(longxff, "X-Forwarded-For: ");
    while (strlen(longxff) < 5000)
        strcat(longxff, "10.0.0.1, ");
    strcat(longxff, "198.51.100.9");
    const char *lh[] = {longxff, NULL};
    r = req(&s, "GET", "/api/v1/rulesets", NULL, lh);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    free(longxff);
    /* From an address that is not a proxy, X-Forwarded-For is not believed. */
    http_set_source("127.0.0.20");
    const char *spoof[] = {"X-Forwarded-For: 203.0.113.99", NULL};
    r = req(&s, "GET", "/api/v1/rulesets", NULL, spoof);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    /* ... and the per-address limit holds there. */
    int a = raw_send(&s, "127.0.0.21", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    int b = raw_send(&s, "127.0.0.21", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    int c3 = raw_send(&s, "127.0.0.21", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    CU_ASSERT_EQUAL(raw_status(a, buf, sizeof buf, 3000), 200);
    CU_ASSERT_EQUAL(raw_status(b, buf, sizeof buf, 3000), 200);
    CU_ASSERT(c3 < 0 || raw_status(c3, buf, sizeof buf, 2000) == 0);
    close(a), close(b);
    if (c3 >= 0)
        close(c3);
    http_set_source(NULL);
    stop(&s);
    /* The log names the clients. */
    char *log = tk_slurp(s.d.log);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "http: 198.51.100.7 POST /api/v1/campaigns 201 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "http: 198.51.100.7 POST /api/v1/campaigns 429 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "http: 198.51.100.8 POST /api/v1/campaigns 201 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "http: 198.51.100.9 GET /api/v1/rulesets 200 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "http: 127.0.0.20 GET /api/v1/rulesets 200 "));
    CU_ASSERT_PTR_NULL(strstr(log, "203.0.113.99"));
    /* Stopped by SIGTERM: the last lines, still waiting for the log's writer, were written. */
    CU_ASSERT_PTR_NOT_NULL(strstr(log, "info  main: stopped\n"));
    free(log);
}

/* ---- faults told truthfully ---- */

/* A daemon (one database worker; `option`, if any, one more) on a new database `prefix`,
 * reaching it through a pgcut link (tests/common/pgcut.h); NULL when either could not start. */
static struct pgcut *start_cut(struct setup *s, const char *prefix, const char *option)
{
    *s = (struct setup){.db = tk_new_database(prefix)};
    struct pgcut *cut = s->db ? pgcut_start(tk_env("M44_TEST_PGHOST")) : NULL;
    if (!cut)
        return NULL;
    PGconn *probe = PQconnectdb(s->db);
    char conninfo[512];
    snprintf(conninfo, sizeof conninfo,
             "host=127.0.0.1 port=%d user=m44 dbname=%s sslmode=disable gssencmode=disable",
             pgcut_port(cut), PQdb(probe));
    PQfinish(probe);
    const char *args[] = {"--threads=1", option, NULL};
    if (!daemon_start(&s->d, conninfo, args)) {
        pgcut_stop(cut);
        return NULL;
    }
    return cut;
}

/* A connection dropped right after COMMIT gave 503 "nothing was changed" though
 * the roll was made. Now: outcome-unknown, and the same Idempotency-Key gets
 * the roll that was made. */
static void test_lost_commit(void)
{
    struct setup s;
    struct pgcut *cut = start_cut(&s, "abuse_commit", NULL);
    CU_ASSERT_FATAL(cut != NULL);
    struct camp c;
    CU_ASSERT_FATAL(create(&s, &c));
    CU_ASSERT_EQUAL(battle(&s, &c), 201);
    pgcut_arm(cut, "roll_insert");
    struct http_resp *r = roll(&s, &c, true, "lost-commit-allies-1");
    CU_ASSERT_EQUAL(r->status, 503);
    CU_ASSERT_STRING_EQUAL(code_of(r), "outcome-unknown");
    CU_ASSERT_PTR_NULL(strstr(r->body, "nothing was changed"));
    http_free(r);
    CU_ASSERT_EQUAL(pgcut_cuts(cut), 1);
    /* It was made: PostgreSQL committed it. */
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM rolls"), 1);
    /* The same request with the same key: that roll, replayed, never a second
     * one. */
    r = roll(&s, &c, true, "lost-commit-allies-1");
    CU_ASSERT_EQUAL(r->status, 201);
    char rep[16];
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "Idempotent-Replayed", rep, sizeof rep));
    http_free(r);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM rolls"), 1);
    /* Without a key it says the same, and how to find out. */
    pgcut_arm(cut, "roll_insert");
    r = roll(&s, &c, false, NULL);
    CU_ASSERT_EQUAL(r->status, 503);
    CU_ASSERT_STRING_EQUAL(code_of(r), "outcome-unknown");
    CU_ASSERT_PTR_NOT_NULL(strstr(r->body, "Read the campaign"));
    http_free(r);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM rolls"), 2);
    stop(&s);
    pgcut_stop(cut);
}

/* A pooler (PgBouncer) whose server is down takes a connection and breaks it at its first
 * statement. A read of a campaign's version that met it twice, on the connection it had and on
 * a new one, answered 500 "A database error stopped the request". Now 503 with Retry-After, as
 * any read that finds the database unavailable. */
static void test_broken_at_each_statement(void)
{
    struct setup s;
    struct pgcut *cut = start_cut(&s, "abuse_broken", NULL);
    CU_ASSERT_FATAL(cut != NULL);
    struct camp c;
    CU_ASSERT_FATAL(create(&s, &c));
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s", c.id);
    /* A version above any the daemon knows: it is read from the database (read-your-writes). */
    const char *ahead[] = {"If-None-Match: \"99\"", NULL};
    pgcut_break(cut, "campaign_version");
    int cuts = pgcut_cuts(cut);
    struct http_resp *r = req(&s, "GET", path, NULL, ahead);
    CU_ASSERT_EQUAL(r->status, 503);
    CU_ASSERT_STRING_EQUAL(code_of(r), "database-unavailable");
    char retry[16];
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "Retry-After", retry, sizeof retry));
    http_free(r);
    CU_ASSERT(pgcut_cuts(cut) >= cuts + 2); /* the connection it had, and a new one */
    /* The server back: the same read is answered. */
    pgcut_break(cut, "");
    r = req(&s, "GET", path, NULL, ahead);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&s.d, "m44d_http_requests_total{method=\"GET\",route=\"/api/v1/"
                                        "campaigns/{id}\",status=\"500\"}"),
                    -1);
    stop(&s);
    pgcut_stop(cut);
}

/* Ends the connections of the daemon on database `conninfo` that serve requests (not its
 * listener's), as a restart does: a FATAL message, then the end of the link. Waits for those
 * connections, by their process ids, to be gone (the daemon's other threads may already have
 * made new ones). */
static bool end_links(const char *conninfo)
{
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQexec(c, "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE "
                            "application_name = 'm44d' AND datname = current_database()");
    char pids[512] = "";
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
        snprintf(pids, sizeof pids, "{%s}", PQgetvalue(r, 0, 0));
    PQclear(r);
    const char *params[] = {pids};
    long left = -1;
    if (pids[0]) {
        PQclear(PQexecParams(c, "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid", 1,
                             NULL, params, NULL, NULL, 0));
        for (int i = 0; i < 100 && left != 0; i++) {
            tk_sleep_ms(20);
            r = PQexecParams(c, "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int[])",
                             1, NULL, params, NULL, NULL, 0);
            left = PQresultStatus(r) == PGRES_TUPLES_OK ? atol(PQgetvalue(r, 0, 0)) : -1;
            PQclear(r);
        }
    }
    PQfinish(c);
    tk_sleep_ms(100); /* the link passes on the FATAL message and the end */
    return left == 0;
}

/* Whether the daemon's log says that a connection was found ended while idle, with `why`. */
static bool ended_logged(const struct setup *s, const char *why)
{
    char needle[200];
    snprintf(needle, sizeof needle, "connection lost (ended while idle: %s)", why);
    char *log = tk_slurp(s->d.log);
    bool found = log && strstr(log, needle);
    free(log);
    return found;
}

/* The Allies' roll on `c`, sent once with Idempotency-Key `idem`, is made (201): `rolls` rolls
 * in the database after it. */
static void roll_done(const struct setup *s, const struct camp *c, const char *idem, long rolls)
{
    struct http_resp *r = roll(s, c, true, idem);
    CU_ASSERT_EQUAL(r->status, 201);
    if (r->status != 201)
        fprintf(stderr, "\nroll %s: %ld %s\n", idem, r->status, r->body);
    http_free(r);
    CU_ASSERT_EQUAL(sql_long(s->db, "SELECT count(*) FROM rolls"), rolls);
}

/* The server ended m44d's idle connection, as a restart does, or a pooler whose server crashed,
 * before the next request. A roll on a campaign held in memory was sent into the ended link,
 * and was answered 503 outcome-unknown ("it may or may not have been done") though nothing had
 * reached the server: after a restart, the first write on every connection. Now the ended link
 * is seen before anything is sent, and the roll is done on a new one. */
static void test_link_ended_while_idle(void)
{
    struct setup s;
    /* As deployed: a write checked against a load in its transaction (--check-state, on in the
     * suites) would read before it writes, and meet the ended link in time to run again. */
    struct pgcut *cut = start_cut(&s, "abuse_ended", "--check-state=off");
    CU_ASSERT_FATAL(cut != NULL);
    /* Three campaigns held in memory, one for each way a link ends: a roll on one sends all
     * its statements, COMMIT with them, in one round trip (nothing is read before). */
    struct camp c[3];
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_FATAL(create(&s, &c[i]));
        CU_ASSERT_EQUAL(battle(&s, &c[i]), 201);
    }
    /* PostgreSQL ends the connection: its FATAL message, then the end of the link. */
    CU_ASSERT(end_links(s.db));
    roll_done(&s, &c[0], "ended-1", 1);
    CU_ASSERT(ended_logged(&s, "terminating connection due to administrator command"));
    /* PgBouncer's own FATAL (no untranslated severity), the end of the link not come yet. */
    CU_ASSERT(pgcut_say_fatal(cut));
    roll_done(&s, &c[1], "ended-2", 2);
    CU_ASSERT(ended_logged(&s, "server conn crashed?"));
    /* Ended again, and now every new link is broken at its first statement, as PgBouncer does
     * while its server is down (it takes the login itself). The roll, sent on a new link with
     * its COMMIT and broken, was "maybe done". Its COMMIT now waits until something has come
     * back on the link: broken before, the roll surely was not made, and says so. */
    CU_ASSERT(end_links(s.db));
    pgcut_break(cut, "begin"); /* BEGIN's prepared statement, in every transaction */
    struct http_resp *r = roll(&s, &c[2], true, "ended-3");
    CU_ASSERT_EQUAL(r->status, 503);
    CU_ASSERT_STRING_EQUAL(code_of(r), "database-unavailable");
    CU_ASSERT_PTR_NOT_NULL(strstr(r->body, "nothing was changed"));
    http_free(r);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM rolls"), 2);
    /* The server back: the same request with the same key rolls, once. */
    pgcut_break(cut, "");
    roll_done(&s, &c[2], "ended-3", 3);
    stop(&s);
    pgcut_stop(cut);
}

/* A read-only database gave 500 on every write while /readyz said 200. */
static void test_read_only(void)
{
    struct setup s;
    CU_ASSERT_FATAL(start(&s, "abuse_readonly", NULL));
    struct camp c;
    CU_ASSERT_FATAL(create(&s, &c));
    CU_ASSERT_EQUAL(battle(&s, &c), 201);
    PGconn *p = PQconnectdb(s.db);
    char sql[512];
    snprintf(sql, sizeof sql,
             "ALTER DATABASE %s SET default_transaction_read_only = on; SELECT "
             "pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
             "'%s' AND pid <> "
             "pg_backend_pid()",
             PQdb(p), PQdb(p));
    CU_ASSERT(sql_exec(s.db, sql));
    struct http_resp *r = roll(&s, &c, true, "read-only-1");
    CU_ASSERT_EQUAL(r->status, 503);
    CU_ASSERT_STRING_EQUAL(code_of(r), "database-read-only");
    http_free(r);
    r = req(&s, "GET", "/readyz", NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 503);
    CU_ASSERT_STRING_EQUAL(code_of(r), "database-read-only");
    http_free(r);
    /* Reads are still served. */
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s", c.id);
    r = req(&s, "GET", path, NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    CU_ASSERT_EQUAL(sql_long(s.db, "SELECT count(*) FROM rolls"), 0);
    CU_ASSERT_EQUAL(daemon_metric(&s.d,
                                  "m44d_http_requests_total{method=\"POST\",route=\"/api/v1/"
                                  "campaigns/{id}/battles/{n}/reserve-roll\",status=\"500\"}"),
                    -1);
    /* Writable again: the same request goes through, and readiness comes back. */
    snprintf(sql, sizeof sql,
             "ALTER DATABASE %s RESET default_transaction_read_only; SELECT "
             "pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
             "'%s' AND pid <> "
             "pg_backend_pid()",
             PQdb(p), PQdb(p));
    PQfinish(p);
    char *admin = tk_conninfo("postgres"); /* the read-only database cannot change itself */
    CU_ASSERT(sql_exec(admin, sql));
    free(admin);
    r = roll(&s, &c, true, "read-only-1");
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    r = req(&s, "GET", "/readyz", NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    stop(&s);
}

/* ---- malformed requests ---- */

/* Each gets a reply (400/431) and the connection closes; none waits for the
 * timeout. */
static void test_malformed(void)
{
    struct setup s;
    CU_ASSERT_FATAL(start(&s, "abuse_malformed", NULL));
    char args[8000] = "GET /healthz?";
    /* More than m44d's 32 (a head small enough for --conn-memory: this is m44d's rule). */
    for (int i = 0; i < 40 && strlen(args) < sizeof args - 16; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), "%sa%d", i ? "&" : "", i);
    strcat(args, " HTTP/1.1\r\nHost: x\r\n\r\n");
    char big_header[80000];
    snprintf(big_header, sizeof big_header, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ");
    size_t at = strlen(big_header);
    memset(big_header + at, 'b', 70000);
    snprintf(big_header + at + 70000, sizeof big_header - at - 70000, "\r\n\r\n");
    struct {
        const char *what, *text;
        int status;
    } cases[] = {
        {"unknown Transfer-Encoding",
         "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: "
         "application/json\r\n"
         "Transfer-Encoding: gzip\r\n\r\n{}",
         400},
        {"Transfer-Encoding and Content-Length",
         "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: "
         "application/json\r\n"
         "Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n0\r\n\r\n",
         400},
        {"two Content-Lengths",
         "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
         "Content-Length: 7\r\n\r\n{}",
         400},
        /* Two keys, or two types of body: a proxy in front may have read the other one. */
        {"two Authorizations",
         "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
         "Authorization: Bearer b\r\nContent-Type: application/json\r\nContent-Length: "
         "2\r\n\r\n{}",
         400},
        {"two Content-Types",
         "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
         "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
         400},
        {"40 query arguments", args, 400},
        /* libmicrohttpd answers this one itself, before m44d sees the request. */
        {"malformed Content-Length",
         "POST /api/v1/campaigns HTTP/1.1\r\nHost: x\r\nContent-Length: "
         "12x\r\n\r\n{}",
         400},
        {"a 70 KB header", big_header, 431},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int fd = raw_send(&s, NULL, cases[i].text);
        char buf[65536];
        int status = raw_status(fd, buf, sizeof buf, 3000);
        if (status != cases[i].status)
            fprintf(stderr, "%s: got %d: %.200s\n", cases[i].what, status, buf);
        CU_ASSERT_EQUAL(status, cases[i].status);
        /* ... and the connection is closed after it (tcp_read_all read up to the
         * end). */
        CU_ASSERT(tcp_closed_within(fd, 1000));
        close(fd);
    }
    struct http_resp *r = req(&s, "GET", "/healthz", NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    stop(&s);
}

/* The files a process has open (its /proc/PID/fd entries), or -1; their numbers below 65,536
 * marked in `used` when it is not NULL. */
#define FD_NUMBERS 65536
static int open_files(pid_t pid, bool *used)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        long fd = atol(e->d_name);
        if (used && fd >= 0 && fd < FD_NUMBERS)
            used[fd] = true;
    }
    closedir(d);
    return n;
}

/* The open-files limit that leaves a process room for `n` files more: a new file takes the
 * lowest number free, and the limit bounds the numbers. 0 when it cannot be read. */
static rlim_t files_limit_for(pid_t pid, int n)
{
    static bool used[FD_NUMBERS];
    memset(used, 0, sizeof used);
    if (open_files(pid, used) < 0)
        return 0;
    for (int fd = 0, free_seen = 0; fd < FD_NUMBERS; fd++)
        if (!used[fd] && free_seen++ == n)
            return (rlim_t)fd;
    return 0;
}

/* Out of open files, a new client waited in the listen queue and m44d went on accepting once
 * a connection closed (libmicrohttpd did this itself before m44d accepted on its own socket):
 * the client is then answered, the pause counted and said in the log. */
static void test_out_of_files(void)
{
    struct setup s;
    CU_ASSERT_FATAL(start(&s, "abuse_files", NULL));
    /* Settled: the database workers connected, every thread started. */
    struct http_resp *r = req(&s, "GET", "/readyz", NULL, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    /* ... and its files as they stay (the reply's connection closed on its side). */
    int base = open_files(s.d.pid, NULL), was = -1;
    for (int i = 0; i < 50 && base != was; i++) {
        tk_sleep_ms(200);
        was = base;
        base = open_files(s.d.pid, NULL);
    }
    CU_ASSERT_FATAL(base > 0);
    /* Room for two connections more. */
    struct rlimit old, lim;
    CU_ASSERT_FATAL(prlimit(s.d.pid, RLIMIT_NOFILE, NULL, &old) == 0);
    lim = old;
    lim.rlim_cur = files_limit_for(s.d.pid, 2);
    CU_ASSERT_FATAL(lim.rlim_cur > 0);
    CU_ASSERT_FATAL(prlimit(s.d.pid, RLIMIT_NOFILE, &lim, NULL) == 0);
    int held[2];
    for (int i = 0; i < 2; i++)
        held[i] = tcp_connect(s.d.port);
    for (int i = 0; i < 50 && open_files(s.d.pid, NULL) < base + 2; i++)
        tk_sleep_ms(100);
    CU_ASSERT_EQUAL(open_files(s.d.pid, NULL), base + 2);
    /* A third client waits: not answered, not refused. */
    int fd = raw_send(&s, NULL, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    CU_ASSERT_FATAL(fd >= 0);
    char buf[4096];
    CU_ASSERT_EQUAL(raw_status(fd, buf, sizeof buf, 1000), 0);
    /* One closes: the waiting client is taken and answered. */
    close(held[0]);
    CU_ASSERT_EQUAL(raw_status(fd, buf, sizeof buf, 5000), 200);
    close(fd);
    close(held[1]);
    CU_ASSERT_FATAL(prlimit(s.d.pid, RLIMIT_NOFILE, &old, NULL) == 0);
    CU_ASSERT(daemon_metric(&s.d, "m44d_accept_pauses_total") >= 1);
    char *log = tk_slurp(s.d.log);
    CU_ASSERT(log && strstr(log, "cannot accept connections: Too many open files"));
    free(log);
    stop(&s);
}

static void register_abuse(void)
{
    CU_pSuite s = CU_add_suite("abuse", NULL, NULL);
    CU_add_test(s, "a creation flood: 429 with Retry-After after the burst, per client",
                test_creation_flood);
    CU_add_test(s, "a body that is not JSON: 415, nothing created", test_not_json);
    CU_add_test(s, "texts over their maximum: 400 naming the field, nothing stored",
                test_text_limits);
    CU_add_test(s, "exports and imports: own workers, a bounded queue, the creation limit",
                test_heavy_bounded);
    CU_add_test(s, "a head sent a byte at a time is cut at --head-timeout", test_slow_head);
    CU_add_test(s, "idle connections filling the slots: the longest idle are cut for a new one",
                test_idle_crowd);
    CU_add_test(s, "out of open files: a new client waits and is then served", test_out_of_files);
    CU_add_test(s, "long polls whose clients hung up are freed at once", test_hung_up_polls);
    CU_add_test(s, "parked polls capped per client and in all; health and writes go on",
                test_parked_caps);
    CU_add_test(s, "behind a trusted proxy: clients told apart, logged, not capped as one",
                test_trusted_proxy);
    CU_add_test(s, "IPv6: a /64 is one client, the /64s of a /48 share a creation limit",
                test_ipv6_site);
    CU_add_test(s, "a COMMIT whose answer is lost: outcome-unknown, the key finds the roll",
                test_lost_commit);
    CU_add_test(s,
                "a database link broken at every statement (a pooler, its server down): "
                "reads 503, never 500",
                test_broken_at_each_statement);
    CU_add_test(s, "a database link ended while idle, or new and broken: done, or surely not done",
                test_link_ended_while_idle);
    CU_add_test(s, "a read-only database: 503 and /readyz 503, never 500", test_read_only);
    CU_add_test(s, "malformed requests: a reply and a clean close", test_malformed);
}

int main(void)
{
    const tk_register_fn regs[] = {register_abuse};
    return tk_run("abuse", regs, 1);
}
