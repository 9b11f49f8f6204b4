/*
 * Idempotency-Key, racing requests, long polling, and two daemons sharing one database.
 * Invariants: one roll per key, exactly one winner per race, roll numbers 1..N with no gap
 * and no duplicate.
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define THREADS 16

static const char *const SIDES[2] = {"allies", "axis"};

static long roll_count(const struct camp *c)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM rolls WHERE campaign_id = '%s'", c->id);
    return sql_long(sql);
}

/* Roll numbers run 1..N: as many rows as the largest number, and no duplicate (primary key). */
static void assert_contiguous(const struct camp *c, long want_n)
{
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT CASE WHEN count(*) = max(n) AND min(n) = 1 THEN count(*) ELSE -2 END "
             "FROM rolls WHERE campaign_id = '%s'",
             c->id);
    CU_ASSERT_EQUAL(sql_long(sql), want_n);
    snprintf(sql, sizeof sql, "SELECT next_roll - 1 FROM campaigns WHERE id = '%s'", c->id);
    CU_ASSERT_EQUAL(sql_long(sql), want_n);
}

static struct camp new_campaign(const char *ruleset, const char *dice)
{
    struct camp c;
    char body[256];
    snprintf(body, sizeof body, "{\"name\":\"race\",\"ruleset\":\"%s\",\"dice\":\"%s\"%s}", ruleset,
             dice,
             strcmp(ruleset, "simplified") ? ",\"reserve_tokens\":{\"allies\":5,\"axis\":5}" : "");
    CU_ASSERT(camp_create(&api_daemon, body, &c));
    return c;
}

static long battle(const struct daemon *d, const struct camp *c, int n)
{
    char body[200];
    snprintf(body, sizeof body,
             "{\"scenario\":\"Battle %d\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
             "\"axis\":5},\"medals_to_win\":5}",
             n);
    struct http_resp *r = camp_post(d, c, ORGANIZER, "/battles", body);
    long st = r->status;
    http_free(r);
    return st;
}

/* ---- idempotency ---- */

static void test_same_key_twice(void)
{
    struct camp c = new_campaign("standard", "server");
    CU_ASSERT_EQUAL(battle(&api_daemon, &c, 1), 201);
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/reserve-roll", c.id);
    const char *h[] = {"Idempotency-Key: roll-allies-1", NULL};
    struct http_resp *a = api(&api_daemon, "POST", path, &c, ALLIES, "{\"client_seed\":\"x\"}", h);
    struct http_resp *b = api(&api_daemon, "POST", path, &c, ALLIES, "{\"client_seed\":\"x\"}", h);
    CU_ASSERT_EQUAL(a->status, 201);
    CU_ASSERT_EQUAL(b->status, 201);
    CU_ASSERT_EQUAL(a->len, b->len);
    CU_ASSERT_EQUAL(memcmp(a->body, b->body, a->len), 0); /* byte for byte */
    char replayed[16];
    CU_ASSERT_PTR_NOT_NULL(http_header(b, "Idempotent-Replayed", replayed, sizeof replayed));
    CU_ASSERT_PTR_NULL(http_header(a, "Idempotent-Replayed", replayed, sizeof replayed));
    http_free(a);
    http_free(b);
    CU_ASSERT_EQUAL(roll_count(&c), 1);
    /* The same key for another request is refused, and changes nothing. */
    long long v = camp_version(&api_daemon, &c);
    struct http_resp *d = api(&api_daemon, "POST", path, &c, ALLIES, "{\"client_seed\":\"y\"}", h);
    assert_problem(d, 422, "idempotency-key-reused");
    http_free(d);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), v);
    CU_ASSERT_EQUAL(roll_count(&c), 1);
    /* Without a key, a repeat is a second request: refused, the side has rolled. */
    d = api(&api_daemon, "POST", path, &c, ALLIES, "{\"client_seed\":\"x\"}", NULL);
    assert_problem(d, 409, "already-done");
    http_free(d);
}

static void test_create_with_key(void)
{
    long before = sql_long("SELECT count(*) FROM campaigns");
    const char *body = "{\"name\":\"once\",\"ruleset\":\"standard\"}";
    /* An answer with keys: a short key could be guessed, so it is refused. */
    const char *shorter[] = {"Idempotency-Key: create-once-7", NULL};
    long stored = sql_long("SELECT count(*) FROM idempotency");
    struct http_resp *s =
        api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, shorter);
    assert_problem(s, 400, "invalid-parameter");
    CU_ASSERT_STRING_EQUAL(http_str(s, "field"), "Idempotency-Key");
    http_free(s);
    CU_ASSERT_EQUAL(sql_long("SELECT count(*) FROM campaigns"), before);
    CU_ASSERT_EQUAL(sql_long("SELECT count(*) FROM idempotency"), stored);
    const char *h[] = {"Idempotency-Key: 6f1c0e3a-create-once-5b2d-4c9e-8a71", NULL};
    struct http_resp *a = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
    struct http_resp *b = api(&api_daemon, "POST", "/api/v1/campaigns", NULL, ANYONE, body, h);
    CU_ASSERT_EQUAL(a->status, 201);
    CU_ASSERT_EQUAL(b->status, 201);
    CU_ASSERT_STRING_EQUAL(a->body, b->body);
    char la[256], lb[256];
    CU_ASSERT_PTR_NOT_NULL(http_header(a, "Location", la, sizeof la));
    CU_ASSERT_PTR_NOT_NULL(http_header(b, "Location", lb, sizeof lb));
    CU_ASSERT_STRING_EQUAL(la, lb);
    http_free(a);
    http_free(b);
    CU_ASSERT_EQUAL(sql_long("SELECT count(*) FROM campaigns"), before + 1);
}

struct shot {
    const struct daemon *d;
    const char *method, *path, *body;
    const struct camp *c;
    enum who who;
    const char *header;
    pthread_barrier_t *start;
    long status;
    char *body_out;
};

static void *fire(void *arg)
{
    struct shot *s = arg;
    const char *h[] = {s->header, NULL};
    pthread_barrier_wait(s->start);
    struct http_resp *r = api(s->d, s->method, s->path, s->c, s->who, s->body, h);
    s->status = r->status;
    s->body_out = strdup(r->body);
    http_free(r);
    return NULL;
}

/* Sends n requests at once (one thread each); returns how many got `ok_status`. */
static int race(struct shot *shots, int n, long ok_status)
{
    pthread_t t[64];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        shots[i].start = &start;
        pthread_create(&t[i], NULL, fire, &shots[i]);
    }
    int ok = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        ok += shots[i].status == ok_status;
    }
    pthread_barrier_destroy(&start);
    return ok;
}

static void free_shots(struct shot *shots, int n)
{
    for (int i = 0; i < n; i++)
        free(shots[i].body_out);
}

static void test_concurrent_same_key(void)
{
    struct camp c = new_campaign("standard", "server");
    CU_ASSERT_EQUAL(battle(&api_daemon, &c, 1), 201);
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/reserve-roll", c.id);
    struct shot shots[THREADS];
    for (int i = 0; i < THREADS; i++)
        shots[i] = (struct shot){
            &api_daemon, "POST", path, "{}", &c, AXIS, "Idempotency-Key: sixteen-at-once"};
    CU_ASSERT_EQUAL(race(shots, THREADS, 201), THREADS);
    for (int i = 1; i < THREADS; i++)
        CU_ASSERT_STRING_EQUAL(shots[i].body_out, shots[0].body_out);
    free_shots(shots, THREADS);
    CU_ASSERT_EQUAL(roll_count(&c), 1);
    assert_contiguous(&c, 1);
}

/* 16 threads race the same side's reserve choice: exactly one succeeds; one debit. */
static void test_racing_choices(void)
{
    struct camp c = new_campaign("standard", "table");
    CU_ASSERT_EQUAL(battle(&api_daemon, &c, 1), 201);
    struct http_resp *r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                                    "{\"faces\":[\"infantry\",\"armor\"]}");
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    char path[256];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/reserve-choice", c.id);
    struct shot shots[THREADS];
    for (int i = 0; i < THREADS; i++)
        shots[i] = (struct shot){
            &api_daemon, "POST",
            path,        "{\"options\":[{\"id\":\"infantry@0\"},{\"id\":\"armor@1\"}]}",
            &c,          ALLIES,
            NULL};
    CU_ASSERT_EQUAL(race(shots, THREADS, 200), 1);
    int already = 0;
    for (int i = 0; i < THREADS; i++)
        already += shots[i].status == 409 && strstr(shots[i].body_out, "already-done");
    CU_ASSERT_EQUAL(already, THREADS - 1);
    free_shots(shots, THREADS);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(http_int(r, "sides.allies.reserve_tokens"), 3); /* 5 - 2, once */
    http_free(r);
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM token_ledger WHERE campaign_id = '%s' AND reason = "
             "'reserve_choice'",
             c.id);
    CU_ASSERT_EQUAL(sql_long(sql), 1);
}

