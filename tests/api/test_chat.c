/*
 * The group's chat: a campaign's (or grand campaign's) webhook, told of every roll, choice and
 * result. A real chat stand-in (tests/common/receiver.c) listens on 127.0.0.1; m44d runs with
 * --chat-private allow (so it may post there) and short retries, on a database of its own.
 */
#include "tests/api/client.h"
#include "tests/common/receiver.h"
#include "tests/common/testkit.h"

#include <libpq-fe.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct daemon chatd;
static char *chat_db;
static struct receiver *rx;
static const char *const chat_args[] = {
    "--chat-private", "allow", "--chat-retry-max", "1", "--chat-timeout", "4", NULL};

static int suite_init(void)
{
    chat_db = tk_new_database("api_chat");
    rx = receiver_start(0);
    return rx && daemon_start(&chatd, chat_db, chat_args) ? 0 : 1;
}

static int suite_clean(void)
{
    int st = daemon_stop(&chatd, SIGTERM, 30);
    receiver_free(rx);
    free(chat_db);
    return st == 0 ? 0 : 1;
}

static void hook_url(const char *path, char *out, size_t len)
{
    snprintf(out, len, "http://127.0.0.1:%d%s", receiver_port(rx), path);
}

static struct http_resp *set_chat(const struct daemon *d, const struct camp *c, enum who who,
                                  const char *path, const char *kind)
{
    char url[200], body[400];
    hook_url(path, url, sizeof url);
    if (kind)
        snprintf(body, sizeof body, "{\"url\":\"%s\",\"kind\":\"%s\"}", url, kind);
    else
        snprintf(body, sizeof body, "{\"url\":\"%s\"}", url);
    return camp_post(d, c, who, "/webhook", body);
}

static struct http_resp *chat_status(const struct daemon *d, const struct camp *c)
{
    char path[200];
    snprintf(path, sizeof path, "/api/v1/campaigns/%.40s/webhook", c->id);
    return api(d, "GET", path, c, ORGANIZER, NULL, NULL);
}

/* Waits until the chat's status says `field` reached `n` (or the time ran out); its value. */
static long long wait_status(const struct daemon *d, const struct camp *c, const char *field,
                             long long n, int timeout_s)
{
    long long v = -1;
    for (int i = 0; i < timeout_s * 10; i++) {
        struct http_resp *r = chat_status(d, c);
        v = r->status == 200 ? http_int(r, field) : -1;
        http_free(r);
        if (v >= n)
            break;
        usleep(100 * 1000);
    }
    return v;
}

/* The i-th message the chat got, as JSON (the generic body); NULL when none. */
static json_t *msg(int i)
{
    const char *b = receiver_body(rx, i);
    return b ? json_loads(b, 0, NULL) : NULL;
}

static const char *mstr(json_t *m, const char *k)
{
    const char *s = json_string_value(json_object_get(m, k));
    return s ? s : "";
}

/* Checks messages [from, from + n) of the chat: events in this order, each text containing
 * its `words`, each id once and rising, each sent with its own Idempotency-Key. */
