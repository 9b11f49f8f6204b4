/*
 * Fault tests (make test-faults): m44d killed with SIGKILL again and again while clients roll
 * and choose with Idempotency-Keys and retry; PostgreSQL restarted under load; two m44d
 * processes on one database. At the end, SQL checks that nothing was lost, doubled or skipped.
 */
#include "tests/common/daemon.h"
#include "tests/common/http.h"
#include "tests/common/testkit.h"

#include <curl/curl.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DAEMONS   2
#define MAX_CAMPAIGNS 8
#define MAX_RECORDS   4096

static const char *const SIDES[2] = {"allies", "axis"};

/* ---- the servers, which may be killed and restarted under the clients ---- */

struct cluster {
    struct daemon d[MAX_DAEMONS];
    int port[MAX_DAEMONS];
    int n;
    char *conninfo;
};

static struct cluster cl;

static void base_url(int i, char *buf, size_t len)
{
    snprintf(buf, len, "http://127.0.0.1:%d", cl.port[i]);
}

/* ---- what the clients saw succeed ---- */

struct record {
    char campaign[40];
    long n;
    char side[8];
    char faces[1400]; /* up to RULES_MAX_DICE faces as JSON */
    /* the request, to send again with its Idempotency-Key at the end */
    char path[160], body[64], key[64], idem[64];
};

static struct record records[MAX_RECORDS];
static atomic_int nrecords;
static atomic_int server_errors; /* 500s: never acceptable */

/*
 * Sends a request until it gets a definite answer: on a transport error or 503 (the daemon or
 * the database is down) it waits and sends the very same request again, with the same
 * Idempotency-Key, to the next daemon.
 */
static struct http_resp *send_until_answered(const char *method, const char *path, const char *key,
                                             const char *body, int *rr, char idem_key[64])
{
    char idem[80], auth[128], url[512];
    if (!idem_key[0]) {
        uint8_t raw[16]; /* a creation's key must be 32 characters or more */
        randombytes_buf(raw, sizeof raw);
        char hex[33];
        sodium_bin2hex(hex, sizeof hex, raw, sizeof raw);
        snprintf(idem_key, 64, "fault-%s", hex);
    }
    snprintf(idem, sizeof idem, "Idempotency-Key: %s", idem_key);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", key ? key : "");
    const char *headers[] = {idem, key ? auth : NULL, NULL};
    for (int attempt = 0; attempt < 600; attempt++) {
        char base[64];
        base_url((*rr)++ % cl.n, base, sizeof base);
        snprintf(url, sizeof url, "%s%s", base, path);
        struct http_resp *r = http_do(method, url, body, headers);
        if (r->status == 500)
            atomic_fetch_add(&server_errors, 1);
        if (r->status != 0 && r->status != 503 && r->status != 500)
            return r;
        http_free(r);
        tk_sleep_ms(50 + attempt % 5 * 20);
    }
    return NULL;
}

struct player {
    int index;
    char id[40];
    char key[3][64]; /* organizer, allies, axis */
    int tokens[2];
    int battles; /* battles per campaign */
    int done;    /* battles finished in the current campaign */
    int total;   /* battles finished in all its campaigns */
    int campaigns;
    bool ok;
    int rr;
    char idem[64]; /* the Idempotency-Key of the last request */
};

/* Every campaign played, with the battles its player saw finish. */
static struct {
    char id[40];
    int done;
} played[1024];
static atomic_int nplayed;

static bool post(struct player *p, int who, const char *suffix, const char *body, long want,
                 struct http_resp **out)
{
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s%s", p->id, suffix);
    p->idem[0] = '\0';
    struct http_resp *r = send_until_answered("POST", path, p->key[who], body, &p->rr, p->idem);
    if (!r || r->status != want) {
        fprintf(stderr, "\n[player %d] POST %s: %ld %s\n", p->index, suffix, r ? r->status : -1,
                r ? r->body : "(no answer)");
        http_free(r);
        return false;
    }
    if (out)
        *out = r;
    else
        http_free(r);
    return true;
}