/*
 * A campaign played with every step raced by 16 threads (both sides at once where both may
 * act), on one daemon or alternating between two: one success per action, and the roll
 * numbers 1..N with no gap.
 */
static void race_campaign(const struct daemon *d1, const struct daemon *d2)
{
    struct camp c = new_campaign("standard", "server");
    long rolls = 0;
    char path[256];
    for (int n = 1; n <= 3; n++) {
        CU_ASSERT_EQUAL(battle(n % 2 ? d1 : d2, &c, n), 201);
        const char *steps[] = {n > 1 ? "victory-events" : NULL, "reserve-roll"};
        for (int st = 0; st < 2; st++) {
            if (!steps[st])
                continue;
            snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/%d/%s", c.id, n, steps[st]);
            struct shot shots[THREADS];
            for (int i = 0; i < THREADS; i++)
                shots[i] = (struct shot){i % 2 ? d1 : d2,           "POST", path, "{}", &c,
                                         i % 4 < 2 ? ALLIES : AXIS, NULL};
            CU_ASSERT_EQUAL(race(shots, THREADS, 201), 2); /* one per side */
            free_shots(shots, THREADS);
            rolls += 2;
        }
        snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/%d/reserve-choice", c.id, n);
        struct shot shots[THREADS];
        for (int i = 0; i < THREADS; i++)
            shots[i] =
                (struct shot){i % 2 ? d2 : d1,           "POST", path, "{\"options\":[]}", &c,
                              i % 4 < 2 ? ALLIES : AXIS, NULL};
        CU_ASSERT_EQUAL(race(shots, THREADS, 200), 2);
        free_shots(shots, THREADS);
        char body[128];
        snprintf(body, sizeof body, "{\"winner\":\"%s\",\"medals\":{\"allies\":%d,\"axis\":%d}}",
                 SIDES[n % 2], n % 2 ? 2 : 5, n % 2 ? 5 : 2);
        snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/%d/result", c.id, n);
        for (int i = 0; i < THREADS; i++)
            shots[i] = (struct shot){i % 2 ? d1 : d2, "POST", path, body, &c, ORGANIZER, NULL};
        CU_ASSERT_EQUAL(race(shots, THREADS, 200), 1);
        free_shots(shots, THREADS);
    }
    assert_contiguous(&c, rolls);
    struct http_resp *r = camp_get(d2, &c, "/rolls");
    CU_ASSERT_EQUAL(json_array_size(r->json), (size_t)rolls);
    for (size_t i = 0; i < json_array_size(r->json); i++)
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(r->json, i), "n")),
                        (json_int_t)i + 1);
    http_free(r);
}

static void test_racing_rolls_one_daemon(void)
{
    race_campaign(&api_daemon, &api_daemon);
}

static struct daemon second;

static void test_two_daemons(void)
{
    CU_ASSERT_FATAL(daemon_start(&second, api_conninfo, NULL));
    race_campaign(&api_daemon, &second);
    /* Alternating plain requests: each daemon sees the other's writes at once. */
    struct camp c = new_campaign("standard", "server");
    CU_ASSERT_EQUAL(battle(&second, &c, 1), 201);
    struct http_resp *r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll", "{}");
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    r = camp_post(&second, &c, ALLIES, "/battles/1/reserve-roll", "{}");
    assert_problem(r, 409, "already-done");
    http_free(r);
    r = camp_post(&second, &c, AXIS, "/battles/1/reserve-roll", "{}");
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "roll"), 2);
    http_free(r);
    long long v1 = camp_version(&api_daemon, &c), v2 = camp_version(&second, &c);
    CU_ASSERT_EQUAL(v1, v2);
}

/* ---- campaigns kept in memory ---- */

#define STATE_FOUND(how) "m44d_state_writes_total{found=\"" how "\"}"
#define MOVED_ON_AGAIN   "m44d_db_transactions_run_again_total{cause=\"moved_on\"}"
#define KEY_ANSWERED     "m44d_db_transactions_run_again_total{cause=\"key_answered\"}"

/* The two tests below: a second daemon on the same database, started in `other`, and a
 * campaign of table dice whose first battle the Allies rolled for through this one (which so
 * holds it). */
#define TABLE_FACES "{\"faces\":[\"infantry\",\"armor\"]}"

static struct camp held_here(struct daemon *other)
{
    CU_ASSERT_FATAL(daemon_start(other, api_conninfo, NULL));
    struct camp c = new_campaign("standard", "table");
    CU_ASSERT_EQUAL(battle(&api_daemon, &c, 1), 201);
    struct http_resp *r =
        camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll", TABLE_FACES);
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    return c;
}

/* A reserve roll on a campaign held here, which another daemon moved on since (the Allies chose
 * their reserves there, spending a token): the roll sends its version bump first, made only at
 * the version held, so it finds out, runs again from a fresh load, and nothing the other write
 * did is lost. A second roll of the same side, with an Idempotency-Key, is refused as ever
 * (409), nothing written, after running again from a load: the campaign held cannot tell it
 * apart, and nothing is read before the write (the key's lookup waits). The first roll sent
 * again with its key, on the campaign held here once more and moved on there since: the version
 * bump, which goes before the key's answer, finds the campaign moved on (stale, not the key
 * answered), and the roll's answer is given again from a load. */
static void test_held_roll_moved_on(void)
{
    struct daemon other;
    struct camp c = held_here(&other);
    const char *faces = TABLE_FACES;
    struct http_resp *r;
    r = camp_post(&other, &c, ALLIES, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"infantry@0\"}]}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(http_int(r, "reserve_tokens"), 4);
    http_free(r);
    long stale = daemon_metric(&api_daemon, STATE_FOUND("stale"));
    long again = daemon_metric(&api_daemon, MOVED_ON_AGAIN);
    char path[128];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/reserve-roll", c.id);
    const char *first_key[] = {"Idempotency-Key: held-roll-first-0123456789abcdef", NULL};
    struct http_resp *first = api(&api_daemon, "POST", path, &c, AXIS, faces, first_key);
    CU_ASSERT_EQUAL(first->status, 201);
    CU_ASSERT_EQUAL(http_int(first, "roll"), 2);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again + 1);
    r = camp_get(&other, &c, "");
    long long v = http_int(r, "version");
    CU_ASSERT_EQUAL(http_int(r, "sides.allies.reserve_tokens"), 4);
    CU_ASSERT_EQUAL(http_int(r, "sides.axis.reserve_tokens"), 5);
    http_free(r);
    /* Held (as the roll left it), and current: the same side rolls again, with an
     * Idempotency-Key as the page sends every write. Nothing is read first (the key is taken as
     * new): the version bump goes first, then the roll, which clashes with the one stored
     * (the unique index), and the write runs again from a load (the key looked up first: no
     * answer stored for it), which refuses it as ever, nothing written (the clash fails the
     * write as a version moved on would, and is counted with them). */
    stale = daemon_metric(&api_daemon, STATE_FOUND("stale"));
    again = daemon_metric(&api_daemon, MOVED_ON_AGAIN);
    const char *idem[] = {"Idempotency-Key: held-roll-again-0123456789abcdef", NULL};
    r = api(&api_daemon, "POST", path, &c, AXIS, faces, idem);
    assert_problem(r, 409, "already-done");
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again + 1);
    CU_ASSERT_EQUAL(sql_long("SELECT count(*) FROM idempotency WHERE status = 409"), 0);
    CU_ASSERT_EQUAL(camp_version(&other, &c), v);
    /* Held here once more (read), moved on there (the Axis choose), then the first roll sent
     * again with its key. */
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    r = camp_post(&other, &c, AXIS, "/battles/1/reserve-choice",
                  "{\"options\":[{\"id\":\"infantry@0\"}]}");
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    stale = daemon_metric(&api_daemon, STATE_FOUND("stale"));
    again = daemon_metric(&api_daemon, MOVED_ON_AGAIN);
    long answered = daemon_metric(&api_daemon, KEY_ANSWERED);
    r = api(&api_daemon, "POST", path, &c, AXIS, faces, first_key);
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(r->len, first->len);
    CU_ASSERT_EQUAL(memcmp(r->body, first->body, first->len), 0);
    http_free(r);
    http_free(first);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, KEY_ANSWERED), answered);
    assert_contiguous(&c, 2);
    CU_ASSERT_EQUAL(daemon_stop(&other, SIGTERM, 30), 0);
}

