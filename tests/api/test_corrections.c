/*
 * Correcting mistakes at the table (API.md, second round): undo and key re-issue. The expected
 * state after an undo is not computed: it is the state the campaign showed before the action,
 * read through the API, and every view must be that again (the standing, each battle, the
 * rolls still in force).
 */
#include "tests/api/client.h"
#include "tests/common/testkit.h"

#include <libpq-fe.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct daemon other; /* where the round trip is imported */
static char *other_db;

/* A battle set up by hand (a campaign without a scenario list). */
#define BATTLE_A                                                                                   \
    "{\"scenario\":\"A\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,\"axis\":5},"         \
    "\"medals_to_win\":6}"

static int suite_init(void)
{
    return other_daemon_start(&other, &other_db, "api_corrections");
}

static int suite_clean(void)
{
    return other_daemon_stop(&other, &other_db);
}

/* Everything a player can read about the campaign, but its version: the standing, every battle,
 * and the rolls not voided. */
static json_t *snapshot(const struct daemon *d, const struct camp *c)
{
    struct http_resp *r = camp_get(d, c, "");
    json_t *s = json_deep_copy(r->json);
    http_free(r);
    json_object_del(s, "version");
    json_t *battles = json_array();
    for (size_t n = 1; n <= json_array_size(json_object_get(s, "battles")); n++) {
        char p[32];
        snprintf(p, sizeof p, "/battles/%zu", n);
        r = camp_get(d, c, p);
        json_array_append(battles, r->json);
        http_free(r);
    }
    json_t *rolls = json_array();
    r = camp_get(d, c, "/rolls");
    for (size_t i = 0; i < json_array_size(r->json); i++)
        if (!json_is_true(json_object_get(json_array_get(r->json, i), "voided")))
            json_array_append(rolls, json_array_get(r->json, i));
    http_free(r);
    return json_pack("{s:o, s:o, s:o}", "standing", s, "battles", battles, "rolls", rolls);
}

/* Without the times things were written and the ledger's row numbers: an import writes
 * everything again, now. */
static void strip_times(json_t *j)
{
    if (json_is_object(j)) {
        static const char *const times[] = {"at", "created_at", "finished_at", "seq"};
        for (size_t k = 0; k < sizeof times / sizeof times[0]; k++)
            json_object_del(j, times[k]);
        for (void *it = json_object_iter(j); it; it = json_object_iter_next(j, it))
            strip_times(json_object_iter_value(it));
    } else if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++)
            strip_times(json_array_get(j, i));
    }
}

static void same_as(json_t *before, json_t *after, const char *what)
{
    bool same = json_equal(before, after);
    if (!same) {
        char *a = jstr(before), *b = jstr(after);
        fprintf(stderr, "\nafter undoing %s:\n before %s\n after  %s\n", what, a, b);
        free(a);
        free(b);
    }
    CU_ASSERT_TRUE(same);
}

/* Campaign c exported and imported into the other daemon reads the same there, but for what an
 * import gives anew: its last action (the import, which cannot be undone), its seed and keys,
 * and the times things were written. */
static void same_after_import(const struct camp *c, const char *what)
{
    camp_copy_to(&other, c);
    json_t *here = snapshot(&api_daemon, c), *there = snapshot(&other, c);
    static const char *const differ[] = {"undo", "seed_commitment", "seed_epoch", "seeds",
                                         "key_tags"};
    for (size_t k = 0; k < sizeof differ / sizeof differ[0]; k++) {
        json_object_del(json_object_get(here, "standing"), differ[k]);
        json_object_del(json_object_get(there, "standing"), differ[k]);
    }
    strip_times(here);
    strip_times(there);
    same_as(here, there, what);
    json_decref(here);
    json_decref(there);
}

/* Does `body` as `who`, undoes it as `undoer`, checks everything is as before, and does it
 * again (the table's corrected action). */
static void do_undo_redo(const struct camp *c, enum who who, const char *path, const char *body,
                         long status, enum who undoer, const char *again)
{
    json_t *before = snapshot(&api_daemon, c);
    expect_status(camp_post(&api_daemon, c, who, path, body), status, path);
    struct http_resp *r = camp_post(&api_daemon, c, undoer, "/undo", "{}");
    if (r->status != 200)
        fprintf(stderr, "\nundo of %s: %ld %s\n", path, r->status, r->body);
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_PTR_NOT_NULL(json_object_get(r->json, "undone"));
    CU_ASSERT_PTR_NOT_NULL(json_object_get(r->json, "sides")); /* the standing */
    /* The reply's standing is the campaign's now: what it offers to undo next is the action
     * before the one undone, as a read of the campaign says. */
    struct http_resp *now = camp_get(&api_daemon, c, "");
    bool same_next =
        json_equal(json_object_get(r->json, "undo"), json_object_get(now->json, "undo"));
    if (!same_next) {
        char *a = jstr(json_object_get(r->json, "undo")),
             *b = jstr(json_object_get(now->json, "undo"));
        fprintf(stderr, "\nafter undoing %s, the reply offers %s, a read %s\n", path, a, b);
        free(a);
        free(b);
    }
    CU_ASSERT_TRUE(same_next);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(r->json, "version")),
                    json_integer_value(json_object_get(now->json, "version")));
    http_free(now);
    http_free(r);
    json_t *after = snapshot(&api_daemon, c);
    same_as(before, after, path);
    json_decref(before);
    json_decref(after);
    expect_status(camp_post(&api_daemon, c, who, path, again ? again : body), status, path);
}