static void check_messages(int from, int n, const char *const *events, const char *const *words,
                           const char *campaign_id)
{
    long long last = -1;
    for (int i = 0; i < n; i++) {
        json_t *m = msg(from + i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        if (strcmp(mstr(m, "event"), events[i]) != 0 || !strstr(mstr(m, "text"), words[i]))
            fprintf(stderr, "\nmessage %d: wanted %s with \"%s\", got %s\n", from + i, events[i],
                    words[i], receiver_body(rx, from + i));
        CU_ASSERT_STRING_EQUAL(mstr(m, "event"), events[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(mstr(m, "text"), words[i]));
        if (campaign_id)
            CU_ASSERT_STRING_EQUAL(mstr(json_object_get(m, "campaign"), "id"), campaign_id);
        long long id = json_integer_value(json_object_get(m, "id"));
        CU_ASSERT(id > last);
        last = id;
        char key[64];
        snprintf(key, sizeof key, "m44d-msg-%lld", id);
        CU_ASSERT_STRING_EQUAL(receiver_key(rx, from + i), key);
        json_decref(m);
    }
}

static const char *const CREATE =
    "{\"name\":\"Chat night\",\"ruleset\":\"standard\",\"dice\":\"table\","
    "\"reserve_tokens\":{\"allies\":2,\"axis\":2},\"players\":{\"allies\":\"Ann\","
    "\"axis\":\"Bob\"}}";

/* Battle 1 (Sainte-Mère-Église), both reserve rolls at the table, both choices, the result:
 * each step a message. */
static const char *const PLAY_EVENTS[] = {"battle_created", "reserve",        "reserve",
                                          "reserve_choice", "reserve_choice", "result"};
static const char *const PLAY_WORDS[] = {
    "Battle 1 set up: Sainte-Mère-Église. Allies move first.",
    "Allies rolled their reserves for battle 1 (at the table): grenade, flag.",
    "Axis rolled their reserves for battle 1 (at the table): grenade, star.",
    "Allies rolled their reserves for battle 1: grenade, flag: took ",
    "Axis rolled their reserves for battle 1: grenade, star: took an Elite armor unit (",
    "Battle 1 (Sainte-Mère-Église): Allies won, 4 medals to 2."};

static void play_battle(const struct daemon *d, const struct camp *c, int upto)
{
    const char *const steps[][3] = {
        {"/battles",
         "{\"scenario\":\"Sainte-Mère-Église\",\"first_player\":\"allies\","
         "\"cards\":{\"allies\":5,\"axis\":4},\"medals_to_win\":4}",
         "o"},
        {"/battles/1/reserve-roll", "{\"faces\":[\"grenade\",\"flag\"]}", "1"},
        {"/battles/1/reserve-roll", "{\"faces\":[\"grenade\",\"star\"]}", "2"},
        {"/battles/1/reserve-choice",
         "{\"options\":[{\"id\":\"grenade@0\",\"grant\":\"artillery\"},{\"id\":\"flag@1\"}]}", "1"},
        {"/battles/1/reserve-choice",
         "{\"options\":[{\"id\":\"star-grenade@0+1\",\"grant\":\"elite-armor\"}]}", "2"},
        {"/battles/1/result",
         "{\"winner\":\"allies\",\"medals\":{\"allies\":4,\"axis\":2},\"undeployed_reserves\":"
         "{\"allies\":0,\"axis\":0},\"objective_medals\":{\"allies\":1,\"axis\":0}}",
         "o"},
    };
    const long want[] = {201, 201, 201, 200, 200, 200};
    for (int i = 0; i < upto; i++) {
        enum who who = steps[i][2][0] == 'o' ? ORGANIZER : steps[i][2][0] == '1' ? ALLIES : AXIS;
        expect_status(camp_post(d, c, who, steps[i][0], steps[i][1]), want[i], steps[i][0]);
    }
}

/* ---- once each, in order, in players' words; the link never shown ---- */

static void test_in_order(void)
{
    receiver_clear(rx);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd, CREATE, &c));
    long long v0 = camp_version(&chatd, &c);
    struct http_resp *r = set_chat(&chatd, &c, ORGANIZER, "/hook/SECRET-path-7f3a", "generic");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "set")));
    CU_ASSERT_STRING_EQUAL(http_str(r, "host"), "127.0.0.1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "kind"), "generic");
    CU_ASSERT_TRUE(json_is_false(http_json_at(r, "inherited")));
    CU_ASSERT_PTR_NULL(strstr(r->body, "SECRET"));
    http_free(r);
    CU_ASSERT(camp_version(&chatd, &c) > v0); /* a page showing the campaign sees it */
    play_battle(&chatd, &c, 6);
    CU_ASSERT_FATAL(receiver_wait(rx, 7, 20));
    const char *events[7] = {"chat_set"}, *words[7] = {"This chat now hears about Chat night"};
    for (int i = 0; i < 6; i++)
        events[i + 1] = PLAY_EVENTS[i], words[i + 1] = PLAY_WORDS[i];
    check_messages(0, 7, events, words, c.id);
    for (int i = 0; i < 7; i++)
        CU_ASSERT_STRING_EQUAL(receiver_path(rx, i), "/hook/SECRET-path-7f3a");
    json_t *first = msg(0);
    CU_ASSERT_STRING_EQUAL(mstr(json_object_get(first, "campaign"), "name"), "Chat night");
    CU_ASSERT_TRUE(json_is_null(json_object_get(first, "grand_campaign")));
    json_decref(first);
    /* Once each: nothing comes again. (Delivered is written once the chat has answered: waited
     * for, as a slow machine may take a moment after the chat has the message.) */
    CU_ASSERT_EQUAL(wait_status(&chatd, &c, "delivered", 7, 20), 7);
    sleep(2);
    CU_ASSERT_EQUAL(receiver_count(rx), 7);
    r = chat_status(&chatd, &c);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(http_int(r, "delivered"), 7);
    CU_ASSERT_EQUAL(http_int(r, "pending"), 0);
    CU_ASSERT_EQUAL(http_int(r, "failed"), 0);
    CU_ASSERT_FALSE(json_is_null(http_json_at(r, "last_delivered_at")));
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "last_error")));
    http_free(r);
    /* The link is a secret: not in anything a reader of the campaign gets. */
    const char *reads[] = {"", "/log", "/export", "/battles/1", "/rolls"};
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        r = camp_get(&chatd, &c, reads[i]);
        CU_ASSERT_EQUAL(r->status, 200);
        CU_ASSERT_PTR_NULL(strstr(r->body, "SECRET"));
        CU_ASSERT_PTR_NULL(strstr(r->body, "/hook/"));
        if (strcmp(reads[i], "/log") == 0)
            CU_ASSERT_PTR_NOT_NULL(strstr(r->body, "\"host\":\"127.0.0.1\""));
        http_free(r);
    }
}

/* ---- a chat that is down ---- */

