/* Ruleset loading: the built-ins, broken files refused with file + JSON path + reason,
 * --rulesets-dir additions and replacements, "extends". */
#include "campaign/ruleset_load.h"
#include "tests/common/testkit.h"
#include "tests/rules/rulestest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_builtins(void)
{
    const char *const *ids = tk_rulesets;
    CU_ASSERT_EQUAL(test_rulesets.n, tk_nrulesets);
    for (int i = 0; i < tk_nrulesets; i++) {
        const struct ruleset_entry *e = rulesets_find(&test_rulesets, ids[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT(strlen(e->rs->name) > 0 && strlen(e->rs->description) > 0);
        /* The served document is the resolved one: no "extends" left, and valid JSON. */
        json_t *j = json_loads(e->json, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL(j);
        CU_ASSERT_PTR_NULL(json_object_get(j, "extends"));
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "id")), ids[i]);
        json_decref(j);
    }
    /* What the readings of RULES.md say lives in data, not code. */
    const struct ruleset *std = rs_get("standard");
    CU_ASSERT_TRUE(std->reserve.enabled);
    CU_ASSERT_EQUAL(std->reserve.dice, 2);
    CU_ASSERT_EQUAL(std->victory.from_battle, 2);
    CU_ASSERT_EQUAL(std->victory.base_dice, 2);
    CU_ASSERT_EQUAL(std->victory.per_battle_won, 1);
    CU_ASSERT_EQUAL(std->outcome.rank_by[0], RANK_BATTLES_WON);
    CU_ASSERT_EQUAL(std->outcome.rank_by[1], RANK_MEDALS);
    const struct ruleset *bt = rs_get("break-through-normandy");
    CU_ASSERT_EQUAL(bt->what_if.faces[0], FACE_INFANTRY);
    CU_ASSERT_EQUAL(bt->what_if.faces[4], FACE_FLAG);
    const struct ruleset *sp = rs_get("simplified");
    CU_ASSERT_FALSE(sp->reserve.enabled);
    CU_ASSERT_TRUE(sp->victory.previous_medals);
    CU_ASSERT_EQUAL(sp->victory.base_dice, 0);
    /* Children inherit the standard grants and victory rules. */
    CU_ASSERT_PTR_NOT_NULL(ruleset_grant(rs_get("fall-of-poland"), "sandbag"));
    CU_ASSERT_TRUE(rs_get("fall-of-poland")->victory.enabled);
}

struct broken_case {
    const char *doc;
    const char *want; /* substring of the error, after "bad.json: " */
};

#define HEAD   "\"id\":\"t\",\"name\":\"n\",\"description\":\"d\""
#define OPT(x) "\"grants\":{\"infantry\":\"inf\"},\"reserve\":{\"dice\":2,\"options\":{" x "}}"