/* Every kind of undoable action, undone and done again, through two battles of a Fall of
 * Poland campaign with dice at the table and What-if on (token effects, a held token, token
 * carry-over from a result). */
static void test_every_action_undone(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"undo\",\"ruleset\":\"fall-of-poland\",\"dice\":"
                                "\"table\",\"what_if\":true,\"reserve_tokens\":{\"allies\":2,"
                                "\"axis\":2}}",
                                &c));
    /* The Axis' What-if: German Partisans (-2 Polish tokens); the Allies' by the organizer's
     * undo, the Axis' by their own. */
    do_undo_redo(&c, ALLIES, "/what-if", "{\"faces\":[\"armor\"]}", 201, ORGANIZER, NULL);
    do_undo_redo(&c, AXIS, "/what-if", "{\"faces\":[\"star\"]}", 201, AXIS, NULL);
    do_undo_redo(&c, ORGANIZER, "/battles",
                 "{\"scenario\":\"Mokra\",\"first_player\":\"axis\",\"cards\":{\"allies\":5,"
                 "\"axis\":5},\"medals_to_win\":6}",
                 201, ORGANIZER, NULL);
    /* A mis-tapped die: flag for star. */
    do_undo_redo(&c, AXIS, "/battles/1/reserve-roll", "{\"faces\":[\"flag\",\"flag\"]}", 201, AXIS,
                 "{\"faces\":[\"flag\",\"star\"]}");
    do_undo_redo(&c, AXIS, "/battles/1/reserve-choice",
                 "{\"options\":[{\"id\":\"star-flag@0+1\",\"grant\":\"air-sortie\"}]}", 200, AXIS,
                 "{\"options\":[{\"id\":\"star-flag@0+1\",\"grant\":\"elite-infantry\"}]}");
    do_undo_redo(&c, ALLIES, "/battles/1/reserve-roll", "{\"faces\":[\"star\",\"star\"]}", 201,
                 ORGANIZER, NULL);
    do_undo_redo(&c, ALLIES, "/battles/1/reserve-choice",
                 "{\"options\":[{\"id\":\"star-star-veteran@0+1\"}]}", 200, ALLIES, NULL);
    /* The Veteran Star is held: marking it used, undone. */
    struct http_resp *r = camp_get(&api_daemon, &c, "");
    long held = http_int(r, "sides.allies.held.0.id");
    http_free(r);
    char path[64];
    snprintf(path, sizeof path, "/held/%ld/use", held);
    do_undo_redo(&c, ORGANIZER, path, "{}", 200, ORGANIZER, NULL);
    /* A wrong result, undone; the right one gives the winner its undeployed reserve (the elite
     * infantry it called up) back as a token. */
    do_undo_redo(&c, ORGANIZER, "/battles/1/result",
                 "{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2},"
                 "\"undeployed_reserves\":{\"allies\":0,\"axis\":1}}",
                 200, ORGANIZER,
                 "{\"winner\":\"axis\",\"medals\":{\"allies\":2,\"axis\":6},"
                 "\"undeployed_reserves\":{\"allies\":0,\"axis\":1}}");
    do_undo_redo(&c, ORGANIZER, "/battles",
                 "{\"scenario\":\"Bzura\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                 "\"axis\":5},\"medals_to_win\":6}",
                 201, ORGANIZER, NULL);
    do_undo_redo(&c, AXIS, "/battles/2/victory-events", "{\"faces\":[\"flag\",\"flag\",\"star\"]}",
                 201, AXIS, NULL);
    /* The voided rolls keep their numbers; the numbers run on. */
    r = camp_get(&api_daemon, &c, "/rolls");
    size_t voided = 0;
    for (size_t i = 0; i < json_array_size(r->json); i++) {
        json_t *x = json_array_get(r->json, i);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(x, "n")), (json_int_t)i + 1);
        voided += json_is_true(json_object_get(x, "voided"));
    }
    CU_ASSERT_EQUAL(voided, 5); /* two What-if, two reserve, one victory event roll */
    http_free(r);
    /* Every undo is in the log, with who did it. */
    r = camp_get(&api_daemon, &c, "/log");
    int undos = 0, by_axis = 0;
    for (size_t i = 0; i < json_array_size(r->json); i++) {
        json_t *e = json_array_get(r->json, i);
        if (strcmp(json_string_value(json_object_get(e, "action")), "undo") == 0) {
            undos++;
            by_axis += strcmp(json_string_value(json_object_get(e, "actor")), "axis") == 0;
        }
    }
    CU_ASSERT_EQUAL(undos, 11);
    CU_ASSERT_EQUAL(by_axis, 4);
    http_free(r);
    /* The whole record, undos and all, survives export and import, and verifies. */
    same_after_import(&c, "nothing: the import of a record with undos");
}