static void test_chat_down(void)
{
    receiver_clear(rx);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd, CREATE, &c));
    expect_status(set_chat(&chatd, &c, ORGANIZER, "/down", NULL), 200, "set");
    /* The greeting recorded as sent before the chat goes away (the chat seeing it is not
     * enough: an answer lost on the way means it comes again). */
    CU_ASSERT_FATAL(wait_status(&chatd, &c, "delivered", 1, 20) == 1);
    receiver_down(rx);
    /* Every action succeeds while the chat cannot be reached. */
    play_battle(&chatd, &c, 6);
    CU_ASSERT(wait_status(&chatd, &c, "pending", 6, 5) == 6);
    for (int i = 0; i < 100; i++) { /* the first failed try shows */
        struct http_resp *r = chat_status(&chatd, &c);
        bool seen = !json_is_null(http_json_at(r, "last_error"));
        if (seen) {
            /* In the organizer's words, not libcurl's ("Couldn't connect to server"). */
            CU_ASSERT_STRING_EQUAL(http_str(r, "last_error"),
                                   "the chat could not be reached: its server did not let this "
                                   "one connect (down, or closed to it)");
            CU_ASSERT_FALSE(json_is_null(http_json_at(r, "next_attempt_at")));
            CU_ASSERT_EQUAL(http_int(r, "delivered"), 1);
        }
        http_free(r);
        if (seen)
            break;
        CU_ASSERT(i < 99);
        usleep(100 * 1000);
    }
    CU_ASSERT_EQUAL(receiver_count(rx), 1);
    CU_ASSERT_FATAL(receiver_up(rx));
    CU_ASSERT_FATAL(receiver_wait(rx, 7, 30));
    check_messages(1, 6, PLAY_EVENTS, PLAY_WORDS, c.id);
    sleep(2);
    CU_ASSERT_EQUAL(receiver_count(rx), 7);
    CU_ASSERT_EQUAL(wait_status(&chatd, &c, "delivered", 7, 5), 7);
}

/* ---- m44d killed between the commit and the delivery ---- */

static void restart_chatd(void)
{
    int port = chatd.port;
    daemon_stop(&chatd, SIGKILL, 10);
    CU_ASSERT_FATAL(daemon_start_port(&chatd, chat_db, port, chat_args));
}

static void test_killed(void)
{
    receiver_clear(rx);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd, CREATE, &c));
    expect_status(set_chat(&chatd, &c, ORGANIZER, "/killed", NULL), 200, "set");
    /* The greeting recorded as sent before the chat goes away (the chat seeing it is not
     * enough: an answer lost on the way means it comes again). */
    CU_ASSERT_FATAL(wait_status(&chatd, &c, "delivered", 1, 20) == 1);
    /* Committed, not yet delivered (the chat is down), and the process dies. */
    receiver_down(rx);
    play_battle(&chatd, &c, 1);
    restart_chatd();
    CU_ASSERT_FATAL(receiver_up(rx));
    CU_ASSERT_FATAL(receiver_wait(rx, 2, 30));
    check_messages(1, 1, PLAY_EVENTS, PLAY_WORDS, c.id);
    CU_ASSERT_FATAL(wait_status(&chatd, &c, "delivered", 2, 20) == 2);

    /* Killed while the chat holds the request: sent again after the restart, with the same
     * Idempotency-Key, and then never again. */
    receiver_mode(rx, RECV_HANG, 0);
    expect_status(camp_post(&chatd, &c, ALLIES, "/battles/1/reserve-roll",
                            "{\"faces\":[\"grenade\",\"flag\"]}"),
                  201, "roll");
    CU_ASSERT_FATAL(receiver_wait(rx, 3, 20));
    restart_chatd();
    receiver_mode(rx, RECV_OK, 0);
    CU_ASSERT_FATAL(receiver_wait(rx, 4, 30));
    CU_ASSERT_STRING_EQUAL(receiver_key(rx, 3), receiver_key(rx, 2));
    CU_ASSERT_STRING_EQUAL(receiver_body(rx, 3), receiver_body(rx, 2));
    check_messages(2, 1, PLAY_EVENTS + 1, PLAY_WORDS + 1, c.id);
    sleep(2);
    CU_ASSERT_EQUAL(receiver_count(rx), 4);
    CU_ASSERT_EQUAL(wait_status(&chatd, &c, "delivered", 3, 5), 3);
}

/* ---- two m44d on one database, a slow chat: each message posted once ---- */

static void test_two_senders(void)
{
    receiver_clear(rx);
    struct daemon second;
    CU_ASSERT_FATAL(daemon_start(&second, chat_db, chat_args));
    /* Eight chats, each greeted and told of a battle while the chat is down; then it answers,
     * every answer 2 s late: sixteen workers between the two, and a sender that took several
     * at once and sent them one after another would outlive its lease. */
    receiver_down(rx);
    struct camp c[8];
    for (int i = 0; i < 8; i++) {
        CU_ASSERT_FATAL(camp_create(i % 2 ? &second : &chatd, CREATE, &c[i]));
        char path[32];
        snprintf(path, sizeof path, "/two/%d", i);
        expect_status(set_chat(i % 2 ? &second : &chatd, &c[i], ORGANIZER, path, NULL), 200, "set");
        expect_status(camp_post(&chatd, &c[i], ORGANIZER, "/battles",
                                "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"allies\","
                                "\"cards\":{\"allies\":5,\"axis\":4},\"medals_to_win\":4}"),
                      201, "battle");
    }
    for (int i = 0; i < 8; i++) /* every greeting tried once: all due again together */
        for (int k = 0; k < 100; k++) {
            struct http_resp *r = chat_status(&chatd, &c[i]);
            bool tried = !json_is_null(http_json_at(r, "last_error"));
            http_free(r);
            if (tried)
                break;
            CU_ASSERT_FATAL(k < 99);
            usleep(100 * 1000);
        }
    receiver_delay(rx, 2000);
    CU_ASSERT_FATAL(receiver_up(rx));
    for (int i = 0; i < 8; i++) /* the first that does not arrive ends the test */
        CU_ASSERT_EQUAL_FATAL(wait_status(&chatd, &c[i], "delivered", 2, 30), 2);
    receiver_delay(rx, 0);
    sleep(2); /* a repeat would come now */
    int n = receiver_count(rx);
    CU_ASSERT_EQUAL(n, 16);
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            if (strcmp(receiver_key(rx, i), receiver_key(rx, k)) == 0) {
                fprintf(stderr, "\n%s posted twice\n", receiver_key(rx, i));
                CU_FAIL("a message posted twice");
            }
    CU_ASSERT_EQUAL(daemon_stop(&second, SIGTERM, 30), 0);
}