/* The count of the campaign's battles. */
static long battles_of(const struct camp *c)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM battles WHERE campaign_id = '%s'", c->id);
    return sql_long(sql);
}

/*
 * A write with an Idempotency-Key on a campaign held in memory goes in one round trip: the key
 * is taken as new, and the answer stored only if none is for it. The same request again, which
 * the campaign held refuses (a battle is being played), gets the first answer at once, byte for
 * byte. The key sent with another request, which the campaign held would do: the answer stored
 * for the key fails that write, which runs again from a load with the key looked up first, and
 * is refused as a key used for another request, nothing written, the campaign still held. A roll
 * sent again is given the same dice, found by its key before its roll would clash, the campaign
 * still held. A key whose answer expired is new again, done at once.
 */
static void test_key_on_held_campaign(void)
{
    struct camp c = new_campaign("standard", "server");
    struct http_resp *r = camp_get(&api_daemon, &c, ""); /* held here from now on */
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles", c.id);
    const char *body = "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"allies\","
                       "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":4}";
    const char *key[] = {"Idempotency-Key: held-battle-0123456789abcdef", NULL};
    long hits = daemon_metric(&api_daemon, STATE_FOUND("hit"));
    long again = daemon_metric(&api_daemon, MOVED_ON_AGAIN);
    struct http_resp *a = api(&api_daemon, "POST", path, &c, ORGANIZER, body, key);
    CU_ASSERT_EQUAL(a->status, 201);
    long long v = camp_version(&api_daemon, &c);
    struct http_resp *b = api(&api_daemon, "POST", path, &c, ORGANIZER, body, key);
    CU_ASSERT_EQUAL(b->status, 201);
    CU_ASSERT_EQUAL(a->len, b->len);
    CU_ASSERT_EQUAL(memcmp(a->body, b->body, a->len), 0);
    char replayed[16];
    CU_ASSERT_PTR_NULL(http_header(a, "Idempotent-Replayed", replayed, sizeof replayed));
    CU_ASSERT_PTR_NOT_NULL(http_header(b, "Idempotent-Replayed", replayed, sizeof replayed));
    http_free(a);
    http_free(b);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits + 2);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again);
    CU_ASSERT_EQUAL(battles_of(&c), 1);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), v);
    /* The battle's key sent with the Allies' reserve roll, which the campaign held would do:
     * run again once, counted apart (the campaign held was current, and stays held). */
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles/1/reserve-roll", c.id);
    long answered = daemon_metric(&api_daemon, KEY_ANSWERED);
    long stale = daemon_metric(&api_daemon, STATE_FOUND("stale"));
    r = api(&api_daemon, "POST", path, &c, ALLIES, "{}", key);
    assert_problem(r, 422, "idempotency-key-reused");
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, KEY_ANSWERED), answered + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale);
    CU_ASSERT_EQUAL(roll_count(&c), 0);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), v);
    /* The roll with a key of its own, from the campaign still held, sent twice: the same dice.
     * The second time, the campaign held does not show that the Allies rolled, but the answer
     * stored for the key goes before the roll: run again once, counted as the key answered,
     * not as a campaign moved on, and the campaign stays held. */
    const char *rkey[] = {"Idempotency-Key: held-roll-0123456789abcdef", NULL};
    hits = daemon_metric(&api_daemon, STATE_FOUND("hit"));
    a = api(&api_daemon, "POST", path, &c, ALLIES, "{}", rkey);
    CU_ASSERT_EQUAL(a->status, 201);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits + 1);
    answered = daemon_metric(&api_daemon, KEY_ANSWERED);
    b = api(&api_daemon, "POST", path, &c, ALLIES, "{}", rkey);
    CU_ASSERT_EQUAL(b->status, 201);
    CU_ASSERT_EQUAL(a->len, b->len);
    CU_ASSERT_EQUAL(memcmp(a->body, b->body, a->len), 0);
    CU_ASSERT_PTR_NOT_NULL(http_header(b, "Idempotent-Replayed", replayed, sizeof replayed));
    http_free(a);
    http_free(b);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits + 2);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, KEY_ANSWERED), answered + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale);
    CU_ASSERT_EQUAL(roll_count(&c), 1);
    /* Its answer expired (a day and a minute ago: past the time to live), the roll's key is
     * new again: the Axis' roll sent with it is made at once, from the campaign still held. */
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE idempotency SET at = at - interval '%d seconds'", 86400 + 60);
    CU_ASSERT(sql_exec_on(api_conninfo, sql));
    again = daemon_metric(&api_daemon, MOVED_ON_AGAIN);
    answered = daemon_metric(&api_daemon, KEY_ANSWERED);
    hits = daemon_metric(&api_daemon, STATE_FOUND("hit"));
    r = api(&api_daemon, "POST", path, &c, AXIS, "{}", rkey);
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_PTR_NULL(http_header(r, "Idempotent-Replayed", replayed, sizeof replayed));
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, KEY_ANSWERED), answered);
    CU_ASSERT_EQUAL(roll_count(&c), 2);
    assert_contiguous(&c, 2);
}

/*
 * Two answers lost, each asked for again on a campaign held in memory, with the same
 * Idempotency-Key: a battle made with If-Match (the campaign held is now at the next version,
 * and would refuse the If-Match: the answer stored is given, not 412), and an Allies' roll made
 * before their link was replaced (the old link gets its own roll again, not "replaced": its
 * key is looked up first).
 */
static void test_key_lost_answers_held(void)
{
    struct camp c = new_campaign("standard", "table");
    struct http_resp *g = camp_get(&api_daemon, &c, ""); /* held here from now on */
    char etag[64], if_match[96];
    CU_ASSERT_PTR_NOT_NULL_FATAL(http_header(g, "ETag", etag, sizeof etag));
    http_free(g);
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag);
    char path[160];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/battles", c.id);
    const char *h[] = {"Idempotency-Key: lost-battle-0123456789abcdef", if_match, NULL};
    const char *body = "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"allies\","
                       "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":4}";
    struct http_resp *a = api(&api_daemon, "POST", path, &c, ORGANIZER, body, h);
    CU_ASSERT_EQUAL(a->status, 201);
    struct http_resp *b = api(&api_daemon, "POST", path, &c, ORGANIZER, body, h);
    CU_ASSERT_EQUAL(b->status, 201);
    CU_ASSERT_STRING_EQUAL(a->body, b->body);
    http_free(a);
    http_free(b);
    CU_ASSERT_EQUAL(battles_of(&c), 1);
    char roll_path[160];
    snprintf(roll_path, sizeof roll_path, "/api/v1/campaigns/%s/battles/1/reserve-roll", c.id);
    const char *roll_h[] = {"Idempotency-Key: lost-roll-before-the-link-changed", NULL};
    struct http_resp *roll = api(&api_daemon, "POST", roll_path, &c, ALLIES, TABLE_FACES, roll_h);
    CU_ASSERT_EQUAL_FATAL(roll->status, 201);
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/keys/allies", c.id);
    a = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", NULL);
    CU_ASSERT_EQUAL(a->status, 200);
    http_free(a);
    a = camp_get(&api_daemon, &c, ""); /* held again: the new key loaded it */
    http_free(a);
    a = api(&api_daemon, "POST", roll_path, &c, ALLIES, TABLE_FACES, roll_h);
    CU_ASSERT_EQUAL(a->status, 201);
    CU_ASSERT_STRING_EQUAL(a->body, roll->body);
    http_free(a);
    http_free(roll);
    /* The old link with the same key for another request: told its link was replaced (as when
     * the key is looked up first), not that the key was used for another request. */
    a = api(&api_daemon, "POST", roll_path, &c, ALLIES, "{\"faces\":[\"star\",\"star\"]}", roll_h);
    CU_ASSERT_EQUAL(a->status, 401);
    CU_ASSERT_PTR_NOT_NULL(strstr(a->body, "was replaced by a new one"));
    http_free(a);
    CU_ASSERT_EQUAL(roll_count(&c), 1);
}

/*
 * A daemon keeps the campaign as its last write left it (campaign/state_cache.h). Another
 * daemon's write moves the campaign on; the next write here starts from what it kept, finds it
 * moved on (the first statement checks the version), loads it again and succeeds. The write
 * chosen would be refused on the state kept (the axis had not rolled yet there), so an answer
 * from that state is told apart from an answer from the stored one.
 */