/* An Island Hoppers campaign at the table: the Allies' What-if infantry, the Axis' `axis_face`,
 * and battle 1 set up. */
static void island_hoppers_battle(struct camp *c, const char *axis_face)
{
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"forward\",\"ruleset\":\"island-hoppers\",\"dice\":"
                                "\"table\",\"what_if\":true}",
                                c));
    char body[64];
    snprintf(body, sizeof body, "{\"faces\":[\"%s\"]}", axis_face);
    expect_status(camp_post(&api_daemon, c, ALLIES, "/what-if", "{\"faces\":[\"infantry\"]}"), 201,
                  "wi");
    expect_status(camp_post(&api_daemon, c, AXIS, "/what-if", body), 201, "wi");
    expect_status(camp_post(&api_daemon, c, ORGANIZER, "/battles",
                            "{\"scenario\":\"Guadalcanal\",\"first_player\":\"allies\",\"cards\":{"
                            "\"allies\":5,\"axis\":5},\"medals_to_win\":6}"),
                  201, "battle");
}

/* What-if rolls with consequences elsewhere, undone: Soviet Invasion rolled after Szack was set
 * up (battle 1 goes back to its own set-up and to waiting for the roll); Forward Command's second
 * roll giving Forward Command again (the first roll still stands: the event stays, and so does
 * the right to roll again); a battle picked for Night Attacks. */
static void test_what_if_consequences_undone(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(&api_daemon,
                                "{\"name\":\"szack\",\"ruleset\":\"fall-of-poland\",\"dice\":"
                                "\"table\",\"what_if\":true}",
                                &c));
    expect_status(
        camp_post(&api_daemon, &c, ORGANIZER, "/battles",
                  "{\"scenario\":\"Szack\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                  "\"axis\":5},\"medals_to_win\":6,\"commissar\":\"axis\"}"),
        201, "Szack first");
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/what-if", "{\"faces\":[\"armor\"]}"), 201,
                  "wi");
    do_undo_redo(&c, AXIS, "/what-if", "{\"faces\":[\"flag\"]}", 201, AXIS, NULL);
    struct http_resp *r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "first_player"), "axis"); /* done again: in force */
    http_free(r);

    struct camp ih;
    island_hoppers_battle(&ih, "grenade");
    do_undo_redo(&ih, AXIS, "/battles/1/pick", "{\"event\":\"night-attacks\"}", 200, ORGANIZER,
                 NULL);

    struct camp fc;
    island_hoppers_battle(&fc, "star");
    for (int s = ALLIES; s <= AXIS; s++) {
        expect_status(camp_post(&api_daemon, &fc, (enum who)s, "/battles/1/reserve-roll",
                                "{\"faces\":[\"flag\",\"flag\"]}"),
                      201, "roll");
        expect_status(camp_post(&api_daemon, &fc, (enum who)s, "/battles/1/reserve-choice",
                                "{\"options\":[]}"),
                      200, "nothing");
    }
    expect_status(camp_post(&api_daemon, &fc, ORGANIZER, "/battles/1/result",
                            "{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2}}"),
                  200, "result");
    do_undo_redo(&fc, AXIS, "/what-if", "{\"faces\":[\"star\"]}", 201, AXIS, NULL);
}

/* An undo decided on a version of the campaign (If-Match) is refused once anything else was
 * done: it would undo something other than what the player was shown. */
static void test_undo_if_match(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"match\",\"ruleset\":\"standard\",\"dice\":\"table\"}", &c));
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles", BATTLE_A), 201, "battle");
    expect_status(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-roll",
                            "{\"faces\":[\"flag\",\"flag\"]}"),
                  201, "roll");
    long long seen = camp_version(&api_daemon, &c);
    expect_status(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice", "{\"options\":[]}"),
                  200, "choice");
    char path[128], match[64];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/undo", c.id);
    snprintf(match, sizeof match, "If-Match: \"%lld\"", seen);
    const char *h[] = {match, NULL};
    long long version = camp_version(&api_daemon, &c);
    struct http_resp *r = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", h);
    assert_problem(r, 412, "precondition-failed");
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), version);
}

/* "Never undoable: a server roll": 409 not-undoable, and nothing changes. */
static void test_server_roll_never(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"server\",\"ruleset\":\"standard\",\"dice\":\"either\"}", &c));
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles", BATTLE_A), 201, "battle");
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll", "{}"), 201, "roll");
    long long version = camp_version(&api_daemon, &c);
    struct http_resp *r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_EQUAL(json_array_size(http_json_at(r, "undo.who")), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "undo.why_not"), "never undone"));
    http_free(r);
    for (enum who w = ORGANIZER; w <= ALLIES; w++) {
        r = camp_post(&api_daemon, &c, w, "/undo", "{}");
        assert_problem(r, 409, "not-undoable");
        CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "detail"), "rolled again"));
        http_free(r);
    }
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), version);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM rolls WHERE voided AND campaign_id = '%s'",
             c.id);
    CU_ASSERT_EQUAL(sql_long(sql), 0);
}