/* ---- refused, and removed ---- */

static void test_refusals(void)
{
    receiver_clear(rx);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd, CREATE, &c));
    long long v = camp_version(&chatd, &c);
    char longurl[2100] = "http://127.0.0.1/";
    memset(longurl + strlen(longurl), 'a', 2000);
    longurl[2050] = '\0';
    char longbody[2200];
    snprintf(longbody, sizeof longbody, "{\"url\":\"%s\"}", longurl);
    const char *bad[] = {"{\"url\":\"ftp://127.0.0.1/x\"}",
                         "{\"url\":\"http://127.0.0.1/a b\"}",
                         "{\"url\":\"127.0.0.1/hook\"}",
                         "{\"url\":\"http:///nohost\"}",
                         "{\"url\":\"\"}",
                         "{\"url\":7}",
                         "{}",
                         "{\"url\":\"https://example.org/h\",\"kind\":\"irc\"}",
                         "{\"url\":\"https://example.org/h\",\"color\":\"red\"}",
                         longbody,
                         "{\"url\":\"http://127.0.0.1:99999/x\"}",
                         "{\"url\":\"http://a@b@127.0.0.1:8080/t\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct http_resp *r = camp_post(&chatd, &c, ORGANIZER, "/webhook", bad[i]);
        if (r->status != 400)
            fprintf(stderr, "\n%.80s: expected 400, got %ld %s\n", bad[i], r->status, r->body);
        CU_ASSERT_EQUAL(r->status, 400);
        CU_ASSERT(strlen(http_str(r, "detail")) > 10);
        /* Refused for the field at fault, not for something else. */
        const char *field = i == 7 ? "kind" : i == 8 ? "color" : "url";
        CU_ASSERT_STRING_EQUAL(http_str(r, "field"), field);
        http_free(r);
    }
    /* Only the organizer sets it, or sees how it goes. */
    struct http_resp *r = set_chat(&chatd, &c, ALLIES, "/x", NULL);
    assert_problem(r, 403, "forbidden");
    http_free(r);
    r = set_chat(&chatd, &c, ANYONE, "/x", NULL);
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    char path[200];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/webhook", c.id);
    r = api(&chatd, "GET", path, &c, AXIS, NULL, NULL);
    assert_problem(r, 403, "forbidden");
    CU_ASSERT_STRING_EQUAL(http_str(r, "detail"),
                           "Only the organizer sees how the chat goes; this is the Axis key.");
    http_free(r);
    r = api(&chatd, "GET", path, &c, ANYONE, NULL, NULL);
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&chatd, &c), v);
    CU_ASSERT_EQUAL(receiver_count(rx), 0);

    /* Setting the chat is not a move in the game: the last move can still be undone. */
    expect_status(camp_post(&chatd, &c, ORGANIZER, "/battles",
                            "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"allies\","
                            "\"cards\":{\"allies\":5,\"axis\":4},\"medals_to_win\":4}"),
                  201, "battle");
    expect_status(set_chat(&chatd, &c, ORGANIZER, "/undo", NULL), 200, "set");
    r = camp_get(&chatd, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.action"), "battle_created");
    http_free(r);
    expect_status(camp_post(&chatd, &c, ORGANIZER, "/undo", "{}"), 200, "undo");
    r = camp_get(&chatd, &c, "");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "battles")), 0);
    http_free(r);
    CU_ASSERT_FATAL(wait_status(&chatd, &c, "delivered", 2, 20) == 2); /* greeting, undo */
    expect_status(camp_post(&chatd, &c, ORGANIZER, "/webhook", "{\"url\":null}"), 200, "off");
    receiver_clear(rx);

    /* Removed: what was not yet sent is not sent, and says why. */
    expect_status(set_chat(&chatd, &c, ORGANIZER, "/removed", NULL), 200, "set");
    /* The greeting recorded as sent before the chat goes away (the first chat's greeting and
     * its word of the undo, then this one). */
    CU_ASSERT_FATAL(wait_status(&chatd, &c, "delivered", 3, 20) == 3);
    receiver_down(rx);
    play_battle(&chatd, &c, 2);
    r = camp_post(&chatd, &c, ORGANIZER, "/webhook", "{\"url\":null}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_TRUE(json_is_false(http_json_at(r, "set")));
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "host")));
    CU_ASSERT_EQUAL(http_int(r, "pending"), 0);
    CU_ASSERT_EQUAL(http_int(r, "failed"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "last_error"), "removed"));
    http_free(r);
    /* Removed again (a second tab, a double tap): said as it is, and nothing written: no
     * version, no second line in the log saying it was removed. */
    long long before = camp_version(&chatd, &c);
    r = camp_get(&chatd, &c, "/log");
    size_t lines = json_array_size(r->json);
    http_free(r);
    r = camp_post(&chatd, &c, ORGANIZER, "/webhook", "{\"url\":null}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_TRUE(json_is_false(http_json_at(r, "set")));
    CU_ASSERT_EQUAL(http_int(r, "failed"), 2);
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&chatd, &c), before);
    r = camp_get(&chatd, &c, "/log");
    CU_ASSERT(lines > 0);
    CU_ASSERT_EQUAL(json_array_size(r->json), lines);
    http_free(r);
    CU_ASSERT_FATAL(receiver_up(rx));
    expect_status(camp_post(&chatd, &c, AXIS, "/battles/1/reserve-roll",
                            "{\"faces\":[\"grenade\",\"star\"]}"),
                  201, "roll without a chat");
    sleep(2);
    CU_ASSERT_EQUAL(receiver_count(rx), 1);
}