static void test_state_moved_on(void)
{
    struct daemon other;
    struct camp c = held_here(&other);
    const char *faces = TABLE_FACES;
    struct http_resp *r;
    /* Kept here: the allies rolled, the axis did not. The other daemon rolls for the axis. */
    r = camp_post(&other, &c, AXIS, "/battles/1/reserve-roll", faces);
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "roll"), 2);
    http_free(r);
    long stale = daemon_metric(&api_daemon, STATE_FOUND("stale"));
    long hits = daemon_metric(&api_daemon, STATE_FOUND("hit"));
    long again = daemon_metric(&api_daemon, MOVED_ON_AGAIN);
    const char *choice = "{\"options\":[{\"id\":\"infantry@0\"}]}";
    r = camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice", choice);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(http_int(r, "reserve_tokens"), 4);
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits);
    /* Found out by the version check in the transaction, which then ran again. */
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, MOVED_ON_AGAIN), again + 1);
    /* Kept again, now current: the next write starts from it. */
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice", choice);
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale + 1);
    /* A refusal decided on the state kept stands once the version is confirmed (both sides
     * chose: the battle is ready). */
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice", choice);
    assert_problem(r, 409, "wrong-phase");
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits + 2);
    r = camp_get(&api_daemon, &c, "");
    long long v = http_int(r, "version");
    CU_ASSERT_EQUAL(http_int(r, "sides.allies.reserve_tokens"), 4);
    CU_ASSERT_EQUAL(http_int(r, "sides.axis.reserve_tokens"), 4);
    http_free(r);
    assert_contiguous(&c, 2);
    CU_ASSERT_EQUAL(camp_version(&other, &c), v);
    /* A refusal the state kept would decide alone, with no read before it: the other daemon
     * gives the Allies a new key, which the campaign kept here does not know. Only the version
     * check shows that it moved on; the fresh campaign takes the key and answers for the
     * battle (already played), never "not a key of this campaign". */
    r = camp_post(&other, &c, ORGANIZER, "/keys/allies", "{}");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    struct camp renewed = c;
    snprintf(renewed.key[ALLIES], sizeof renewed.key[0], "%s", http_str(r, "key"));
    http_free(r);
    stale = daemon_metric(&api_daemon, STATE_FOUND("stale"));
    r = camp_post(&api_daemon, &renewed, ALLIES, "/battles/1/reserve-roll", faces);
    assert_problem(r, 409, "wrong-phase");
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale + 1);
    daemon_stop(&other, SIGTERM, 10);
}

/* ---- long polling ---- */

/* The change is made 0.5 s into a 25 s wait; the waiting request must answer after it, with
 * the new version, and long before the wait runs out: woken by the change, not by its end.
 * (The bound is wide on purpose: under valgrind on a busy machine the write alone can take a
 * second; the test measures no speed.) */
static void long_poll(const struct daemon *waiting_on, const struct daemon *writing_to)
{
    struct camp c = new_campaign("standard", "server");
    long long v = camp_version(waiting_on, &c);
    struct poll_arg p = {.d = waiting_on, .c = &c, .wait = 25, .capitals = true};
    snprintf(p.inm, sizeof p.inm, "If-None-Match: \"%lld\"", v);
    pthread_t t;
    pthread_create(&t, NULL, long_poll_thread, &p);
    tk_sleep_ms(500);
    /* The request is parked (m44d's gauge says so) before the change is made. */
    for (int i = 0; i < 50 && daemon_metric(waiting_on, "m44d_long_polls_waiting") < 1; i++)
        tk_sleep_ms(100);
    CU_ASSERT_EQUAL(daemon_metric(waiting_on, "m44d_long_polls_waiting"), 1);
    double written_at = mono_seconds();
    CU_ASSERT_EQUAL(battle(writing_to, &c, 1), 201);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(p.status, 200);
    CU_ASSERT_EQUAL(p.version, v + 1);
    /* Woken by the change, long before the 25 s wait ran out. */
    CU_ASSERT(p.done_at - written_at < 15.0);
    CU_ASSERT_EQUAL(daemon_metric(waiting_on, "m44d_long_polls_waiting"), 0);
}

static void test_long_poll(void)
{
    /* Woken by the write itself: on a daemon that neither listens for the database's
     * announcements (--version-max-lag-ms 0) nor looks for other daemons' changes
     * (--version-poll-ms 0), only the write can wake the waiter, and m44d counts why. */
    struct daemon local;
    const char *args[] = {"--version-poll-ms", "0", "--version-max-lag-ms", "0", NULL};
    CU_ASSERT_FATAL(daemon_start(&local, api_conninfo, args));
    CU_ASSERT_EQUAL(daemon_metric(&local, WAKES_BY("write")), 0);
    long_poll(&local, &local);
    CU_ASSERT_EQUAL(daemon_metric(&local, WAKES_BY("write")), 1);
    CU_ASSERT_EQUAL(daemon_metric(&local, WAKES_BY("other_daemon")), 0);
    CU_ASSERT_EQUAL(daemon_stop(&local, SIGTERM, 30), 0);
    /* Unchanged: 304 once the wait is over. */
    struct camp c = new_campaign("standard", "server");
    struct poll_arg p = {.d = &api_daemon, .c = &c, .wait = 1};
    snprintf(p.inm, sizeof p.inm, "If-None-Match: \"%lld\"", camp_version(&api_daemon, &c));
    long_poll_thread(&p);
    CU_ASSERT_EQUAL(p.status, 304);
    CU_ASSERT(p.seconds >= 0.9);
}

static void test_long_poll_across_daemons(void)
{
    CU_ASSERT_FATAL(second.pid > 0);
    /* Woken by the database's announcement of the other daemon's write (the listener current
     * first: a listener still connecting leaves the waking to the version poll). */
    CU_ASSERT(daemon_metric_becomes(&api_daemon, "m44d_version_listener_current", 1, 10000));
    long heard = daemon_metric(&api_daemon, WAKES_BY("heard"));
    long polled = daemon_metric(&api_daemon, WAKES_BY("other_daemon"));
    long_poll(&api_daemon, &second);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, WAKES_BY("heard")), heard + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, WAKES_BY("other_daemon")), polled);
    /* Without the listener, by the version poll. */
    struct daemon deaf;
    const char *args[] = {"--version-max-lag-ms", "0", NULL};
    CU_ASSERT_FATAL(daemon_start(&deaf, api_conninfo, args));
    long_poll(&deaf, &second);
    CU_ASSERT_EQUAL(daemon_metric(&deaf, WAKES_BY("other_daemon")), 1);
    CU_ASSERT_EQUAL(daemon_metric(&deaf, WAKES_BY("heard")), 0);
    CU_ASSERT_EQUAL(daemon_stop(&deaf, SIGTERM, 30), 0);
    CU_ASSERT_EQUAL(daemon_stop(&second, SIGTERM, 30), 0);
}

/* --- Reads from a standby (--read-database, db/replica.h) ---
 * The suite has no standby (the failover drill, tests/cluster/drill.sh, reads from a real one
 * while it lags); here: a read database that is not a standby, or does not answer, is not read,
 * and every read still answers from the primary. */

#define STANDBY_READS(outcome) "m44d_standby_reads_total{outcome=\"" outcome "\"}"

static void reads_without_standby(const char *read_database)
{
    struct daemon d;
    const char *args[] = {"--read-database", read_database, NULL};
    CU_ASSERT_FATAL(daemon_start(&d, api_conninfo, args));
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&d, "{\"name\":\"No standby\",\"ruleset\":\"standard\"}", &c));
    CU_ASSERT_EQUAL(battle(&d, &c, 1), 201);
    expect_status(camp_post(&d, &c, ALLIES, "/battles/1/reserve-roll", "{}"), 201, "the roll");
    tk_sleep_ms(300); /* the probe has looked at the read database a few times */
    CU_ASSERT_EQUAL(camp_version(&d, &c), 3);
    struct http_resp *r = camp_get(&d, &c, "/rolls");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT(r->body && strstr(r->body, "\"battle\":1"));
    http_free(r);
    expect_status(camp_get(&d, &c, "/battles/1"), 200, "the battle");
    r = api(&d, "GET", "/api/v1/campaigns?limit=100", NULL, ANYONE, NULL, NULL);
    CU_ASSERT(r->status == 200 && r->body && strstr(r->body, c.id));
    http_free(r);
    CU_ASSERT(daemon_metric(&d, STANDBY_READS("lagging")) >= 4);
    CU_ASSERT_EQUAL(daemon_metric(&d, STANDBY_READS("standby")), 0);
    CU_ASSERT_EQUAL(daemon_metric(&d, "m44d_standby_lag_seconds"), -1);
    CU_ASSERT_EQUAL(daemon_stop(&d, SIGTERM, 30), 0);
}