static void remember_roll(struct player *p, int who, const char *suffix, const char *body,
                          struct http_resp *r)
{
    int i = atomic_fetch_add(&nrecords, 1);
    if (i >= MAX_RECORDS)
        return;
    struct record *rec = &records[i];
    snprintf(rec->campaign, sizeof rec->campaign, "%s", p->id);
    snprintf(rec->path, sizeof rec->path, "/api/v1/campaigns/%s%s", p->id, suffix);
    snprintf(rec->body, sizeof rec->body, "%s", body);
    snprintf(rec->key, sizeof rec->key, "%s", p->key[who]);
    snprintf(rec->idem, sizeof rec->idem, "%s", p->idem);
    rec->n = (long)http_int(r, "roll");
    snprintf(rec->side, sizeof rec->side, "%s", http_str(r, "side"));
    char *faces = json_dumps(http_json_at(r, "faces"), JSON_COMPACT);
    snprintf(rec->faces, sizeof rec->faces, "%s", faces ? faces : "");
    free(faces);
}

/* Plays one battle: rolls, choices (the first affordable option), result. */
static bool play_battle(struct player *p, int n)
{
    char body[256], suffix[128];
    snprintf(body, sizeof body,
             "{\"scenario\":\"Battle %d\",\"first_player\":\"%s\",\"cards\":{\"allies\":5,"
             "\"axis\":5},\"medals_to_win\":5}",
             n, SIDES[n % 2]);
    if (!post(p, 0, "/battles", body, 201, NULL))
        return false;
    int units[2] = {0, 0};
    for (int s = 0; s < 2 && n > 1; s++) {
        struct http_resp *r;
        snprintf(suffix, sizeof suffix, "/battles/%d/victory-events", n);
        if (!post(p, 1 + s, suffix, "{\"client_seed\":\"fault\"}", 201, &r))
            return false;
        remember_roll(p, 1 + s, suffix, "{\"client_seed\":\"fault\"}", r);
        http_free(r);
    }
    for (int s = 0; s < 2; s++) {
        struct http_resp *r;
        snprintf(suffix, sizeof suffix, "/battles/%d/reserve-roll", n);
        if (!post(p, 1 + s, suffix, "{}", 201, &r))
            return false;
        remember_roll(p, 1 + s, suffix, "{}", r);
        json_t *opts = http_json_at(r, "options");
        json_t *pick = NULL;
        for (size_t i = 0; i < json_array_size(opts) && !pick; i++) {
            json_t *o = json_array_get(opts, i);
            if (json_integer_value(json_array_get(json_object_get(o, "costs"), 0)) <= p->tokens[s])
                pick = o;
        }
        json_t *choice = json_pack("{s:[]}", "options");
        /* A unit paid for (so called up) is one the side could not place (RULES.md 2). */
        units[s] =
            pick && json_integer_value(json_array_get(json_object_get(pick, "costs"), 0)) > 0;
        if (pick)
            json_array_append_new(json_object_get(choice, "options"),
                                  json_pack("{s:O, s:O}", "id", json_object_get(pick, "id"),
                                            "grant",
                                            json_array_get(json_object_get(pick, "grants"), 0)));
        char *cb = json_dumps(choice, JSON_COMPACT);
        json_decref(choice);
        http_free(r);
        snprintf(suffix, sizeof suffix, "/battles/%d/reserve-choice", n);
        bool ok = post(p, 1 + s, suffix, cb, 200, &r);
        free(cb);
        if (!ok)
            return false;
        p->tokens[s] = (int)http_int(r, "reserve_tokens");
        http_free(r);
    }
    snprintf(body, sizeof body,
             "{\"winner\":\"%s\",\"medals\":{\"allies\":%d,\"axis\":%d},"
             "\"undeployed_reserves\":{\"allies\":%d,\"axis\":%d}}",
             SIDES[n % 2], n % 2 ? 2 : 5, n % 2 ? 5 : 2, units[0], units[1]);
    snprintf(suffix, sizeof suffix, "/battles/%d/result", n);
    struct http_resp *r;
    if (!post(p, 0, suffix, body, 200, &r))
        return false;
    p->tokens[0] = (int)http_int(r, "reserve_tokens.allies");
    p->tokens[1] = (int)http_int(r, "reserve_tokens.axis");
    http_free(r);
    return true;
}

/* Players start no new battle after this time (CLOCK_MONOTONIC seconds). */
static double deadline;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool create_campaign(struct player *p);