/* ---- a chat that fails, then refuses: tried again, then given up, said in words ---- */

static void test_chat_refuses(void)
{
    receiver_clear(rx);
    receiver_mode(rx, RECV_STATUS, 503);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd, CREATE, &c));
    expect_status(set_chat(&chatd, &c, ORGANIZER, "/refuses", NULL), 200, "set");
    struct http_resp *r = NULL;
    for (int k = 0; k < 100; k++) { /* the greeting tried once */
        http_free(r);
        r = chat_status(&chatd, &c);
        if (!json_is_null(http_json_at(r, "last_error")))
            break;
        usleep(100 * 1000);
    }
    /* A fault of the chat's own: kept, and tried again. */
    CU_ASSERT_STRING_EQUAL(http_str(r, "last_error"), "the chat has a fault of its own");
    CU_ASSERT_EQUAL(http_int(r, "pending"), 1);
    CU_ASSERT_EQUAL(http_int(r, "failed"), 0);
    http_free(r);
    /* The link deleted on the chat's side: given up at the next attempt (a second after, as
     * --chat-retry-max is 1; tried again, it would take --chat-attempts' 12), and said why. */
    receiver_mode(rx, RECV_STATUS, 404);
    CU_ASSERT_EQUAL_FATAL(wait_status(&chatd, &c, "failed", 1, 6), 1);
    r = chat_status(&chatd, &c);
    CU_ASSERT_STRING_EQUAL(http_str(r, "last_error"),
                           "the chat says this link does not exist (deleted, or mistyped)");
    CU_ASSERT_EQUAL(http_int(r, "pending"), 0);
    CU_ASSERT_EQUAL(http_int(r, "delivered"), 0);
    http_free(r);
    int tries = receiver_count(rx);
    sleep(2); /* a given-up message is not tried again */
    CU_ASSERT_EQUAL(receiver_count(rx), tries);
    /* The organizer sets the link again, as the page asks, and the chat takes it: the failure
     * is history (in the counts), no longer what the chat's state says, neither while the
     * greeting waits nor once it is delivered. */
    receiver_mode(rx, RECV_OK, 0);
    receiver_clear(rx);
    r = set_chat(&chatd, &c, ORGANIZER, "/refuses", NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_EQUAL(http_int(r, "failed"), 1);
    CU_ASSERT_EQUAL(http_int(r, "pending"), 1);
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "last_error")));
    http_free(r);
    CU_ASSERT_EQUAL_FATAL(wait_status(&chatd, &c, "delivered", 1, 20), 1);
    r = chat_status(&chatd, &c);
    CU_ASSERT_EQUAL(http_int(r, "failed"), 1);
    CU_ASSERT_EQUAL(http_int(r, "pending"), 0);
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "last_error")));
    http_free(r);
    receiver_clear(rx);
}

/* A link kept from an older, looser check, which the sender cannot read: given up at its first
 * attempt (tried again, it would hold its chat for --chat-attempts' 12), and said why. */
static void test_unusable_link_given_up(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd, CREATE, &c));
    char sql[600];
    snprintf(sql, sizeof sql,
             "INSERT INTO outbox (scope, campaign_id, url, kind, message) VALUES ('%s', '%s', "
             "'http://127.0.0.1:99999/old', 'generic', '{\"event\": \"x\", \"text\": "
             "\"t\"}')",
             c.id, c.id);
    PGconn *pg = PQconnectdb(chat_db);
    PGresult *q = PQexec(pg, sql);
    CU_ASSERT_EQUAL_FATAL(PQresultStatus(q), PGRES_COMMAND_OK);
    PQclear(q);
    CU_ASSERT_EQUAL(wait_status(&chatd, &c, "failed", 1, 10), 1);
    struct http_resp *r = chat_status(&chatd, &c);
    CU_ASSERT_STRING_EQUAL(http_str(r, "last_error"),
                           "not sent: the chat link is not a web address this server can use");
    CU_ASSERT_EQUAL(http_int(r, "pending"), 0);
    http_free(r);
    snprintf(sql, sizeof sql, "SELECT attempts, url IS NULL FROM outbox WHERE scope = '%s'", c.id);
    q = PQexec(pg, sql);
    CU_ASSERT_EQUAL(PQntuples(q), 1);
    if (PQntuples(q) == 1) {
        CU_ASSERT_STRING_EQUAL(PQgetvalue(q, 0, 0), "1");
        CU_ASSERT_STRING_EQUAL(PQgetvalue(q, 0, 1), "t"); /* the link is not kept */
    }
    PQclear(q);
    PQfinish(pg);
}