static const struct broken_case broken[] = {
    {"[]", "$: a ruleset is a JSON object"},
    {"{}", "$.id: is required"},
    {"{\"id\":\"Bad Id\",\"name\":\"n\",\"description\":\"d\"}", "$.id: ids are lowercase"},
    {"{" HEAD ",\"colour\":1}", "$: unknown field \"colour\""},
    {"{\"id\":\"t\",\"description\":\"d\"}", "$.name: is required"},
    {"{\"id\":\"t\",\"name\":\"\",\"description\":\"d\"}", "$.name: must not be empty"},
    {"{\"id\":\"t\",\"name\":7,\"description\":\"d\"}", "$.name: must be a string"},
    {"{" HEAD "," OPT("\"x\":{\"dice\":[\"star\",\"tank\"],\"cost\":1,\"grants\":[\"infantry\"],"
                      "\"text\":\"t\"}") "}",
     "$.reserve.options.x.dice[1]: must be one of infantry, armor, grenade, star, flag"},
    {"{" HEAD "," OPT("\"x\":{\"dice\":[\"star\"],\"cost\":1,\"grants\":[\"tiger\"],"
                      "\"text\":\"t\"}") "}",
     "$.reserve.options.x.grants[0]: \"tiger\" is not defined in $.grants"},
    {"{" HEAD "," OPT("\"x\":{\"dice\":[\"star\"],\"cost\":10,\"grants\":[\"infantry\"],"
                      "\"text\":\"t\"}") "}",
     "$.reserve.options.x.cost: must be an integer from 0 to 9"},
    {"{" HEAD
     "," OPT("\"x\":{\"dice\":[],\"cost\":1,\"grants\":[\"infantry\"],\"text\":\"t\"}") "}",
     "$.reserve.options.x.dice: must be an array of 1 or 2 faces"},
    {"{" HEAD "," OPT("\"x\":{\"dice\":[\"star\"],\"cost\":1,\"grants\":[\"infantry\"]}") "}",
     "$.reserve.options.x.text: is required"},
    {"{" HEAD "," OPT("\"x\":{\"dice\":[\"star\"],\"cost\":1,\"grants\":[\"infantry\"],"
                      "\"text\":\"t\",\"price\":1}") "}",
     "$.reserve.options.x: unknown field \"price\""},
    {"{" HEAD ",\"reserve_tokens\":{\"allies\":2,\"axis\":2}}",
     "$.reserve_tokens: a ruleset without a reserve roll has no Reserve Tokens"},
    {"{" HEAD ",\"victory_events\":{\"from_battle\":2,\"min_hand\":1,\"dice\":{\"base\":2,"
     "\"per_battle_won\":1},\"order\":[\"infantry\",\"armor\",\"star\"],\"last\":[\"grenade\"],"
     "\"instructions\":{}}}",
     "$.victory_events: \"flag\" must appear in order or last"},
    {"{" HEAD ",\"victory_events\":{\"from_battle\":2,\"min_hand\":1,\"dice\":{\"base\":2,"
     "\"per_battle_won\":1},\"order\":[\"infantry\",\"armor\",\"star\",\"flag\"],"
     "\"last\":[\"grenade\"],\"instructions\":{\"infantry\":\"a\",\"armor\":\"a\","
     "\"grenade\":\"a\",\"star\":\"a\"}}}",
     "$.victory_events.instructions.flag: is required"},
    /* A side that won 59 battles rolls before the 60th: more than 128 dice never fit a roll. */
    {"{" HEAD ",\"victory_events\":{\"from_battle\":2,\"min_hand\":1,\"dice\":{\"base\":2,"
     "\"per_battle_won\":3},\"order\":[\"infantry\",\"armor\",\"star\",\"flag\"],"
     "\"last\":[\"grenade\"],\"instructions\":{}}}",
     "$.victory_events.dice: base + per_battle_won x 59 battles won is 179 dice, more than the "
     "128 a roll holds"},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"sometimes\"}}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"e\"]}}",
     "$.what_if.events.e.scope.kind: must be one of"},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"none\"}}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"e\"]}}",
     "$.what_if.allies: must list 5 event ids"},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"none\"},"
     "\"effects\":[{\"type\":\"tokens\",\"side\":\"both\",\"op\":\"add\",\"amount\":1}]}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"x\"]}}",
     "$.what_if.events.e.effects[0].side: must be \"allies\", \"axis\" or \"roller\""},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"none\"}}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"x\"]}}",
     "$.what_if.axis[4]: must name an event of $.what_if.events"},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"infantry\",\"grenade\",\"star\",\"flag\"]"
     "}}",
     "$.what_if.faces[1]: \"infantry\" is listed twice"},
    {"{" HEAD
     ",\"scenarios\":{\"start\":\"A\",\"list\":[{\"name\":\"A\",\"first_player\":\"allies\","
     "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":6}],\"branches\":{\"A\":"
     "{\"allies\":\"END\",\"axis\":\"B\"}}}}",
     "$.scenarios.branches.A.axis: must be a scenario of the list or \"END\""},
    {"{" HEAD
     ",\"scenarios\":{\"start\":\"Z\",\"list\":[{\"name\":\"A\",\"first_player\":\"allies\","
     "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":6}],\"branches\":{}}}",
     "$.scenarios.start: must name a scenario of the list"},
    {"{" HEAD ",\"scenarios\":{\"start\":\"A\",\"list\":[{\"name\":\"A\",\"first_player\":\"us\","
     "\"cards\":{\"allies\":5,\"axis\":5},\"medals_to_win\":6}],\"branches\":{}}}",
     "$.scenarios.list[0].first_player: must be \"allies\" or \"axis\""},
    {"{" HEAD ",\"scenarios\":{\"start\":\"A\",\"list\":[{\"name\":\"A\",\"first_player\":\"axis\","
     "\"cards\":{\"allies\":0,\"axis\":5},\"medals_to_win\":6}],\"branches\":{}}}",
     "$.scenarios.list[0].cards.allies: must be an integer from 1 to 20"},
    {"{" HEAD ",\"outcome\":{\"rank_by\":[\"luck\"]}}",
     "$.outcome.rank_by[0]: must be battles_won, medals or victory_points"},
    {"{" HEAD ",\"outcome\":{\"grades\":[{\"name\":\"minor\",\"min_margin\":1,\"points\":1},"
     "{\"name\":\"major\",\"min_margin\":3,\"points\":2}]}}",
     "$.outcome.grades[1]: grades must be listed from the largest margin down"},
    /* Cost per alternative (RULES.md 9). */
    {"{" HEAD "," OPT("\"x\":{\"dice\":[\"star\"],\"cost\":1,\"grants\":[\"infantry\"],"
                      "\"grant_costs\":{\"armor\":0},\"text\":\"t\"}") "}",
     "$.reserve.options.x.grant_costs.armor: is not one of this option's grants"},
    {"{" HEAD "," OPT("\"x\":{\"dice\":[\"star\"],\"cost\":1,\"grants\":[\"infantry\"],"
                      "\"grant_costs\":{\"infantry\":12},\"text\":\"t\"}") "}",
     "$.reserve.options.x.grant_costs.infantry: must be an integer from 0 to 9"},
    {"{" HEAD ",\"grants\":{\"t\":{\"text\":\"a token\",\"kept\":\"yes\"}}}",
     "$.grants.t.kept: must be true or false"},
    /* Scopes and effects that change play. */
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"once\"}}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"e\"]}}",
     "$.what_if.events.e.scope.kind: \"once\" is no longer a scope"},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"campaign\"},"
     "\"effects\":[{\"type\":\"pick_battle\",\"side\":\"axis\"}]}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"e\"]}}",
     "$.what_if.events.e.scope: an event with a pick_battle effect has scope \"picked\""},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"campaign\"},"
     "\"effects\":[{\"type\":\"pre_battle_roll\",\"side\":\"axis\",\"roll\":\"naval\","
     "\"dice\":3,\"hits\":[\"star\"],\"feature\":\"destroyers\",\"text\":\"t\"}]}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"e\"]}}",
     "$.what_if.events.e.effects[0].feature: must be a feature of $.battle_features"},
    {"{" HEAD ",\"grants\":{\"air\":\"an air token\"},\"what_if\":{\"faces\":[\"infantry\","
     "\"armor\",\"grenade\",\"star\",\"flag\"],\"events\":{\"e\":{\"name\":\"E\",\"text\":"
     "\"t\",\"scope\":{\"kind\":\"campaign\"},\"effects\":[{\"type\":\"remove_grants\","
     "\"side\":\"axis\",\"grants\":[\"air\",\"tiger\"]}]}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"e\"]}}",
     "$.what_if.events.e.effects[0].grants[1]: \"tiger\" is not defined in $.grants"},
    {"{" HEAD ",\"what_if\":{\"faces\":[\"infantry\",\"armor\",\"grenade\",\"star\",\"flag\"],"
     "\"events\":{\"e\":{\"name\":\"E\",\"text\":\"t\",\"scope\":{\"kind\":\"campaign\"},"
     "\"effects\":[{\"type\":\"first_player\",\"side\":\"soviets\"}]}},"
     "\"allies\":[\"e\",\"e\",\"e\",\"e\",\"e\"],\"axis\":[\"e\",\"e\",\"e\",\"e\",\"e\"]}}",
     "$.what_if.events.e.effects[0].side: must be \"allies\" or \"axis\""},
    {"{" HEAD ",\"grants\":{\"air\":{\"text\":\"an air token\",\"kept\":true,\"unit\":true}}}",
     "$.grants.air.unit: a kept token or star is not a unit"},
    /* D-Day Landings map combinations (RULES.md 7). */
    {"{" HEAD ",\"maps\":{\"maps\":{\"sword\":\"Sword\",\"juno\":\"Juno\"},\"combinations\":"
     "[{\"maps\":[\"sword\",\"gold\"],\"medals_to_win\":29}]}}",
     "$.maps.combinations[0].maps[1]: must be a map of $.maps.maps"},
    {"{" HEAD ",\"maps\":{\"maps\":{\"sword\":\"Sword\",\"juno\":\"Juno\"},\"combinations\":"
     "[{\"maps\":[\"sword\",\"juno\"],\"medals_to_win\":29},{\"maps\":[\"juno\",\"sword\"],"
     "\"medals_to_win\":30}]}}",
     "$.maps.combinations[1]: the same maps are combined twice"},
};