/* Who may undo what: a side only its own last action; the organizer any; nothing before the
 * first action, nothing after the end. */
static void test_who_may_undo(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"who\",\"ruleset\":\"standard\",\"dice\":\"table\"}", &c));
    struct http_resp *r = camp_post(&api_daemon, &c, ORGANIZER, "/undo", "{}");
    assert_problem(r, 409, "not-undoable"); /* nothing done yet */
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_TRUE(json_is_null(http_json_at(r, "undo")));
    http_free(r);
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles", BATTLE_A), 201, "battle");
    expect_status(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-roll",
                            "{\"faces\":[\"flag\",\"flag\"]}"),
                  201, "roll");
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.by"), "axis");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.who.1"), "axis");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(r, "undo.what"), "the Axis' reserve roll for battle 1"));
    http_free(r);
    long long version = camp_version(&api_daemon, &c);
    r = camp_post(&api_daemon, &c, ALLIES, "/undo", "{}");
    assert_problem(r, 409, "not-undoable"); /* the Axis' roll, not the Allies' */
    http_free(r);
    r = api(&api_daemon, "POST", "/api/v1/campaigns/00000000-0000-4000-8000-000000000000/undo", &c,
            ORGANIZER, "{}", NULL);
    assert_problem(r, 404, "not-found");
    http_free(r);
    r = camp_post(&api_daemon, &c, ANYONE, "/undo", "{}");
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    r = camp_post(&api_daemon, &c, ORGANIZER, "/undo", "{\"what\":1}");
    assert_problem(r, 400, "unknown-field");
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), version);
    /* The organizer may: then the battle set-up is last, which the Axis may not undo. */
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/undo", "{}"), 200, "organizer's undo");
    r = camp_post(&api_daemon, &c, AXIS, "/undo", "{}");
    assert_problem(r, 409, "not-undoable");
    http_free(r);
    /* After the end: a finished campaign is not reopened. */
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/undo", "{}"), 200, "the set-up undone");
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/finish", "{}"), 200, "finish");
    r = camp_post(&api_daemon, &c, ORGANIZER, "/undo", "{}");
    assert_problem(r, 409, "not-undoable");
    http_free(r);
}

/* `body` posted to undo as `who` is refused with 409 not-undoable, its detail saying `words`,
 * and changes nothing. */
static void undo_refused(const struct camp *c, enum who who, const char *body, const char *words)
{
    long long version = camp_version(&api_daemon, c);
    struct http_resp *r = camp_post(&api_daemon, c, who, "/undo", body);
    assert_problem(r, 409, "not-undoable");
    const char *detail = http_str(r, "detail");
    if (!detail || !strstr(detail, words))
        fprintf(stderr, "\nundo %s: wanted \"%s\" in %s\n", body, words, r->body);
    CU_ASSERT_PTR_NOT_NULL(detail && strstr(detail, words));
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, c), version);
}

/* The faces of side `side`'s reserve roll in battle 1, as the battle shows them ("" for none). */
static void reserve_faces(const struct camp *c, const char *side, char *out, size_t len)
{
    struct http_resp *r = camp_get(&api_daemon, c, "/battles/1");
    char path[64];
    snprintf(path, sizeof path, "reserves.%s.faces", side);
    json_t *f = http_json_at(r, path);
    char *text = json_is_array(f) ? json_dumps(f, JSON_COMPACT) : NULL;
    snprintf(out, len, "%s", text ? text : "");
    free(text);
    http_free(r);
}

static bool waiting_for(const struct camp *c, const char *need)
{
    struct http_resp *r = camp_get(&api_daemon, c, "");
    bool found = false;
    json_t *w = http_json_at(r, "waiting_for");
    for (size_t i = 0; i < json_array_size(w); i++)
        found = found || strcmp(json_string_value(json_array_get(w, i)), need) == 0;
    http_free(r);
    return found;
}

/* A side's earlier table roll or reserve choice is undone after the other side went on (the
 * Axis let the server roll after the Allies mistyped their dice): the Allies' roll is voided and
 * keeps its number, the Axis' roll and choice stand as they were, and the Allies enter their
 * faces again. What depends on the action stops it (its own choice, the result), and so does
 * everything the last action's undo refuses; the record survives export and import. */