/* ---- private addresses: refused unless the server allows them ---- */

static void test_private_refused(void)
{
    receiver_clear(rx);
    struct camp c;
    /* The shared daemon runs with the default, --chat-private deny. */
    CU_ASSERT_FATAL(camp_create(&api_daemon, CREATE, &c));
    char body[300];
    snprintf(body, sizeof body, "{\"url\":\"http://localhost:%d/private\"}", receiver_port(rx));
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/webhook", body), 200, "set");
    CU_ASSERT_EQUAL(wait_status(&api_daemon, &c, "failed", 1, 20), 1);
    struct http_resp *r = chat_status(&api_daemon, &c);
    CU_ASSERT_EQUAL(http_int(r, "pending"), 0);
    CU_ASSERT_EQUAL(http_int(r, "delivered"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "last_error"), "private or local network"));
    CU_ASSERT_STRING_EQUAL(http_str(r, "host"), "localhost");
    http_free(r);
    sleep(1);
    CU_ASSERT_EQUAL(receiver_count(rx), 0);
}

/* ---- Discord's and Slack's bodies: no name anyone typed pings the channel ---- */

static void test_kinds(void)
{
    receiver_clear(rx);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd,
                                "{\"name\":\"<!channel> & @everyone\",\"ruleset\":\"standard\","
                                "\"dice\":\"table\"}",
                                &c));
    struct http_resp *r = set_chat(&chatd, &c, ORGANIZER, "/discord", "discord");
    CU_ASSERT_STRING_EQUAL(http_str(r, "kind"), "discord");
    http_free(r);
    CU_ASSERT_FATAL(receiver_wait(rx, 1, 20));
    json_t *d = msg(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_STRING_EQUAL(mstr(d, "username"), "m44d");
    CU_ASSERT(strncmp(mstr(d, "content"), "**<!channel> & @everyone**: This chat now hears", 47) ==
              0);
    json_t *parse = json_object_get(json_object_get(d, "allowed_mentions"), "parse");
    CU_ASSERT_TRUE(json_is_array(parse) && json_array_size(parse) == 0);
    json_decref(d);

    r = set_chat(&chatd, &c, ORGANIZER, "/slack", "slack");
    CU_ASSERT_STRING_EQUAL(http_str(r, "kind"), "slack");
    http_free(r);
    CU_ASSERT_FATAL(receiver_wait(rx, 2, 20));
    json_t *s = msg(1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(json_object_size(s), 1);
    CU_ASSERT(strncmp(mstr(s, "text"), "*&lt;!channel&gt; &amp; @everyone*: This chat now hears",
                      55) == 0);
    CU_ASSERT_STRING_EQUAL(receiver_path(rx, 1), "/slack");
    json_decref(s);

    /* A name at its longest, every byte escaped or several to a character: sent whole. */
    char name[256] = "&";
    for (int i = 0; i < 169; i++)
        strcat(name, "<");
    for (int i = 0; i < 10; i++)
        strcat(name, "€");
    char create[600];
    snprintf(create, sizeof create, "{\"name\":\"%s\",\"ruleset\":\"standard\",\"dice\":\"table\"}",
             name);
    struct camp longc;
    CU_ASSERT_FATAL(camp_create(&chatd, create, &longc));
    expect_status(set_chat(&chatd, &longc, ORGANIZER, "/slack-long", "slack"), 200, "long");
    CU_ASSERT_FATAL(receiver_wait(rx, 3, 20));
    json_t *l = msg(2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT(strncmp(mstr(l, "text"), "*&amp;&lt;&lt;", 14) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mstr(l, "text"), "€€€€€€€€€€*: This chat now hears"));
    json_decref(l);

    /* Left out, the kind follows the link's host. */
    r = camp_post(&chatd, &c, ORGANIZER, "/webhook",
                  "{\"url\":\"https://discord.com/api/webhooks/1/abc\"}");
    CU_ASSERT_STRING_EQUAL(http_str(r, "kind"), "discord");
    CU_ASSERT_STRING_EQUAL(http_str(r, "host"), "discord.com");
    http_free(r);
    r = camp_post(&chatd, &c, ORGANIZER, "/webhook",
                  "{\"url\":\"https://hooks.slack.com/services/T/B/x\"}");
    CU_ASSERT_STRING_EQUAL(http_str(r, "kind"), "slack");
    http_free(r);
    expect_status(camp_post(&chatd, &c, ORGANIZER, "/webhook", "{\"url\":null}"), 200, "remove");
}

/* ---- a grand campaign's chat hears all its campaigns ---- */

static void test_grand(void)
{
    receiver_clear(rx);
    struct http_resp *r = api(&chatd, "POST", "/api/v1/grand-campaigns", NULL, ANYONE,
                              "{\"name\":\"Pacific\",\"grand_ruleset\":\"island-hoppers-grand\","
                              "\"dice\":\"table\"}",
                              NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", http_str(r, "id"));
    snprintf(g.key[ORGANIZER], sizeof g.key[0], "%s", http_str(r, "organizer_key"));
    snprintf(g.key[ALLIES], sizeof g.key[0], "%s", http_str(r, "allies_key"));
    snprintf(g.key[AXIS], sizeof g.key[0], "%s", http_str(r, "axis_key"));
    http_free(r);
    char path[200], url[200], body[300];
    snprintf(path, sizeof path, "/api/v1/grand-campaigns/%s/webhook", g.id);
    hook_url("/grand", url, sizeof url);
    snprintf(body, sizeof body, "{\"url\":\"%s\"}", url);
    r = api(&chatd, "POST", path, &g, ALLIES, body, NULL);
    assert_problem(r, 403, "forbidden");
    http_free(r);
    r = api(&chatd, "POST", path, &g, ORGANIZER, body, NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "kind"), "generic");
    http_free(r);
    CU_ASSERT_FATAL(receiver_wait(rx, 1, 20));

    snprintf(path, sizeof path, "/api/v1/grand-campaigns/%s/next", g.id);
    r = api(&chatd, "POST", path, &g, ORGANIZER, "{}", NULL);
    CU_ASSERT_EQUAL_FATAL(r->status, 201);
    struct camp m = g;
    snprintf(m.id, sizeof m.id, "%s", http_str(r, "id"));
    http_free(r);
    /* The campaign hears its grand campaign's chat, in that chat's order. */
    r = chat_status(&chatd, &m);
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "inherited")));
    CU_ASSERT_STRING_EQUAL(http_str(r, "host"), "127.0.0.1");
    http_free(r);
    expect_status(camp_post(&chatd, &m, ORGANIZER, "/battles",
                            "{\"scenario\":\"Henderson Field\",\"first_player\":\"axis\","
                            "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":6}"),
                  201, "battle");
    CU_ASSERT_FATAL(receiver_wait(rx, 3, 20));
    const char *events[] = {"chat_set", "campaign_started", "battle_created"};
    const char *words[] = {"This chat now hears about Pacific", "1 of 4",
                           "Battle 1 set up: Henderson Field. Axis move first."};
    check_messages(0, 3, events, words, NULL);
    json_t *last = msg(2);
    CU_ASSERT_STRING_EQUAL(mstr(json_object_get(last, "grand_campaign"), "id"), g.id);
    CU_ASSERT_STRING_EQUAL(mstr(json_object_get(last, "grand_campaign"), "name"), "Pacific");
    CU_ASSERT_STRING_EQUAL(mstr(json_object_get(last, "campaign"), "id"), m.id);
    json_decref(last);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_STRING_EQUAL(receiver_path(rx, i), "/grand");

    /* A chat of its own: the campaign's news goes there from then on. */
    expect_status(set_chat(&chatd, &m, ORGANIZER, "/own", NULL), 200, "own chat");
    expect_status(
        camp_post(&chatd, &m, ALLIES, "/battles/1/reserve-roll", "{\"faces\":[\"flag\",\"flag\"]}"),
        201, "roll");
    CU_ASSERT_FATAL(receiver_wait(rx, 5, 20));
    CU_ASSERT_STRING_EQUAL(receiver_path(rx, 3), "/own");
    CU_ASSERT_STRING_EQUAL(receiver_path(rx, 4), "/own");
    r = chat_status(&chatd, &m);
    CU_ASSERT_TRUE(json_is_false(http_json_at(r, "inherited")));
    http_free(r);
    /* Its own removed, it hears the grand campaign's again, and the answer says so. */
    r = camp_post(&chatd, &m, ORGANIZER, "/webhook", "{\"url\":null}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "set")));
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "inherited")));
    http_free(r);
    /* Its own removed again: nothing of its own to remove, the grand campaign's stays. */
    long long v = camp_version(&chatd, &m);
    r = camp_post(&chatd, &m, ORGANIZER, "/webhook", "{\"url\":null}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "inherited")));
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&chatd, &m), v);
    /* The grand campaign's chat set again: its campaign's page sees its log change. */
    snprintf(path, sizeof path, "/api/v1/grand-campaigns/%s/webhook", g.id);
    expect_status(api(&chatd, "POST", path, &g, ORGANIZER, body, NULL), 200, "again");
    CU_ASSERT(camp_version(&chatd, &m) > v);
    r = camp_get(&chatd, &m, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.action"), "roll");
    http_free(r);
    /* The grand campaign's chat removed, then removed again: the second writes nothing (the
     * same version of the grand campaign, and of its campaign, which heard of the first). */
    char first[40], second[40];
    r = api(&chatd, "POST", path, &g, ORGANIZER, "{\"url\":null}", NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_PTR_NOT_NULL_FATAL(http_header(r, "ETag", first, sizeof first));
    http_free(r);
    v = camp_version(&chatd, &m);
    r = api(&chatd, "POST", path, &g, ORGANIZER, "{\"url\":null}", NULL);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_TRUE(json_is_false(http_json_at(r, "set")));
    CU_ASSERT_PTR_NOT_NULL_FATAL(http_header(r, "ETag", second, sizeof second));
    CU_ASSERT_STRING_EQUAL(second, first);
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&chatd, &m), v);
}