/* The readings served with a ruleset say what its own data does: the winner by the measure it
 * ranks by first (RULES.md 9: Campaign Book 1 by victory points), and its own starting Reserve
 * Tokens (a campaign inherits the standard's readings, where 2 each is the default). */
static void test_readings_agree(void)
{
    for (int i = 0; i < tk_nrulesets; i++) {
        const struct ruleset_entry *e = rulesets_find(&test_rulesets, tk_rulesets[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        json_t *j = json_loads(e->json, 0, NULL);
        json_t *readings = json_object_get(j, "readings");
        const char *winner = json_string_value(json_object_get(readings, "winner"));
        const char *tokens = json_string_value(json_object_get(readings, "reserve_tokens"));
        const struct ruleset *rs = e->rs;
        const char *first = rs->outcome.rank_by[0] == RANK_VICTORY_POINTS ? "more victory points"
                                                                          : "more battles won";
        if (!winner || !strstr(winner, first))
            fprintf(stderr, "\n%s: the winner's reading does not say \"%s\"\n", rs->id, first);
        CU_ASSERT(winner && strstr(winner, first));
        if (rs->reserve.enabled) {
            char want[64];
            if (rs->tokens_default[SIDE_ALLIES] == rs->tokens_default[SIDE_AXIS])
                snprintf(want, sizeof want, "%d each", rs->tokens_default[SIDE_ALLIES]);
            else
                snprintf(want, sizeof want, "Allies %d, Axis %d", rs->tokens_default[SIDE_ALLIES],
                         rs->tokens_default[SIDE_AXIS]);
            if (!tokens || !strstr(tokens, want))
                fprintf(stderr, "\n%s: the Reserve Tokens' reading does not say \"%s\"\n", rs->id,
                        want);
            CU_ASSERT(tokens && strstr(tokens, want));
        }
        json_decref(j);
    }
}

static void test_broken_documents(void)
{
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        json_error_t je;
        json_t *doc = json_loads(broken[i].doc, 0, &je);
        if (!doc)
            fprintf(stderr, "\ncase %zu is not JSON: %s\n", i, je.text);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        char err[1024] = "";
        struct ruleset *rs = ruleset_from_json(doc, "bad.json", err, sizeof err);
        json_decref(doc);
        CU_ASSERT_PTR_NULL(rs);
        free(rs);
        char want[512];
        snprintf(want, sizeof want, "bad.json: %s", broken[i].want);
        if (!strstr(err, want))
            fprintf(stderr, "\ncase %zu: error \"%s\"\n   does not contain \"%s\"\n", i, err, want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    }
}

/* ---- --rulesets-dir ---- */

static char dir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static int clear_dir(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*.json", dir);
    return system(cmd);
}

static int dir_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/m44-rulesets.XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int dir_clean(void)
{
    clear_dir();
    rmdir(dir);
    return 0;
}

/* A group's own ruleset: standard, with a free sandbag from two flags. */
static const char HOUSE_RULES[] =
    "{\"id\":\"house-rules\",\"extends\":\"standard\",\"name\":\"Our house rules\","
    "\"description\":\"standard, with a free sandbag from two flags\","
    "\"reserve\":{\"options\":{\"flag-flag\":{\"dice\":[\"flag\",\"flag\"],"
    "\"cost\":0,\"grants\":[\"sandbag\"],\"text\":\"two flags\"}},"
    "\"axis\":{\"grenade\":null}}}";

static void test_dir_adds_and_replaces(void)
{
    clear_dir();
    write_file("house.json", HOUSE_RULES);
    write_file("standard.json", "{\"id\":\"standard\",\"name\":\"Corrected standard\","
                                "\"description\":\"replaces the built-in\"}");
    struct ruleset_set set;
    char err[1024];
    CU_ASSERT_EQUAL_FATAL(rulesets_load(&set, dir, err, sizeof err), -1);
    /* The built-in campaigns extend the replaced standard, which lacks what they rely on:
     * the error names the child file and the missing part. */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "rules/data/"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ".json: $.reserve"));
    clear_dir();
    write_file("house.json", HOUSE_RULES);
    CU_ASSERT_EQUAL_FATAL(rulesets_load(&set, dir, err, sizeof err), 0);
    CU_ASSERT_EQUAL(set.n, test_rulesets.n + 1);
    const struct ruleset_entry *e = rulesets_find(&set, "house-rules");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    enum face ff[2] = {FACE_FLAG, FACE_FLAG}, gg[2] = {FACE_GRENADE, FACE_GRENADE};
    struct option_list got;
    reserve_options(e->rs, SIDE_ALLIES, ff, 2, NULL, &got);
    CU_ASSERT_EQUAL(got.n, 3); /* flag@0, flag@1, flag-flag@0+1 */
    reserve_options(e->rs, SIDE_AXIS, gg, 2, NULL, &got);
    CU_ASSERT_EQUAL(got.n, 0); /* the Axis grenade option was removed */
    reserve_options(e->rs, SIDE_ALLIES, gg, 2, NULL, &got);
    CU_ASSERT_EQUAL(got.n, 2);
    CU_ASSERT_TRUE(e->rs->victory.enabled); /* inherited */
    CU_ASSERT_PTR_NOT_NULL(strstr(e->file, "house.json"));
    rulesets_free(&set);
}

