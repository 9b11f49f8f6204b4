#include "tests/api/client.h"

#include "tests/common/testkit.h"

#include <CUnit/CUnit.h>
#include <CUnit/TestRun.h>
#include <ctype.h>
#include <libpq-fe.h>
#include <sodium.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

struct daemon api_daemon;
char *api_conninfo;

double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void *long_poll_thread(void *arg)
{
    struct poll_arg *p = arg;
    char path[256];
    char id[sizeof p->c->id];
    snprintf(id, sizeof id, "%s", p->c->id);
    for (char *ch = id; p->capitals && *ch; ch++)
        *ch = (char)toupper((unsigned char)*ch);
    snprintf(path, sizeof path, "/api/v1/campaigns/%s?wait=%d", id, p->wait);
    const char *h[] = {p->inm, NULL};
    double t0 = mono_seconds();
    struct http_resp *r = api(p->d, "GET", path, NULL, ANYONE, NULL, h);
    p->done_at = mono_seconds();
    p->seconds = p->done_at - t0;
    p->status = r->status;
    p->version = r->status == 200 ? http_int(r, "version") : -1;
    http_free(r);
    return NULL;
}

struct http_resp *api(const struct daemon *d, const char *method, const char *path,
                      const struct camp *c, enum who who, const char *body,
                      const char *const *headers)
{
    char url[512], auth[128];
    snprintf(url, sizeof url, "%s%s", d->base, path);
    const char *h[16];
    int n = 0;
    if (c && who != ANYONE) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", c->key[who]);
        h[n++] = auth;
    }
    for (const char *const *p = headers; p && *p && n < 14; p++)
        h[n++] = *p;
    h[n] = NULL;
    return http_do(method, url, body, h);
}

bool camp_create(const struct daemon *d, const char *body, struct camp *c)
{
    memset(c, 0, sizeof *c);
    struct http_resp *r = api(d, "POST", "/api/v1/campaigns", NULL, ANYONE, body, NULL);
    if (r->status != 201)
        fprintf(stderr, "\ncreate failed (%ld): %s\n", r->status, r->body);
    if (CU_get_current_test()) /* also used by suite set-ups, outside any test */
        CU_ASSERT_EQUAL(r->status, 201);
    bool ok = r->status == 201;
    if (ok) {
        snprintf(c->id, sizeof c->id, "%s", http_str(r, "id"));
        snprintf(c->key[ORGANIZER], sizeof c->key[0], "%s", http_str(r, "organizer_key"));
        snprintf(c->key[ALLIES], sizeof c->key[0], "%s", http_str(r, "allies_key"));
        snprintf(c->key[AXIS], sizeof c->key[0], "%s", http_str(r, "axis_key"));
        snprintf(c->commitment, sizeof c->commitment, "%s", http_str(r, "seed_commitment"));
    }
    http_free(r);
    return ok;
}

struct http_resp *camp_post(const struct daemon *d, const struct camp *c, enum who who,
                            const char *suffix, const char *body)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s%s", c->id, suffix);
    return api(d, "POST", path, c, who, body ? body : "{}", NULL);
}

struct http_resp *camp_get(const struct daemon *d, const struct camp *c, const char *suffix)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s%s", c->id, suffix);
    return api(d, "GET", path, NULL, ANYONE, NULL, NULL);
}

long long camp_version(const struct daemon *d, const struct camp *c)
{
    struct http_resp *r = camp_get(d, c, "");
    long long v = r->status == 200 ? http_int(r, "version") : -1;
    http_free(r);
    return v;
}

void expect_status(struct http_resp *r, long status, const char *what)
{
    if (r->status != status)
        fprintf(stderr, "\n%s: expected %ld, got %ld %s\n", what, status, r->status, r->body);
    CU_ASSERT_EQUAL(r->status, status);
    http_free(r);
}

void camp_copy_to(const struct daemon *to, const struct camp *c)
{
    struct http_resp *r = camp_get(&api_daemon, c, "/export");
    struct http_resp *imp =
        api(to, "POST", "/api/v1/campaigns/import", NULL, ANYONE, r->body, NULL);
    if (imp->status != 201)
        fprintf(stderr, "\nimport: %s\n", imp->body);
    CU_ASSERT_EQUAL(imp->status, 201);
    http_free(imp);
    http_free(r);
}

int other_daemon_start(struct daemon *d, char **db, const char *prefix)
{
    *db = tk_new_database(prefix);
    return *db && daemon_start(d, *db, NULL) ? 0 : 1;
}

int other_daemon_stop(struct daemon *d, char **db)
{
    int st = daemon_stop(d, SIGTERM, 30);
    free(*db);
    *db = NULL;
    return st == 0 ? 0 : 1;
}

void assert_problem(const struct http_resp *r, long status, const char *code)
{
    char ct[128];
    if (r->status != status || strcmp(http_str(r, "code"), code) != 0)
        fprintf(stderr, "\nexpected %ld %s, got %ld %s\n", status, code, r->status, r->body);
    CU_ASSERT_EQUAL(r->status, status);
    CU_ASSERT_PTR_NOT_NULL(http_header(r, "Content-Type", ct, sizeof ct));
    CU_ASSERT_STRING_EQUAL(ct, "application/problem+json");
    CU_ASSERT_STRING_EQUAL(http_str(r, "code"), code);
    CU_ASSERT_EQUAL(http_int(r, "status"), status);
    CU_ASSERT(strlen(http_str(r, "title")) > 0 && strlen(http_str(r, "detail")) > 0);
    if (status == 401) { /* API.md: 401 replies carry WWW-Authenticate: Bearer */
        char auth[128] = "";
        CU_ASSERT_PTR_NOT_NULL(http_header(r, "WWW-Authenticate", auth, sizeof auth));
        CU_ASSERT(strncmp(auth, "Bearer", 6) == 0);
    }
}

char *jstr(json_t *j)
{
    return json_dumps(j, JSON_COMPACT);
}

long sql_long(const char *sql)
{
    return sql_long_on(api_conninfo, sql);
}

bool sql_exec_on(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQexec(c, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        fprintf(stderr, "\nSQL failed: %s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    return ok;
}

long sql_long_on(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r = PQexec(c, sql);
    long v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)
                 ? atol(PQgetvalue(r, 0, 0))
                 : -1;
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fprintf(stderr, "\nSQL failed: %s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    return v;
}

void derive_faces(const uint8_t seed[32], const char *cid, long n, const char *cs, int count,
                  const char **out)
{
    static const char *const faces[6] = {"infantry", "infantry", "armor",
                                         "grenade",  "star",     "flag"};
    int got = 0;
    for (long k = 0; got < count; k++) {
        char msg[256];
        int len = snprintf(msg, sizeof msg, "%s:%ld:%s:%ld", cid, n, cs, k);
        uint8_t mac[32];
        crypto_auth_hmacsha256_state st;
        crypto_auth_hmacsha256_init(&st, seed, 32);
        crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, (unsigned long long)len);
        crypto_auth_hmacsha256_final(&st, mac);
        for (int i = 0; i < 32 && got < count; i++)
            if (mac[i] < 252)
                out[got++] = faces[mac[i] % 6];
    }
}

int m44_verify(const char *json_text, char **out)
{
    char path[512], cmd[1200];
    tk_out_path("verify-export.json", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(json_text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s/m44' verify '%s' 2>&1", tk_env("M44_TEST_BIN"), path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    static char buf[262144];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