static void test_undo_earlier(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"earlier\",\"ruleset\":\"standard\",\"dice\":\"either\"}", &c));
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles", BATTLE_A), 201, "battle");
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                            "{\"faces\":[\"flag\",\"flag\"]}"),
                  201, "the Allies' mistyped roll"); /* roll 1 */
    expect_status(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-roll", "{}"), 201,
                  "the Axis' server roll"); /* roll 2 */
    char axis_faces[64], faces[64];
    reserve_faces(&c, "axis", axis_faces, sizeof axis_faces);
    CU_ASSERT_NOT_EQUAL(axis_faces[0], '\0');
    /* The last action is the server's roll: no undo of the last action takes the Allies' back. */
    undo_refused(&c, ALLIES, "{}", "rolled again");
    /* Not theirs to take back, nor a server roll, nor a roll there is not. */
    undo_refused(&c, AXIS, "{\"roll\":1}", "only the Allies or the organizer");
    undo_refused(&c, ORGANIZER, "{\"roll\":2}", "rolled again");
    undo_refused(&c, ALLIES, "{\"roll\":99}", "no roll 99");
    undo_refused(&c, ALLIES, "{\"reserve_choice\":{\"battle\":1,\"side\":\"allies\"}}",
                 "no reserve choice for battle 1");
    long long version = camp_version(&api_daemon, &c);
    struct http_resp *r = camp_post(&api_daemon, &c, ALLIES, "/undo", "{\"roll\":0}");
    assert_problem(r, 400, "invalid-field");
    http_free(r);
    r = camp_post(&api_daemon, &c, ALLIES, "/undo",
                  "{\"roll\":1,\"reserve_choice\":{\"battle\":1,\"side\":\"allies\"}}");
    assert_problem(r, 400, "invalid-field");
    http_free(r);
    r = camp_post(&api_daemon, &c, ALLIES, "/undo", "{\"reserve_choice\":{\"battle\":1}}");
    assert_problem(r, 400, "missing-field");
    http_free(r);
    CU_ASSERT_EQUAL(camp_version(&api_daemon, &c), version);

    /* The Allies take theirs back. */
    r = camp_post(&api_daemon, &c, ALLIES, "/undo", "{\"roll\":1}");
    CU_ASSERT_EQUAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "undone.what"),
                           "the Allies' reserve roll for battle 1 (Flag, Flag)");
    /* What the last action's undo would undo is still the Axis' server roll, which it cannot. */
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.by"), "axis");
    CU_ASSERT_PTR_NOT_NULL(http_str(r, "undo.why_not"));
    http_free(r);
    r = camp_get(&api_daemon, &c, "/rolls");
    CU_ASSERT_EQUAL(json_array_size(r->json), 2);
    CU_ASSERT_TRUE(json_is_true(http_json_at(r, "0.voided")));
    CU_ASSERT_FALSE(json_is_true(http_json_at(r, "1.voided")));
    http_free(r);
    reserve_faces(&c, "allies", faces, sizeof faces);
    CU_ASSERT_STRING_EQUAL(faces, "");
    reserve_faces(&c, "axis", faces, sizeof faces);
    CU_ASSERT_STRING_EQUAL(faces, axis_faces);
    CU_ASSERT_TRUE(waiting_for(&c, "allies:reserve-roll"));
    CU_ASSERT_TRUE(waiting_for(&c, "axis:reserve-choice"));
    undo_refused(&c, ALLIES, "{\"roll\":1}", "undone already");
    /* Entered again: roll 3. */
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                  "{\"faces\":[\"flag\",\"star\"]}");
    CU_ASSERT_EQUAL(r->status, 201);
    CU_ASSERT_EQUAL(http_int(r, "roll"), 3);
    http_free(r);

    /* Their choice from those dice depends on them: undone first. The Axis choose meanwhile. */
    expect_status(
        camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice", "{\"options\":[]}"), 200,
        "the Allies' choice");
    expect_status(camp_post(&api_daemon, &c, AXIS, "/battles/1/reserve-choice", "{\"options\":[]}"),
                  200, "the Axis' choice");
    undo_refused(&c, ALLIES, "{\"roll\":3}",
                 "the Allies' reserve choice for battle 1 came after "
                 "it; undo that first");
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/undo",
                            "{\"reserve_choice\":{\"battle\":1,\"side\":\"allies\"}}"),
                  200, "the Allies' choice undone after the Axis chose");
    CU_ASSERT_TRUE(waiting_for(&c, "allies:reserve-choice"));
    CU_ASSERT_FALSE(waiting_for(&c, "axis:reserve-choice"));
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/undo", "{\"roll\":3}"), 200,
                  "the organizer undoes the Allies' roll");
    CU_ASSERT_TRUE(waiting_for(&c, "allies:reserve-roll"));
    r = camp_get(&api_daemon, &c, "/battles/1");
    CU_ASSERT_STRING_EQUAL(http_str(r, "phase"), "reserves");
    CU_ASSERT_PTR_NOT_NULL(http_json_at(r, "reserves.axis.chosen"));
    CU_ASSERT_FALSE(json_is_null(http_json_at(r, "reserves.axis.chosen")));
    http_free(r);
    /* Done again, and the battle played: its result depends on every roll before it. */
    expect_status(camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                            "{\"faces\":[\"star\",\"star\"]}"),
                  201, "roll 4");
    expect_status(
        camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-choice", "{\"options\":[]}"), 200,
        "chosen again");
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles/1/result",
                            "{\"winner\":\"allies\",\"medals\":{\"allies\":6,\"axis\":2}}"),
                  200, "result");
    undo_refused(&c, ORGANIZER, "{\"reserve_choice\":{\"battle\":1,\"side\":\"axis\"}}",
                 "the result of battle 1 (Allies won, medals Allies 6, Axis 2) came after it and "
                 "may depend on it");
    /* Every undo is in the log, naming the line it undid. */
    r = camp_get(&api_daemon, &c, "/log");
    int undos = 0;
    for (size_t i = 0; i < json_array_size(r->json); i++) {
        json_t *e = json_array_get(r->json, i);
        undos += strcmp(json_string_value(json_object_get(e, "action")), "undo") == 0 &&
                 json_is_integer(json_object_get(json_object_get(e, "detail"), "undid"));
    }
    CU_ASSERT_EQUAL(undos, 3);
    http_free(r);
    /* The record survives export and import. */
    same_after_import(&c, "nothing: the import of a record with earlier actions undone");
}