struct dir_case {
    const char *files[3][2];
    const char *want;
};

static const struct dir_case dir_cases[] = {
    {{{"a.json", "{\"id\":\"a\",\"extends\":\"nowhere\",\"name\":\"A\",\"description\":\"d\"}"}},
     "a.json: $.extends: no ruleset has id \"nowhere\""},
    {{{"a.json", "{\"id\":\"a\",\"extends\":\"b\",\"name\":\"A\",\"description\":\"d\"}"},
      {"b.json", "{\"id\":\"b\",\"extends\":\"a\",\"name\":\"B\",\"description\":\"d\"}"}},
     "$.extends: \"extends\" forms a cycle"},
    {{{"a.json", "{\"id\":\"a\",\"name\":\"A\",\n\"description\":}"}}, "a.json: line 2"},
    {{{"a.json", "{\"id\":\"a\",\"id\":\"b\",\"name\":\"A\",\"description\":\"d\"}"}},
     "a.json: line 1"},
    {{{"a.json", "{\"id\":\"same\",\"name\":\"A\",\"description\":\"d\"}"},
      {"b.json", "{\"id\":\"same\",\"name\":\"B\",\"description\":\"d\"}"}},
     "b.json: $.id: \"same\" is also the id of another file here"},
    {{{"a.json", "{\"name\":\"A\"}"}}, "a.json: not a ruleset (it has no \"id\")"},
    {{{"a.json", "{\"id\":7,\"name\":\"A\"}"}}, "a.json: $.id: a ruleset is an object with"},
    /* A book's data beside the rulesets (as the shared Campaign Book 1 facts): it lists
     * campaigns, but has no id. */
    {{{"cb1-facts.json", "{\"source_repo\":\"x\",\"campaigns\":[{\"name\":\"Flanking "
                         "Caen\"}]}"}},
     "cb1-facts.json: not a ruleset (it has no \"id\")"},
    {{{"a.json", "{\"id\":\"a\",\"extends\":\"standard\",\"name\":\"A\",\"description\":\"d\","
                 "\"reserve\":{\"allies\":{\"armor\":{\"dice\":[\"armor\"],\"cost\":1,"
                 "\"grants\":[\"panther\"],\"text\":\"t\"}}}}"}},
     "a.json: $.reserve.allies.armor.grants[0]: \"panther\" is not defined in $.grants"},
};