/* Campaigns of p->battles battles, one after another, each finished, until the deadline. */
static void *player_main(void *arg)
{
    struct player *p = arg;
    p->ok = true;
    while (p->ok && now_s() < deadline) {
        if (!create_campaign(p)) {
            p->ok = false;
            break;
        }
        for (int n = 1; n <= p->battles && p->ok && now_s() < deadline; n++) {
            p->ok = play_battle(p, n);
            if (p->ok)
                p->done = n;
        }
        if (p->ok)
            p->ok = post(p, 0, "/finish", "{}", 200, NULL);
        int i = atomic_fetch_add(&nplayed, 1);
        if (i < 1024) {
            snprintf(played[i].id, sizeof played[i].id, "%s", p->id);
            played[i].done = p->done;
        }
        p->total += p->done;
        p->campaigns++;
    }
    return NULL;
}

static bool create_campaign(struct player *p)
{
    p->done = 0;
    p->tokens[0] = 3;
    p->tokens[1] = 2;
    p->idem[0] = '\0';
    struct http_resp *r = send_until_answered("POST", "/api/v1/campaigns", NULL,
                                              "{\"name\":\"fault\",\"ruleset\":\"standard\","
                                              "\"reserve_tokens\":{\"allies\":3,\"axis\":2}}",
                                              &p->rr, p->idem);
    bool ok = r && r->status == 201;
    if (ok) {
        snprintf(p->id, sizeof p->id, "%s", http_str(r, "id"));
        snprintf(p->key[0], sizeof p->key[0], "%s", http_str(r, "organizer_key"));
        snprintf(p->key[1], sizeof p->key[1], "%s", http_str(r, "allies_key"));
        snprintf(p->key[2], sizeof p->key[2], "%s", http_str(r, "axis_key"));
    }
    http_free(r);
    return ok;
}

/* ---- the invariants, in SQL ---- */

static long q(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    long v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)
                 ? atol(PQgetvalue(r, 0, 0))
                 : -999;
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fprintf(stderr, "\n%s\n%s", sql, PQerrorMessage(c));
    PQclear(r);
    return v;
}