static void test_read_database_not_standby(void)
{
    /* The primary itself, named as the read database: not in recovery, so not read. */
    reads_without_standby(api_conninfo);
    /* Nothing listens there. */
    reads_without_standby("postgresql://m44@127.0.0.1:9/m44?connect_timeout=1");
}

/* --- Versions heard from the database (db/listener.h) --- */

static bool sql_ok(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    bool ok = r && (PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);
    if (!ok)
        fprintf(stderr, "%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    return ok;
}

static long get_status(const struct daemon *d, const struct camp *c, long long inm, long long *v)
{
    char h[64];
    snprintf(h, sizeof h, "If-None-Match: \"%lld\"", inm);
    const char *headers[] = {h, NULL};
    char path[128];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s", c->id);
    struct http_resp *r = api(d, "GET", path, NULL, ANYONE, NULL, headers);
    long st = r->status;
    *v = st == 200 ? http_int(r, "version") : -1;
    http_free(r);
    return st;
}

/* The listener's connection is lost, the campaign changes while nobody listens, and the
 * connection is made again: what the daemon knew before must not answer (a 304 for the old
 * version would hide the change until the next one). */
static void test_listener_reconnect(void)
{
    char *db = tk_new_database("api_listen");
    CU_ASSERT_FATAL(db != NULL);
    /* One database worker: connected by the first requests, before new connections are
     * refused below (the version poll's thread connects as the long poll arrives). */
    struct daemon d;
    const char *args[] = {"--threads=1", NULL};
    CU_ASSERT_FATAL(daemon_start(&d, db, args));
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&d, "{\"name\":\"Heard\",\"ruleset\":\"standard\"}", &c));
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_version_listener_current", 1, 5000));
    long long v = camp_version(&d, &c), got;
    /* Known now: the 304 comes from memory. */
    long mem = daemon_metric(&d, "m44d_memory_answers_total");
    CU_ASSERT_EQUAL(get_status(&d, &c, v, &got), 304);
    CU_ASSERT_EQUAL(daemon_metric(&d, "m44d_memory_answers_total"), mem + 1);
    /* A long poll waits. While the listener is current, no version poll reads the database
     * for it. */
    char park[256];
    snprintf(park, sizeof park,
             "GET /api/v1/campaigns/%s?wait=30 HTTP/1.1\r\nHost: x\r\nIf-None-Match: "
             "\"%lld\"\r\n\r\n",
             c.id, v);
    int pfd = tcp_connect(d.port);
    CU_ASSERT(pfd >= 0 && send(pfd, park, strlen(park), MSG_NOSIGNAL) > 0);
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_long_polls_waiting", 1, 5000));
    /* One round is made as the first poll arrives (the listener's connection is new to it);
     * waited for, not slept on: under valgrind it may come late and land in the window below. */
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_version_polls_total", 1, 10000));
    long polls = daemon_metric(&d, "m44d_version_polls_total");
    tk_sleep_ms(1500); /* more than three rounds of --version-poll-ms */
    CU_ASSERT_EQUAL(daemon_metric(&d, "m44d_version_polls_total"), polls);
    /* Two connections of the test's own, then no new connection to the database at all
     * (ALTER DATABASE must be run from another database). */
    const char *keys[] = {"dbname", "dbname", NULL};
    const char *vals[] = {db, "postgres", NULL};
    PGconn *other = PQconnectdbParams(keys, vals, 1), *here = PQconnectdb(db);
    CU_ASSERT_FATAL(PQstatus(other) == CONNECTION_OK && PQstatus(here) == CONNECTION_OK);
    PGresult *n = PQexec(here, "SELECT current_database()");
    char name[80];
    snprintf(name, sizeof name, "%s", PQgetvalue(n, 0, 0));
    PQclear(n);
    char sql[256];
    snprintf(sql, sizeof sql, "ALTER DATABASE %s ALLOW_CONNECTIONS false", name);
    CU_ASSERT(sql_ok(other, sql));
    CU_ASSERT(sql_ok(here, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                           "application_name = 'm44d-listener' AND datname = current_database()"));
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_version_listener_current", 0, 5000));
    /* The change nobody hears: the version poll, back at work, wakes the waiting poll. */
    snprintf(sql, sizeof sql, "UPDATE campaigns SET version = version + 1 WHERE id = '%s'", c.id);
    CU_ASSERT(sql_ok(here, sql));
    char buf[4096];
    CU_ASSERT_EQUAL(tcp_read_all(pfd, buf, 13, 5000), 12);
    CU_ASSERT_NSTRING_EQUAL(buf, "HTTP/1.1 200", 12);
    CU_ASSERT(daemon_metric(&d, "m44d_version_polls_total") > polls);
    close(pfd);
    /* That woken poll read the new version; one more change, which nobody reads or hears. */
    CU_ASSERT(sql_ok(here, sql));
    v++;
    snprintf(sql, sizeof sql, "ALTER DATABASE %s ALLOW_CONNECTIONS true", name);
    CU_ASSERT(sql_ok(other, sql));
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_version_listener_connections_total", 2, 10000));
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_version_listener_current", 1, 5000));
    /* The old version gets the new campaign, not 304. */
    CU_ASSERT_EQUAL(get_status(&d, &c, v, &got), 200);
    CU_ASSERT_EQUAL(got, v + 1);
    CU_ASSERT_EQUAL(get_status(&d, &c, v + 1, &got), 304);
    /* A change heard: the next GET has it at once (within the bounded wait for the
     * announcement). */
    /* Counted from a point where every change before it has been seen (this daemon's own
     * writes among them: they are seen too, some milliseconds after they are made). */
    CU_ASSERT(daemon_seen_all(&d, 5000));
    long heard = daemon_metric(&d, "m44d_version_changes_heard_total");
    snprintf(sql, sizeof sql, "UPDATE campaigns SET version = version + 1 WHERE id = '%s'", c.id);
    CU_ASSERT(sql_ok(here, sql));
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_version_changes_heard_total", heard + 1, 5000));
    CU_ASSERT_EQUAL(get_status(&d, &c, v + 1, &got), 200);
    CU_ASSERT_EQUAL(got, v + 2);
    /* A client showing a version above the one this daemon knows (seen through another
     * daemon, not heard here yet) is answered from the database, not from memory. */
    mem = daemon_metric(&d, "m44d_memory_answers_total");
    CU_ASSERT_EQUAL(get_status(&d, &c, v + 9, &got), 200);
    CU_ASSERT_EQUAL(got, v + 2);
    CU_ASSERT_EQUAL(get_status(&d, &c, v + 2, &got), 304);
    CU_ASSERT_EQUAL(daemon_metric(&d, "m44d_memory_answers_total"), mem + 1);
    /* A write through this daemon is read back at once, announced or not (the announcement is
     * held back here: the trigger off). */
    CU_ASSERT(sql_ok(here, "ALTER TABLE campaigns DISABLE TRIGGER campaigns_version_changed"));
    CU_ASSERT_EQUAL(battle(&d, &c, 1), 201);
    CU_ASSERT_EQUAL(camp_version(&d, &c), v + 3);
    CU_ASSERT_EQUAL(get_status(&d, &c, v + 2, &got), 200);
    CU_ASSERT(sql_ok(here, "ALTER TABLE campaigns ENABLE TRIGGER campaigns_version_changed"));
    /* A version set back by hand (a restore) is announced lower than the one known: read
     * again, not answered with the higher one. */
    CU_ASSERT(daemon_seen_all(&d, 5000));
    heard = daemon_metric(&d, "m44d_version_changes_heard_total");
    snprintf(sql, sizeof sql, "UPDATE campaigns SET version = version - 1 WHERE id = '%s'", c.id);
    CU_ASSERT(sql_ok(here, sql));
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_version_changes_heard_total", heard + 1, 5000));
    CU_ASSERT_EQUAL(get_status(&d, &c, v + 3, &got), 200);
    CU_ASSERT_EQUAL(got, v + 2);
    PQfinish(other);
    PQfinish(here);
    CU_ASSERT_EQUAL(daemon_stop(&d, SIGTERM, 30), 0);
    free(db);
}

/* A campaign made through `maker`, once `watcher` hears changes: its version in *v, a 304 for
 * it from `watcher`; and a connection of the test's own to the database `db` (NULL: failed). */