/* The standing's tags of the three keys (organizer, allies, axis): 8 hex digits each. */
static void key_tags(const struct camp *c, char tags[3][16])
{
    struct http_resp *r = camp_get(&api_daemon, c, "");
    const char *names[3] = {"key_tags.organizer", "key_tags.allies", "key_tags.axis"};
    for (int k = 0; k < 3; k++) {
        const char *t = http_str(r, names[k]);
        snprintf(tags[k], 16, "%s", t ? t : "");
        CU_ASSERT_EQUAL(strspn(tags[k], "0123456789abcdef"), 8);
        CU_ASSERT_EQUAL(strlen(tags[k]), 8);
    }
    http_free(r);
}

/* The tag of `key` as the rule says, computed here: 8 hex digits of a BLAKE2b of the key's
 * SHA-256, keyed with the database's secret (read with libpq, never from m44d). */
static void tag_of(const char *key, char out[16])
{
    out[0] = '\0';
    PGconn *pg = PQconnectdb(api_conninfo);
    PGresult *q = PQexec(pg, "SELECT encode(secret, 'hex') FROM m44_key_tag_secret");
    uint8_t secret[32], h[32], tag[16];
    if (PQresultStatus(q) == PGRES_TUPLES_OK && PQntuples(q) == 1 &&
        sodium_hex2bin(secret, sizeof secret, PQgetvalue(q, 0, 0), 64, NULL, NULL, NULL) == 0) {
        crypto_hash_sha256(h, (const unsigned char *)key, strlen(key));
        crypto_generichash(tag, sizeof tag, h, sizeof h, secret, sizeof secret);
        sodium_bin2hex(out, 9, tag, 4);
    }
    PQclear(q);
    PQfinish(pg);
}

/* POST .../keys/{role}: a new key, the old one refused at once, all in the log (the key not). */
static void test_key_reissue(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"keys\",\"ruleset\":\"standard\",\"dice\":\"table\"}", &c));
    struct http_resp *r = camp_post(&api_daemon, &c, ALLIES, "/keys/allies", "{}");
    assert_problem(r, 403, "forbidden"); /* the organizer's to do */
    http_free(r);
    r = camp_post(&api_daemon, &c, ORGANIZER, "/keys/nobody", "{}");
    assert_problem(r, 404, "not-found");
    http_free(r);
    const char *shorter[] = {"Idempotency-Key: new-key-1", NULL};
    char path[128];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/keys/allies", c.id);
    r = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", shorter);
    assert_problem(r, 400, "invalid-parameter"); /* an answer with a key: a long one */
    http_free(r);
    /* The standing tags each key; three keys, three tags, the same at every read. */
    char before[3][16], again[3][16], after[3][16];
    key_tags(&c, before);
    key_tags(&c, again);
    for (int k = 0; k < 3; k++)
        CU_ASSERT_STRING_EQUAL(again[k], before[k]);
    CU_ASSERT(strcmp(before[0], before[1]) != 0 && strcmp(before[1], before[2]) != 0 &&
              strcmp(before[0], before[2]) != 0);
    /* Keyed with the database's secret: nobody without it can tell a key from its tag. */
    for (int k = 0; k < 3; k++) {
        char want[16];
        tag_of(c.key[k], want);
        CU_ASSERT_STRING_EQUAL(before[k], want);
    }
    r = camp_post(&api_daemon, &c, ORGANIZER, "/keys/allies", "{}");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(r, "role"), "allies");
    struct camp renewed = c;
    snprintf(renewed.key[ALLIES], sizeof renewed.key[0], "%s", http_str(r, "key"));
    http_free(r);
    CU_ASSERT_STRING_NOT_EQUAL(renewed.key[ALLIES], c.key[ALLIES]);
    /* Only the Allies' tag moved: a page on the Allies' old link asks about its key again, the
     * others do not. Nor is the tag a part of the key. */
    key_tags(&c, after);
    CU_ASSERT_STRING_EQUAL(after[ORGANIZER], before[ORGANIZER]);
    CU_ASSERT_STRING_NOT_EQUAL(after[ALLIES], before[ALLIES]);
    CU_ASSERT_STRING_EQUAL(after[AXIS], before[AXIS]);
    CU_ASSERT_PTR_NULL(strstr(renewed.key[ALLIES], after[ALLIES]));
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles", BATTLE_A), 201, "battle");
    r = camp_post(&api_daemon, &c, ALLIES, "/battles/1/reserve-roll",
                  "{\"faces\":[\"flag\",\"flag\"]}");
    assert_problem(r, 401, "unauthorized"); /* the old link */
    http_free(r);
    expect_status(camp_post(&api_daemon, &renewed, ALLIES, "/battles/1/reserve-roll",
                            "{\"faces\":[\"flag\",\"flag\"]}"),
                  201, "the new link");
    r = api(&api_daemon, "GET", "/api/v1/campaigns", NULL, ANYONE, NULL, NULL);
    http_free(r);
    /* The organizer's own key too: the old one stops. */
    r = camp_post(&api_daemon, &c, ORGANIZER, "/keys/organizer", "{}");
    CU_ASSERT_EQUAL_FATAL(r->status, 200);
    snprintf(renewed.key[ORGANIZER], sizeof renewed.key[0], "%s", http_str(r, "key"));
    http_free(r);
    r = camp_post(&api_daemon, &c, ORGANIZER, "/keys/axis", "{}");
    assert_problem(r, 401, "unauthorized");
    http_free(r);
    /* Logged, without the key; and a key change is no action an undo would take back. */
    r = camp_get(&api_daemon, &c, "/log");
    int issued = 0;
    for (size_t i = 0; i < json_array_size(r->json); i++) {
        json_t *e = json_array_get(r->json, i);
        issued += strcmp(json_string_value(json_object_get(e, "action")), "key_reissued") == 0;
    }
    CU_ASSERT_EQUAL(issued, 2);
    CU_ASSERT_PTR_NULL(strstr(r->body, renewed.key[ALLIES]));
    CU_ASSERT_PTR_NULL(strstr(r->body, renewed.key[ORGANIZER]));
    http_free(r);
    r = camp_get(&api_daemon, &c, "");
    CU_ASSERT_STRING_EQUAL(http_str(r, "undo.action"), "roll");
    http_free(r);
    /* A NUL in the path never stands for the end of a role or an id. */
    r = camp_post(&api_daemon, &renewed, ORGANIZER, "/keys/allies%00", "{}");
    assert_problem(r, 404, "not-found");
    http_free(r);
}