/* ---- the end of a campaign: who won, by what decided it ---- */

/* A campaign of `ruleset` (dice at the table) with this chat, finished after one battle set up
 * with `battle` and ended with `result` (NULL: no battle played): the chat's "finished" message
 * must contain `want`. */
static void check_finished(const char *ruleset, const char *battle, const char *result,
                           const char *want)
{
    receiver_clear(rx);
    char create[200];
    snprintf(create, sizeof create,
             "{\"name\":\"Last night\",\"ruleset\":\"%s\",\"dice\":\"table\"}", ruleset);
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&chatd, create, &c));
    struct http_resp *r = set_chat(&chatd, &c, ORGANIZER, "/hook/end", "generic");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    http_free(r);
    int messages = 2; /* the chat set, the end */
    if (result) {
        expect_status(camp_post(&chatd, &c, ORGANIZER, "/battles", battle), 201, "battle");
        for (enum who w = ALLIES; w <= AXIS; w++)
            expect_status(camp_post(&chatd, &c, w, "/battles/1/reserve-roll",
                                    "{\"faces\":[\"flag\",\"flag\"]}"),
                          201, "roll");
        for (enum who w = ALLIES; w <= AXIS; w++)
            expect_status(camp_post(&chatd, &c, w, "/battles/1/reserve-choice", "{\"options\":[]}"),
                          200, "choice");
        expect_status(camp_post(&chatd, &c, ORGANIZER, "/battles/1/result", result), 200, "result");
        messages += 6;
    }
    expect_status(camp_post(&chatd, &c, ORGANIZER, "/finish", "{}"), 200, "finish");
    CU_ASSERT_FATAL(receiver_wait(rx, messages, 20));
    json_t *m = msg(messages - 1);
    CU_ASSERT_STRING_EQUAL(mstr(m, "event"), "finished");
    if (!strstr(mstr(m, "text"), want))
        fprintf(stderr, "\nwanted \"%s\", got \"%s\"\n", want, mstr(m, "text"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mstr(m, "text"), want));
    json_decref(m);
}