static PGconn *watched(const char *db, struct daemon *maker, struct daemon *watcher,
                       const char *name, struct camp *c, long long *v)
{
    char body[128];
    snprintf(body, sizeof body, "{\"name\":\"%s\",\"ruleset\":\"standard\"}", name);
    if (!camp_create(maker, body, c))
        return NULL;
    CU_ASSERT(daemon_metric_becomes(watcher, "m44d_version_listener_current", 1, 5000));
    long long got;
    *v = camp_version(watcher, c);
    CU_ASSERT_EQUAL(get_status(watcher, c, *v, &got), 304);
    PGconn *pg = PQconnectdb(db);
    if (PQstatus(pg) == CONNECTION_OK)
        return pg;
    PQfinish(pg);
    return NULL;
}

/* The campaign's version moved by hand, by `delta`. */
static bool version_moved(PGconn *pg, const struct camp *c, int delta)
{
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE campaigns SET version = version + (%d) WHERE id = '%s'",
             delta, c->id);
    return sql_ok(pg, sql);
}

/* The changes are deleted after --version-changes-keep-s. A daemon that was stopped meanwhile
 * (or whose connection was slow) comes back to find the changes it had not seen gone: it must
 * not go on answering from the versions it knew (a 304 for the old version would hide the
 * change until the next one). */
static long long count_of(PGconn *pg, const char *sql)
{
    PGresult *r = PQexec(pg, sql);
    long long n =
        PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return n;
}

static void test_changes_deleted_unseen(void)
{
    char *db = tk_new_database("api_pruned");
    CU_ASSERT_FATAL(db != NULL);
    const char *keep[] = {"--version-changes-keep-s=2", NULL};
    struct daemon pruner, sleeper;
    CU_ASSERT_FATAL(daemon_start(&pruner, db, keep));
    CU_ASSERT_FATAL(daemon_start(&sleeper, db, NULL));
    struct camp c;
    long long v, got;
    PGconn *pg = watched(db, &pruner, &sleeper, "Pruned", &c, &v);
    CU_ASSERT_FATAL(pg != NULL);
    /* Stopped, it sees nothing of what follows until the rows of it are gone. */
    CU_ASSERT_EQUAL(kill(sleeper.pid, SIGSTOP), 0);
    CU_ASSERT(version_moved(pg, &c, 1));
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM m44_changes WHERE id = '%s'", c.id);
    CU_ASSERT(count_of(pg, sql) > 0);
    /* The other daemon deletes them: 2 s old, at its next round of deletions (every 5 s). */
    long long left = -1;
    for (int t = 0; t < 20000 && (left = count_of(pg, sql)) != 0; t += 100)
        tk_sleep_ms(100);
    CU_ASSERT_EQUAL(left, 0);
    CU_ASSERT(count_of(pg, "SELECT count(*) FROM m44_changes_pruned WHERE below > '0'::xid8") == 1);
    CU_ASSERT_EQUAL(kill(sleeper.pid, SIGCONT), 0);
    /* Back: once it has looked again, the old version is no longer answered from memory. */
    CU_ASSERT(daemon_seen_all(&sleeper, 5000));
    CU_ASSERT_EQUAL(get_status(&sleeper, &c, v, &got), 200);
    CU_ASSERT_EQUAL(got, v + 1);
    CU_ASSERT_EQUAL(get_status(&sleeper, &c, v + 1, &got), 304);
    PQfinish(pg);
    CU_ASSERT_EQUAL(daemon_stop(&sleeper, SIGTERM, 30), 0);
    CU_ASSERT_EQUAL(daemon_stop(&pruner, SIGTERM, 30), 0);
    free(db);
}

/* A daemon and a campaign it has heard of, for the tests below: its own database. */
struct heard {
    char *db;
    struct daemon d;
    struct camp c;
    long long v;
    PGconn *pg;
};

static bool heard_start(struct heard *h, const char *name)
{
    memset(h, 0, sizeof *h);
    h->db = tk_new_database(name);
    if (!h->db || !daemon_start(&h->d, h->db, NULL))
        return false;
    h->pg = watched(h->db, &h->d, &h->d, name, &h->c, &h->v);
    return h->pg != NULL;
}

static void heard_end(struct heard *h)
{
    PQfinish(h->pg);
    CU_ASSERT_EQUAL(daemon_stop(&h->d, SIGTERM, 30), 0);
    free(h->db);
}

/* Two changes of one campaign seen in one look: which committed last is not told by the rows
 * (a transaction may take its id before another and commit after it), so neither is taken for
 * the version now. Here the later one sets it back (a restore by hand): a client that saw the
 * version in between must not be told nothing changed, and the version left is answered 304. */
static void test_two_changes_one_look(void)
{
    struct heard h;
    CU_ASSERT_FATAL(heard_start(&h, "api_twice"));
    long long v = h.v, got;
    /* Stopped while both are made: its next look sees them together. */
    CU_ASSERT_EQUAL(kill(h.d.pid, SIGSTOP), 0);
    CU_ASSERT(version_moved(h.pg, &h.c, 2));
    CU_ASSERT(version_moved(h.pg, &h.c, -1));
    CU_ASSERT_EQUAL(kill(h.d.pid, SIGCONT), 0);
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    /* The version it knew is asked first (a read would put the entry right). */
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, v, &got), 200);
    CU_ASSERT_EQUAL(got, v + 1);
    /* A client that saw the version in between (through another daemon) is told it changed. */
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, v + 2, &got), 200);
    CU_ASSERT_EQUAL(got, v + 1);
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, v + 1, &got), 304);
    heard_end(&h);
}

/* A write whose transaction was running through looks (in their snapshots' running
 * transactions: a later transaction ended first), committed after: seen by the next look. */
static void test_change_across_looks(void)
{
    struct heard h;
    CU_ASSERT_FATAL(heard_start(&h, "api_across"));
    long long got;
    PGconn *later = PQconnectdb(h.db);
    CU_ASSERT_FATAL(PQstatus(later) == CONNECTION_OK);
    CU_ASSERT(sql_ok(h.pg, "BEGIN"));
    CU_ASSERT(version_moved(h.pg, &h.c, 1));
    /* A transaction id after the write's, ended: the looks' snapshots reach past the write's. */
    CU_ASSERT(sql_ok(later, "SELECT pg_current_xact_id()"));
    PQfinish(later);
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v, &got), 304); /* not committed yet */
    CU_ASSERT(sql_ok(h.pg, "COMMIT"));
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    long mem = daemon_metric(&h.d, "m44d_memory_answers_total");
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v, &got), 200);
    CU_ASSERT_EQUAL(got, h.v + 1);
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v + 1, &got), 304);
    CU_ASSERT(daemon_metric(&h.d, "m44d_memory_answers_total") > mem); /* heard, not read */
    heard_end(&h);
}

/* The listener's connection is made again while a read and a change come between the connection
 * and its first look (held back: the record's row locked): what the read learned must not be
 * kept past the first look, whose snapshot already holds the change (no look would report it). */
static void test_change_while_connecting(void)
{
    struct heard h;
    CU_ASSERT_FATAL(heard_start(&h, "api_connecting"));
    long long got;
    PGconn *lock = PQconnectdb(h.db);
    CU_ASSERT_FATAL(PQstatus(lock) == CONNECTION_OK);
    long made = daemon_metric(&h.d, "m44d_version_listener_connections_total");
    CU_ASSERT(sql_ok(lock, "BEGIN"));
    CU_ASSERT(sql_ok(lock, "LOCK TABLE m44_changes_pruned IN ACCESS EXCLUSIVE MODE"));
    CU_ASSERT(sql_ok(h.pg, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                           "application_name = 'm44d-listener' AND datname = current_database()"));
    CU_ASSERT(
        daemon_metric_becomes(&h.d, "m44d_version_listener_connections_total", made + 1, 10000));
    CU_ASSERT_EQUAL(daemon_metric(&h.d, "m44d_version_listener_current"), 0);
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v, &got), 304); /* read, and learned */
    CU_ASSERT(version_moved(h.pg, &h.c, 1));
    CU_ASSERT(sql_ok(lock, "COMMIT"));
    CU_ASSERT(daemon_metric_becomes(&h.d, "m44d_version_listener_current", 1, 10000));
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v, &got), 200);
    CU_ASSERT_EQUAL(got, h.v + 1);
    PQfinish(lock);
    heard_end(&h);
}

/* The record of changes emptied while the listener's connection stays up (a crash empties it;
 * behind a pooler the connection may outlive the server's): the daemon sees its row gone,
 * forgets what it knew, and puts the row back. */