static void check_invariants(void)
{
    PGconn *c = PQconnectdb(cl.conninfo);
    CU_ASSERT_FATAL(PQstatus(c) == CONNECTION_OK);
    /* Per campaign, roll numbers are 1..N with no gap (primary key: no duplicate). */
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM (SELECT campaign_id FROM rolls GROUP BY "
                         "campaign_id HAVING count(*) <> max(n) OR min(n) <> 1) gaps"),
                    0);
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM campaigns c WHERE next_roll - 1 <> (SELECT "
                         "count(*) FROM rolls r WHERE r.campaign_id = c.id)"),
                    0);
    /* Every roll was made by a request a client saw succeed (each carried an Idempotency-Key),
     * so there are as many rolls as acknowledged roll requests: a key that had rolled twice
     * would leave one more. The stored responses are sealed (nothing to read in SQL): each
     * key's is checked below by sending its request again. */
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM rolls"), atomic_load(&nrecords));
    /* Tokens: start + changes = now, never negative; spends match the choices. */
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM campaigns c, LATERAL (SELECT coalesce(sum(delta) "
                         "FILTER (WHERE side = 'allies'), 0) a, coalesce(sum(delta) FILTER (WHERE "
                         "side = 'axis'), 0) x FROM token_ledger l WHERE l.campaign_id = c.id) s "
                         "WHERE s.a <> c.tokens_allies OR s.x <> c.tokens_axis"),
                    0);
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM token_ledger WHERE balance < 0"), 0);
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM campaigns c WHERE (SELECT coalesce(-sum(delta), 0) "
                         "FROM token_ledger l WHERE l.campaign_id = c.id AND reason = "
                         "'reserve_choice') <> (SELECT coalesce(sum(cost), 0) FROM reserve_choices "
                         "r WHERE r.campaign_id = c.id)"),
                    0);
    /* Every roll a client got a 2xx for is in the database, with the faces it was told. */
    int missing = 0;
    for (int i = 0; i < atomic_load(&nrecords) && i < MAX_RECORDS; i++) {
        const struct record *rec = &records[i];
        const char *params[] = {rec->campaign, rec->side};
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT array_to_json(faces)::text FROM rolls WHERE campaign_id = $1 AND "
                 "side = $2 AND n = %ld",
                 rec->n);
        PGresult *r = PQexecParams(c, sql, 2, NULL, params, NULL, NULL, 0);
        bool found = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
        if (found) {
            json_t *a = json_loads(PQgetvalue(r, 0, 0), 0, NULL),
                   *b = json_loads(rec->faces, 0, NULL);
            found = json_equal(a, b);
            json_decref(a);
            json_decref(b);
        }
        if (!found)
            fprintf(stderr, "\nnot in the database as acknowledged: campaign %s roll %ld %s %s\n",
                    rec->campaign, rec->n, rec->side, rec->faces);
        missing += !found;
        PQclear(r);
    }
    CU_ASSERT_EQUAL(missing, 0);
    /* Each roll request's Idempotency-Key answers for exactly one roll: sent again, it is the
     * first answer replayed, the same roll with the same faces, and no new roll. */
    long rolls_before = q(c, "SELECT count(*) FROM rolls");
    int not_replayed = 0, rr = 0;
    for (int i = 0; i < atomic_load(&nrecords) && i < MAX_RECORDS; i++) {
        struct record *rec = &records[i];
        struct http_resp *r =
            send_until_answered("POST", rec->path, rec->key, rec->body, &rr, rec->idem);
        char replayed[16], *faces = r ? json_dumps(http_json_at(r, "faces"), JSON_COMPACT) : NULL;
        bool same = r && r->status == 201 &&
                    http_header(r, "Idempotent-Replayed", replayed, sizeof replayed) &&
                    http_int(r, "roll") == rec->n && strcmp(http_str(r, "side"), rec->side) == 0 &&
                    faces && strcmp(faces, rec->faces) == 0;
        if (!same)
            fprintf(stderr, "\nroll %ld of %s: not replayed by its key: %ld %s\n", rec->n,
                    rec->campaign, r ? r->status : -1, r ? r->body : "");
        not_replayed += !same;
        free(faces);
        http_free(r);
    }
    CU_ASSERT_EQUAL(not_replayed, 0);
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM rolls"), rolls_before);
    /* Every campaign has the battles its player saw finish, and is finished. */
    for (int i = 0; i < atomic_load(&nplayed) && i < 1024; i++) {
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM battles WHERE campaign_id = '%.*s' AND phase = 'finished'",
                 (int)sizeof played[i].id - 1, played[i].id);
        CU_ASSERT_EQUAL(q(c, sql), played[i].done);
    }
    CU_ASSERT_EQUAL(q(c, "SELECT count(*) FROM campaigns WHERE status <> 'finished'"), 0);
    CU_ASSERT_EQUAL(atomic_load(&server_errors), 0);
    PQfinish(c);
}

/* ---- the scenarios ---- */

static void reset(int ndaemons)
{
    cl.conninfo = tk_new_database("faults");
    cl.n = ndaemons;
    atomic_store(&nrecords, 0);
    atomic_store(&nplayed, 0);
    atomic_store(&server_errors, 0);
    for (int i = 0; i < ndaemons; i++) {
        CU_ASSERT_FATAL(daemon_start(&cl.d[i], cl.conninfo, NULL));
        cl.port[i] = cl.d[i].port;
    }
}

struct join_arg {
    pthread_t *t;
    int n;
    volatile bool *done;
};

static void *join_all(void *arg)
{
    struct join_arg *ja = arg;
    for (int i = 0; i < ja->n; i++)
        pthread_join(ja->t[i], NULL);
    *ja->done = true;
    return NULL;
}

/* Runs the players to the end; `during` (on this thread) disturbs them until they are done. */
static void run_players(struct player *players, int n, void (*during)(volatile bool *done),
                        double seconds)
{
    deadline = now_s() + seconds;
    pthread_t t[MAX_CAMPAIGNS], joiner;
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, player_main, &players[i]);
    volatile bool done = false;
    struct join_arg ja = {t, n, &done};
    pthread_create(&joiner, NULL, join_all, &ja);
    if (during)
        during(&done);
    pthread_join(joiner, NULL);
}

static int kills;

/* SIGKILL a daemon every 0.7 to 1.7 s and start it again on the same port. */
static void killer(volatile bool *done)
{
    int which = 0;
    while (!*done) {
        tk_sleep_ms(400 + (long)randombytes_uniform(800));
        if (*done)
            break;
        int i = which++ % cl.n;
        kill(cl.d[i].pid, SIGKILL);
        daemon_stop(&cl.d[i], SIGKILL, 5);
        kills++;
        CU_ASSERT_FATAL(daemon_start_port(&cl.d[i], cl.conninfo, cl.port[i], NULL));
    }
}