static void test_dir_errors(void)
{
    for (size_t i = 0; i < sizeof dir_cases / sizeof dir_cases[0]; i++) {
        clear_dir();
        for (int f = 0; f < 3 && dir_cases[i].files[f][0]; f++)
            write_file(dir_cases[i].files[f][0], dir_cases[i].files[f][1]);
        struct ruleset_set set;
        char err[1024] = "";
        CU_ASSERT_EQUAL(rulesets_load(&set, dir, err, sizeof err), -1);
        CU_ASSERT_EQUAL(set.n, 0);
        if (!strstr(err, dir_cases[i].want))
            fprintf(stderr, "\ndir case %zu: \"%s\" lacks \"%s\"\n", i, err, dir_cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, dir_cases[i].want));
    }
    struct ruleset_set set;
    char err[1024];
    CU_ASSERT_EQUAL(rulesets_load(&set, "/nonexistent/rules", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/rules: cannot open"));
}

static void test_scenario_list_from_request(void)
{
    json_t *j = json_loads("{\"start\":\"A\",\"list\":[{\"name\":\"A\",\"first_player\":\"axis\","
                           "\"cards\":{\"allies\":4,\"axis\":5},\"medals_to_win\":6},"
                           "{\"name\":\"B\",\"first_player\":\"allies\",\"cards\":{\"allies\":5,"
                           "\"axis\":5},\"medals_to_win\":5}],\"branches\":{\"A\":{\"allies\":"
                           "\"B\",\"axis\":\"END\"},\"B\":{\"allies\":\"END\",\"axis\":\"END\"}}}",
                           0, NULL);
    struct scenario_list l;
    char err[512];
    CU_ASSERT_EQUAL_FATAL(scenario_list_from_json(j, "$.scenarios", &l, err, sizeof err), 0);
    CU_ASSERT_EQUAL(l.n, 2);
    CU_ASSERT_EQUAL(l.s[0].next[SIDE_ALLIES], 1);
    CU_ASSERT_EQUAL(l.s[0].next[SIDE_AXIS], SCENARIO_END);
    json_object_del(json_object_get(json_object_get(j, "branches"), "B"), "axis");
    CU_ASSERT_EQUAL(scenario_list_from_json(j, "$.scenarios", &l, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "$.scenarios.branches.B.axis"));
    json_decref(j);
}

void register_load_tests(void)
{
    CU_pSuite s = CU_add_suite("ruleset loading", NULL, NULL);
    CU_add_test(s, "built-in rulesets", test_builtins);
    CU_add_test(s, "each ruleset's readings agree with its own data", test_readings_agree);
    CU_add_test(s, "broken documents: file, JSON path, reason", test_broken_documents);
    CU_add_test(s, "scenario list given in a request", test_scenario_list_from_request);
    CU_pSuite d = CU_add_suite("--rulesets-dir", dir_init, dir_clean);
    CU_add_test(d, "adds and replaces rulesets; extends", test_dir_adds_and_replaces);
    CU_add_test(d, "refuses broken directories", test_dir_errors);
}