/* The organizer re-issues its own key and the answer is lost: the same request again, with the
 * same Idempotency-Key and the key it was sent with, gets the same answer (the new key), and
 * nothing else is possible with the old key. */
static void test_lost_answer_to_own_reissue(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"lost\",\"ruleset\":\"standard\",\"dice\":\"table\"}", &c));
    char path[128];
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/keys/organizer", c.id);
    const char *h[] = {"Idempotency-Key: 3f1c0d2e-organizer-reissue-7a6b5c4d3e2f", NULL};
    struct http_resp *a = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", h);
    struct http_resp *b = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", h);
    CU_ASSERT_EQUAL(a->status, 200);
    CU_ASSERT_EQUAL(b->status, 200);
    CU_ASSERT_STRING_EQUAL(a->body, b->body);
    http_free(a);
    struct http_resp *b_keep = b; /* the new organizer key */
    const char *another[] = {"Idempotency-Key: 3f1c0d2e-another-request-7a6b5c4d3e2f01", NULL};
    a = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", another);
    assert_problem(a, 401, "unauthorized");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(a, "detail"), "replaced"));
    http_free(a);
    a = camp_post(&api_daemon, &c, ORGANIZER, "/battles", BATTLE_A);
    assert_problem(a, 401, "unauthorized");
    http_free(a);
    a = camp_get(&api_daemon, &c, "/role");
    http_free(a);
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/role", c.id);
    a = api(&api_daemon, "GET", path, &c, ORGANIZER, NULL, NULL);
    assert_problem(a, 401, "unauthorized");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(a, "detail"), "replaced"));
    http_free(a);

    /* The new organizer key gives the Allies a new key. The old organizer key, sending that very
     * request with its Idempotency-Key, is refused: it only gets its own answers again, never
     * one given to the key that replaced it (here, the Allies' new key). */
    struct camp now = c;
    snprintf(now.key[ORGANIZER], sizeof now.key[0], "%s", http_str(b_keep, "key"));
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/keys/allies", c.id);
    const char *allies_h[] = {"Idempotency-Key: 3f1c0d2e-allies-reissue-by-the-new-key-7a6b", NULL};
    a = api(&api_daemon, "POST", path, &now, ORGANIZER, "{}", allies_h);
    CU_ASSERT_EQUAL_FATAL(a->status, 200);
    char allies_key[64];
    snprintf(allies_key, sizeof allies_key, "%s", http_str(a, "key"));
    http_free(a);
    a = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", allies_h);
    assert_problem(a, 401, "unauthorized");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(a, "detail"), "replaced"));
    CU_ASSERT_PTR_NULL(strstr(a->body, allies_key));
    char replayed[16];
    CU_ASSERT_PTR_NULL(http_header(a, "Idempotent-Replayed", replayed, sizeof replayed));
    http_free(a);
    a = api(&api_daemon, "POST", path, &now, ORGANIZER, "{}", allies_h); /* its own: again */
    CU_ASSERT_EQUAL(a->status, 200);
    CU_ASSERT_STRING_EQUAL(http_str(a, "key"), allies_key);
    http_free(a);
    http_free(b_keep);
}