static void stop_all(void)
{
    for (int i = 0; i < cl.n; i++)
        CU_ASSERT_EQUAL(daemon_stop(&cl.d[i], SIGTERM, 30), 0);
}

static void test_kill9(void)
{
    reset(1);
    enum { N = 6 };
    struct player players[N] = {0};
    for (int i = 0; i < N; i++)
        players[i] = (struct player){.index = i, .battles = 10};
    kills = 0;
    run_players(players, N, killer, 12);
    for (int i = 0; i < N; i++)
        CU_ASSERT_TRUE(players[i].ok);
    CU_ASSERT(kills >= 3);
    int battles = 0;
    for (int i = 0; i < N; i++)
        battles += players[i].total;
    printf("\n    (%d SIGKILLs, %d campaigns, %d battles, %d rolls acknowledged)\n", kills,
           atomic_load(&nplayed), battles, atomic_load(&nrecords));
    check_invariants(); /* the daemons still run: the checks send requests again */
    stop_all();
    free(cl.conninfo);
}

static long readyz(void)
{
    char url[128];
    base_url(0, url, sizeof url);
    strcat(url, "/readyz");
    struct http_resp *r = http_do("GET", url, NULL, NULL);
    long st = r->status;
    http_free(r);
    return st;
}

static bool saw_503, saw_200_after;

static void restart_postgres(volatile bool *done)
{
    (void)done;
    tk_sleep_ms(800);
    CU_ASSERT_FATAL(tk_pg("stop"));
    for (int i = 0; i < 20 && !saw_503; i++) {
        saw_503 = readyz() == 503;
        tk_sleep_ms(100);
    }
    tk_sleep_ms(1500);
    CU_ASSERT_FATAL(tk_pg("start"));
    for (int i = 0; i < 100 && !saw_200_after; i++) {
        saw_200_after = readyz() == 200;
        tk_sleep_ms(100);
    }
}

static void test_postgres_restart(void)
{
    reset(1);
    enum { N = 4 };
    struct player players[N] = {0};
    for (int i = 0; i < N; i++)
        players[i] = (struct player){.index = i, .battles = 10};
    pid_t pid = cl.d[0].pid;
    saw_503 = saw_200_after = false;
    run_players(players, N, restart_postgres, 6);
    CU_ASSERT_TRUE(saw_503);
    CU_ASSERT_TRUE(saw_200_after);
    CU_ASSERT_EQUAL(cl.d[0].pid, pid); /* the same process: no crash */
    CU_ASSERT_EQUAL(kill(pid, 0), 0);
    for (int i = 0; i < N; i++)
        CU_ASSERT_TRUE(players[i].ok); /* every request eventually succeeded */
    check_invariants();                /* the daemons still run: the checks send requests again */
    stop_all();
    free(cl.conninfo);
}

static void test_two_daemons(void)
{
    reset(2);
    enum { N = 6 };
    struct player players[N] = {0};
    for (int i = 0; i < N; i++)
        players[i] = (struct player){.index = i, .battles = 10};
    kills = 0;
    /* Requests alternate between the two; one of them is killed now and then. */
    run_players(players, N, killer, 8);
    for (int i = 0; i < N; i++)
        CU_ASSERT_TRUE(players[i].ok);
    CU_ASSERT(kills >= 3);
    check_invariants(); /* the daemons still run: the checks send requests again */
    stop_all();
    free(cl.conninfo);
}

static void register_fault_tests(void)
{
    CU_pSuite s = CU_add_suite("faults", NULL, NULL);
    CU_add_test(s, "SIGKILL every second under load: nothing lost, doubled or skipped", test_kill9);
    CU_add_test(s, "PostgreSQL restarted under load: 503, then 200; retries succeed",
                test_postgres_restart);
    CU_add_test(s, "two m44d on one database, one killed now and then", test_two_daemons);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (sodium_init() < 0)
        return 1;
    const tk_register_fn suites[] = {register_fault_tests};
    int rc = tk_run("faults", suites, 1);
    curl_global_cleanup();
    return rc;
}