/* RULES.md 9: "Campaign Book 1 winner: the side with more campaign victory points (medals +
 * objective bonus), ties broken by battles won"; RULES.md 2: otherwise battles won, then
 * medals. The objective tracks are Campaign Book 1's (The Breakout: Allies 0, +1, +2 for 0, 1,
 * 2 objective medals, the Axis -2; Taking Caen: the Allies -1 for none, the Axis 0). */
static void test_finished_words(void)
{
    /* The Axis won the one battle, 5 medals to 4, but the Allies took 2 objectives: 4 + 2 = 6
     * victory points against 5 - 2 = 3. */
    check_finished("cb1-the-breakout", "{}",
                   "{\"winner\":\"axis\",\"medals\":{\"allies\":4,\"axis\":5},"
                   "\"objective_medals\":{\"allies\":2,\"axis\":0}}",
                   "Last night is over: Allies won, 6 victory points to 3.");
    /* 5 - 1 = 4 victory points each: the battle the Allies won decides. */
    check_finished("cb1-taking-caen", "{}",
                   "{\"winner\":\"allies\",\"medals\":{\"allies\":5,\"axis\":4},"
                   "\"objective_medals\":{\"allies\":0,\"axis\":0}}",
                   "Last night is over: Allies won, 1 battle to 0, after a tie (victory points 4 "
                   "each).");
    /* Battles first, then medals: one battle to none; nothing played, a draw on both. */
    check_finished("standard",
                   "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"allies\","
                   "\"cards\":{\"allies\":5,\"axis\":4},\"medals_to_win\":4}",
                   "{\"winner\":\"axis\",\"medals\":{\"allies\":3,\"axis\":4}}",
                   "Last night is over: Axis won, 1 battle to 0.");
    check_finished("standard", NULL, NULL,
                   "Last night is over: a draw (battles won 0 each, medals 0 each).");
}

void register_chat_tests(void)
{
    CU_pSuite s = CU_add_suite("the group's chat", suite_init, suite_clean);
    CU_add_test(s, "messages arrive once each, in order, in players' words", test_in_order);
    CU_add_test(s, "the chat down: actions succeed, messages come after", test_chat_down);
    CU_add_test(s, "m44d killed before or during delivery still delivers", test_killed);
    CU_add_test(s, "two m44d, a slow chat: each message posted once", test_two_senders);
    CU_add_test(s, "bad links, wrong keys, a removed chat", test_refusals);
    CU_add_test(s, "a chat at fault is tried again; one that refuses, given up", test_chat_refuses);
    CU_add_test(s, "a link the sender cannot read is given up at once",
                test_unusable_link_given_up);
    CU_add_test(s, "private addresses refused by default", test_private_refused);
    CU_add_test(s, "Discord and Slack bodies", test_kinds);
    CU_add_test(s, "a grand campaign's chat", test_grand);
    CU_add_test(s, "the end of a campaign: who won, by what decided it", test_finished_words);
}