static void test_record_emptied(void)
{
    struct heard h;
    CU_ASSERT_FATAL(heard_start(&h, "api_emptied"));
    long long got;
    CU_ASSERT_EQUAL(kill(h.d.pid, SIGSTOP), 0);
    CU_ASSERT(version_moved(h.pg, &h.c, 1));
    CU_ASSERT(sql_ok(h.pg, "TRUNCATE m44_changes, m44_changes_pruned"));
    CU_ASSERT_EQUAL(kill(h.d.pid, SIGCONT), 0);
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v, &got), 200);
    CU_ASSERT_EQUAL(got, h.v + 1);
    CU_ASSERT_EQUAL(count_of(h.pg, "SELECT count(*) FROM m44_changes_pruned"), 1);
    /* Heard again after: the next change answered from what is heard. */
    CU_ASSERT(version_moved(h.pg, &h.c, 1));
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    long mem = daemon_metric(&h.d, "m44d_memory_answers_total");
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v + 2, &got), 304);
    CU_ASSERT_EQUAL(daemon_metric(&h.d, "m44d_memory_answers_total"), mem + 1);
    heard_end(&h);
}

/* A record of changes that is not this database's (a dump restored with its rows): transaction
 * ids it has not reached. Taken as changes, a row of it would give a version the campaign is
 * not at; its prune mark would make every look start over. The daemon empties it and starts
 * it over. */
static void test_record_not_ours(void)
{
    struct heard h;
    CU_ASSERT_FATAL(heard_start(&h, "api_not_ours"));
    long long got;
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO m44_changes (xid, id, version, kind) VALUES ('900000000000', '%s', "
             "%lld, 'c')",
             h.c.id, h.v + 5);
    CU_ASSERT(sql_ok(h.pg, sql));
    const char *gone = "SELECT count(*) FROM m44_changes WHERE xid >= '900000000000'";
    long long left = -1;
    for (int t = 0; t < 5000 && (left = count_of(h.pg, gone)) != 0; t += 50)
        tk_sleep_ms(50);
    CU_ASSERT_EQUAL(left, 0);
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v + 5, &got), 200);
    CU_ASSERT_EQUAL(got, h.v);
    CU_ASSERT(sql_ok(h.pg, "UPDATE m44_changes_pruned SET below = '900000000000'"));
    const char *mark = "SELECT count(*) FROM m44_changes_pruned WHERE below < '900000000000'";
    for (int t = 0; t < 5000 && (left = count_of(h.pg, mark)) != 1; t += 50)
        tk_sleep_ms(50);
    CU_ASSERT_EQUAL(left, 1);
    CU_ASSERT(daemon_seen_all(&h.d, 5000));
    CU_ASSERT_EQUAL(get_status(&h.d, &h.c, h.v, &got), 304);
    heard_end(&h);
}

#define READ_FOUND(how) "m44d_state_reads_total{found=\"" how "\"}"

/*
 * A read of a campaign this daemon holds in memory (its last write left it so) takes it from
 * there while the database is at the versions held: one lookup instead of the load. A change
 * made by hand, which the campaign held cannot know, moves the version on: the next read loads
 * the campaign and shows the change, and holds it: the read and the write after it start from
 * it. (--check-state also compares each read and write from memory with the campaign loaded.)
 */
static void test_state_read(void)
{
    struct camp c = new_campaign("standard", "table");
    CU_ASSERT_EQUAL(battle(&api_daemon, &c, 1), 201);
    long hit = daemon_metric(&api_daemon, READ_FOUND("hit"));
    long loaded = daemon_metric(&api_daemon, READ_FOUND("loaded"));
    struct http_resp *r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(r->status, 200);
    long long v = http_int(r, "version");
    CU_ASSERT_STRING_EQUAL(http_str(r, "battles.0.scenario"), "Battle 1");
    http_free(r);
    r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, READ_FOUND("hit")), hit + 2);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, READ_FOUND("loaded")), loaded);
    /* By hand: a new name, and the version moved on (as every change must). */
    PGconn *pg = PQconnectdb(api_conninfo);
    CU_ASSERT_FATAL(PQstatus(pg) == CONNECTION_OK);
    char sql[256];
    snprintf(sql, sizeof sql,
             "UPDATE campaigns SET name = 'Renamed by hand', version = version + 1 WHERE id = "
             "'%s'",
             c.id);
    CU_ASSERT(daemon_seen_all(&api_daemon, 5000)); /* the battle's change among them */
    long heard = daemon_metric(&api_daemon, "m44d_version_changes_heard_total");
    CU_ASSERT(sql_ok(pg, sql));
    PQfinish(pg);
    CU_ASSERT(
        daemon_metric_becomes(&api_daemon, "m44d_version_changes_heard_total", heard + 1, 5000));
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(http_int(r, "version"), v + 1);
    CU_ASSERT_STRING_EQUAL(http_str(r, "name"), "Renamed by hand");
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, READ_FOUND("hit")), hit + 2);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, READ_FOUND("loaded")), loaded + 1);
    /* The campaign that read loaded is held from then on: the next read takes it, and so does
     * the next write (its version check passes: nothing moved since). */
    r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_EQUAL(r->status, 200);
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, READ_FOUND("hit")), hit + 3);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, READ_FOUND("loaded")), loaded + 1);
    long hits = daemon_metric(&api_daemon, STATE_FOUND("hit"));
    long misses = daemon_metric(&api_daemon, STATE_FOUND("miss"));
    long stale = daemon_metric(&api_daemon, STATE_FOUND("stale"));
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                  "{\"faces\":[\"infantry\",\"armor\"]}");
    CU_ASSERT_EQUAL(r->status, 201);
    http_free(r);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("hit")), hits + 1);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("miss")), misses);
    CU_ASSERT_EQUAL(daemon_metric(&api_daemon, STATE_FOUND("stale")), stale);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "name"), "Renamed by hand");
    CU_ASSERT_EQUAL(http_int(r, "version"), v + 2);
    http_free(r);
}

/* A thousand long polls on one campaign, one write: every one answered with the new version.
 * Bounded in time, not timed. */
#define POLLS 1000

static void test_thousand_polls(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < POLLS + 200 &&
        rl.rlim_max > rl.rlim_cur) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct daemon d;
    const char *args[] = {"--max-connections=1200",   "--per-ip-limit=1100", "--max-parked=1100",
                          "--parked-per-client=1100", "--max-wait=120",      NULL};
    CU_ASSERT_FATAL(daemon_start(&d, api_conninfo, args));
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&d, "{\"name\":\"Crowd\",\"ruleset\":\"standard\"}", &c));
    long long v = camp_version(&d, &c);
    static int fds[POLLS];
    char req[256];
    snprintf(req, sizeof req,
             "GET /api/v1/campaigns/%s?wait=120 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"%lld\"\r\n"
             "Connection: close\r\n\r\n",
             c.id, v);
    int opened = 0;
    for (int i = 0; i < POLLS; i++) {
        fds[i] = tcp_connect(d.port);
        if (fds[i] >= 0 && send(fds[i], req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req))
            opened++;
    }
    CU_ASSERT_EQUAL(opened, POLLS);
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_long_polls_waiting", POLLS, 30000));
    CU_ASSERT_EQUAL(battle(&d, &c, 1), 201);
    /* Every answer: 200 with the new ETag, each connection then closed. */
    char want[64];
    snprintf(want, sizeof want, "ETag: \"%lld\"", v + 1);
    int ok = 0;
    static char buf[POLLS][512];
    static size_t got[POLLS];
    static bool done[POLLS];
    memset(got, 0, sizeof got);
    memset(done, 0, sizeof done);
    int left = POLLS;
    double until = mono_seconds() + 60;
    while (left > 0 && mono_seconds() < until) {
        static struct pollfd p[POLLS];
        int np = 0, idx[POLLS];
        for (int i = 0; i < POLLS; i++)
            if (!done[i] && fds[i] >= 0) {
                p[np] = (struct pollfd){.fd = fds[i], .events = POLLIN};
                idx[np++] = i;
            }
        if (np == 0 || poll(p, (nfds_t)np, 1000) < 0)
            break;
        for (int k = 0; k < np; k++) {
            if (!p[k].revents)
                continue;
            int i = idx[k];
            /* The head is kept, the rest read to the end (the connection closes). */
            static char chunk[65536];
            ssize_t n = read(fds[i], chunk, sizeof chunk);
            if (n > 0) {
                size_t keep = sizeof buf[i] - 1 - got[i];
                keep = (size_t)n < keep ? (size_t)n : keep;
                memcpy(buf[i] + got[i], chunk, keep);
                got[i] += keep;
                continue;
            }
            buf[i][got[i]] = '\0';
            done[i] = true;
            left--;
            ok += strncmp(buf[i], "HTTP/1.1 200", 12) == 0 && strstr(buf[i], want) != NULL;
        }
    }
    for (int i = 0; i < POLLS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    CU_ASSERT_EQUAL(left, 0);
    CU_ASSERT_EQUAL(ok, POLLS);
    for (int i = 0; i < POLLS && ok < POLLS; i++)
        if (strstr(buf[i], want) == NULL) {
            fprintf(stderr, "a poll's answer: %.300s\n", buf[i]);
            break;
        }
    CU_ASSERT(daemon_metric_becomes(&d, "m44d_long_polls_waiting", 0, 5000));
    CU_ASSERT_EQUAL(daemon_stop(&d, SIGTERM, 30), 0);
}