/* An organizer key replaced since it re-issued a side's key never gets that side's key again,
 * even with the request's own Idempotency-Key: of answers that hold a key, a replaced key is
 * given again only the re-issue of itself. Its other lost answers it still gets (a side's roll,
 * its key replaced meanwhile). Every read that needs the organizer says the link was replaced. */
static void test_replaced_key_gets_no_other_key(void)
{
    struct camp c;
    CU_ASSERT_FATAL(camp_create(
        &api_daemon, "{\"name\":\"replaced\",\"ruleset\":\"standard\",\"dice\":\"table\"}", &c));
    expect_status(camp_post(&api_daemon, &c, ORGANIZER, "/battles", BATTLE_A), 201, "battle");
    char path[160], roll_path[160];
    /* The Allies roll; their answer is lost. */
    snprintf(roll_path, sizeof roll_path, "/api/v1/campaigns/%s/battles/1/reserve-roll", c.id);
    const char *roll_h[] = {"Idempotency-Key: 5b2e-allies-roll-before-their-key-changed", NULL};
    struct http_resp *roll =
        api(&api_daemon, "POST", roll_path, &c, ALLIES, "{\"faces\":[\"flag\",\"star\"]}", roll_h);
    CU_ASSERT_EQUAL_FATAL(roll->status, 201);
    /* The organizer gives the Allies a new key, then itself. */
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/keys/allies", c.id);
    const char *allies_h[] = {"Idempotency-Key: 5b2e-allies-key-by-the-first-organizer-key", NULL};
    struct http_resp *a = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", allies_h);
    CU_ASSERT_EQUAL_FATAL(a->status, 200);
    char allies_key[64];
    snprintf(allies_key, sizeof allies_key, "%s", http_str(a, "key"));
    http_free(a);
    char org_path[160];
    snprintf(org_path, sizeof org_path, "/api/v1/campaigns/%s/keys/organizer", c.id);
    const char *org_h[] = {"Idempotency-Key: 5b2e-organizer-key-by-the-first-organizer-key", NULL};
    struct http_resp *o = api(&api_daemon, "POST", org_path, &c, ORGANIZER, "{}", org_h);
    CU_ASSERT_EQUAL_FATAL(o->status, 200);
    /* The first organizer key asks for the Allies' key again: refused, and not in the answer. */
    a = api(&api_daemon, "POST", path, &c, ORGANIZER, "{}", allies_h);
    assert_problem(a, 401, "unauthorized");
    CU_ASSERT_PTR_NOT_NULL(strstr(http_str(a, "detail"), "organizer link was replaced"));
    CU_ASSERT_PTR_NULL(strstr(a->body, allies_key));
    http_free(a);
    /* Its own re-issue, whose answer it lost: given again. */
    a = api(&api_daemon, "POST", org_path, &c, ORGANIZER, "{}", org_h);
    CU_ASSERT_EQUAL(a->status, 200);
    CU_ASSERT_STRING_EQUAL(a->body, o->body);
    http_free(a);
    /* The Allies' old key gets its lost roll again (no key in it). */
    a = api(&api_daemon, "POST", roll_path, &c, ALLIES, "{\"faces\":[\"flag\",\"star\"]}", roll_h);
    CU_ASSERT_EQUAL(a->status, 201);
    CU_ASSERT_STRING_EQUAL(a->body, roll->body);
    http_free(a);
    /* How the chat goes, asked with the replaced organizer key: said replaced, as elsewhere. */
    snprintf(path, sizeof path, "/api/v1/campaigns/%s/webhook", c.id);
    a = api(&api_daemon, "GET", path, &c, ORGANIZER, NULL, NULL);
    assert_problem(a, 401, "unauthorized");
    CU_ASSERT_STRING_EQUAL(http_str(a, "detail"), "This organizer link was replaced by a new one: "
                                                  "ask the organizer for the new link.");
    http_free(a);
    http_free(o);
    http_free(roll);
}

void register_corrections_tests(void)
{
    CU_pSuite s = CU_add_suite("corrections: undo and keys", suite_init, suite_clean);
    CU_add_test(s, "every undoable action undone: everything as before", test_every_action_undone);
    CU_add_test(s, "What-if consequences undone (Szack, Forward Command, a picked battle)",
                test_what_if_consequences_undone);
    CU_add_test(s, "an undo decided on an older version is refused", test_undo_if_match);
    CU_add_test(s, "a server roll is never undone", test_server_roll_never);
    CU_add_test(s, "who may undo what", test_who_may_undo);
    CU_add_test(s, "a side's earlier table roll or choice undone after the other side went on",
                test_undo_earlier);
    CU_add_test(s, "a new key for a role: the old one refused at once", test_key_reissue);
    CU_add_test(s, "a replaced key replays its own lost answer, never its successor's",
                test_lost_answer_to_own_reissue);
    CU_add_test(s, "a replaced organizer key never gets a side's key again",
                test_replaced_key_gets_no_other_key);
}