/* --- Standing GETs answered in batches (api/version_batch.c) --- */

#define STANDINGS 6

struct standing_arg {
    const struct daemon *d;
    const struct camp *camps;
    const long long *versions;
    int index, bad; /* requests answered wrongly */
};

/* Many GETs at once, over the batched version lookup: the current ETag, none, another
 * campaign's ETag, an unknown campaign and a malformed id; each must get its own answer. */
static void *standing_thread(void *arg)
{
    struct standing_arg *a = arg;
    for (int round = 0; round < 20; round++) {
        int k = (a->index + round) % STANDINGS, mode = (a->index + round) % 5;
        const struct camp *c = &a->camps[k];
        char path[96], inm[64], etag[40], want[40], other[40];
        snprintf(want, sizeof want, "\"%lld\"", a->versions[k]);
        /* Another campaign's current ETag: stale for this one. */
        snprintf(other, sizeof other, "\"%lld\"", a->versions[(k + 1) % STANDINGS]);
        snprintf(path, sizeof path, "/api/v1/campaigns/%s",
                 mode == 3   ? "00000000-0000-4000-8000-00000000beef"
                 : mode == 4 ? "not-a-campaign"
                             : c->id);
        snprintf(inm, sizeof inm, "If-None-Match: %s", mode == 1 ? want : other);
        const char *headers[] = {inm, NULL};
        struct http_resp *r =
            api(a->d, "GET", path, NULL, ANYONE, NULL, mode == 0 ? NULL : headers);
        const char *id = http_str(r, "id");
        const char *got = http_header(r, "ETag", etag, sizeof etag);
        bool ok;
        switch (mode) {
        case 1:
            ok = r->status == 304 && got && strcmp(got, want) == 0;
            break;
        case 3:
        case 4:
            ok = r->status == 404 && strcmp(http_str(r, "code"), "not-found") == 0;
            break;
        default:
            ok = r->status == 200 && strcmp(id, c->id) == 0 &&
                 http_int(r, "version") == a->versions[k] && got && strcmp(got, want) == 0;
        }
        a->bad += !ok;
        http_free(r);
    }
    return NULL;
}

static void test_standings_batched(void)
{
    struct camp camps[STANDINGS];
    long long versions[STANDINGS];
    for (int k = 0; k < STANDINGS; k++) {
        camps[k] = new_campaign("standard", "server");
        for (int i = 0; i < k; i++) { /* every campaign at a different version */
            struct http_resp *r =
                camp_post(&api_daemon, &camps[k], ORGANIZER, "/rotate-seed", "{}");
            CU_ASSERT_EQUAL(r->status, 200);
            http_free(r);
        }
        versions[k] = camp_version(&api_daemon, &camps[k]);
        CU_ASSERT(versions[k] > 0);
    }
    /* A daemon of its own: every request here is a new connection, and the closed ones can
     * outnumber the default --per-ip-limit for a moment. */
    struct daemon d;
    const char *args_d[] = {"--per-ip-limit", "4096", NULL};
    CU_ASSERT_FATAL(daemon_start(&d, api_conninfo, args_d));
    struct standing_arg args[2 * THREADS];
    pthread_t t[2 * THREADS];
    for (int i = 0; i < 2 * THREADS; i++) {
        args[i] = (struct standing_arg){&d, camps, versions, i, 0};
        pthread_create(&t[i], NULL, standing_thread, &args[i]);
    }
    int bad = 0;
    for (int i = 0; i < 2 * THREADS; i++) {
        pthread_join(t[i], NULL);
        bad += args[i].bad;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(daemon_stop(&d, SIGTERM, 30), 0);
}

/* The organizer's "start the next campaign" sent from two phones at once: one campaign starts,
 * the others are told the first is being played (never a 500, never two campaigns). */
static void test_concurrent_next(void)
{
    for (int round = 0; round < 5; round++) {
        struct http_resp *r =
            api(&api_daemon, "POST", "/api/v1/grand-campaigns", NULL, ANYONE,
                "{\"name\":\"race\",\"grand_ruleset\":\"island-hoppers-grand\"}", NULL);
        CU_ASSERT_EQUAL_FATAL(r->status, 201);
        struct camp g;
        memset(&g, 0, sizeof g);
        snprintf(g.id, sizeof g.id, "%s", http_str(r, "id"));
        snprintf(g.key[ORGANIZER], sizeof g.key[0], "%s", http_str(r, "organizer_key"));
        http_free(r);
        char path[128];
        snprintf(path, sizeof path, "/api/v1/grand-campaigns/%s/next", g.id);
        struct shot shots[4];
        for (int i = 0; i < 4; i++)
            shots[i] = (struct shot){.d = &api_daemon,
                                     .method = "POST",
                                     .path = path,
                                     .body = "{}",
                                     .c = &g,
                                     .who = ORGANIZER};
        CU_ASSERT_EQUAL(race(shots, 4, 201), 1);
        for (int i = 0; i < 4; i++) {
            if (shots[i].status != 201 && shots[i].status != 409)
                fprintf(stderr, "\nnext at once: %ld %s\n", shots[i].status, shots[i].body_out);
            CU_ASSERT(shots[i].status == 201 || shots[i].status == 409);
        }
        free_shots(shots, 4);
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM campaigns WHERE grand_campaign_id = '%s'",
                 g.id);
        CU_ASSERT_EQUAL(sql_long(sql), 1);
    }
}

void register_concurrency_tests(void)
{
    CU_pSuite s = CU_add_suite("idempotency and concurrency", NULL, NULL);
    CU_add_test(s, "Idempotency-Key: the same request twice", test_same_key_twice);
    CU_add_test(s, "Idempotency-Key on campaign creation", test_create_with_key);
    CU_add_test(s, "16 concurrent requests with one key: one roll", test_concurrent_same_key);
    CU_add_test(s, "Idempotency-Key on a campaign held in memory: one round trip, one answer",
                test_key_on_held_campaign);
    CU_add_test(s, "Idempotency-Key on a campaign held in memory: lost answers asked for again",
                test_key_lost_answers_held);
    CU_add_test(s, "the next campaign started from two phones at once", test_concurrent_next);
    CU_add_test(s, "16 threads racing one side's choice: one succeeds", test_racing_choices);
    CU_add_test(s, "racing rolls: numbers 1..N, no gap", test_racing_rolls_one_daemon);
    CU_add_test(s, "two daemons on one database", test_two_daemons);
    CU_add_test(s, "a write racing another daemon's write loads the campaign again and succeeds",
                test_state_moved_on);
    CU_add_test(
        s, "a reserve roll on a campaign held but moved on elsewhere: from a load, nothing lost",
        test_held_roll_moved_on);
    CU_add_test(s, "long polling: woken by a change, 304 on timeout", test_long_poll);
    CU_add_test(s, "long polling across daemons", test_long_poll_across_daemons);
    CU_add_test(s, "versions heard: a change made while the listener was away is not hidden",
                test_listener_reconnect);
    CU_add_test(s,
                "versions heard: changes deleted before a stopped daemon saw them are not hidden",
                test_changes_deleted_unseen);
    CU_add_test(s, "versions heard: two changes seen at once, the later one lower",
                test_two_changes_one_look);
    CU_add_test(s, "versions heard: a change committed across looks", test_change_across_looks);
    CU_add_test(s, "versions heard: a change made while the listener connects is not hidden",
                test_change_while_connecting);
    CU_add_test(s, "versions heard: the record of changes emptied under the listener",
                test_record_emptied);
    CU_add_test(s, "versions heard: a record of changes not this database's is started over",
                test_record_not_ours);
    CU_add_test(s, "a read takes the campaign held in memory while it is the one stored",
                test_state_read);
    CU_add_test(s, "a thousand long polls, one write: every one answered", test_thousand_polls);
    CU_add_test(s, "a read database that is not a standby, or does not answer, is not read",
                test_read_database_not_standby);
    CU_add_test(s, "32 threads of standing GETs: each its own answer", test_standings_batched);
}
