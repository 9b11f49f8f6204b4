/* What-if events: face -> event per side per ruleset, token effects, scopes. */
#include "rules/rules.h"
#include "tests/common/testkit.h"
#include "tests/rules/rulestest.h"

#include <string.h>

/* The reading of RULES.md 5: listed order = infantry, armor, grenade, star, flag. */
static const struct {
    const char *ruleset;
    const char *allies[FACE_COUNT]; /* indexed by enum face */
    const char *axis[FACE_COUNT];
} tables[] = {
    {"island-hoppers",
     {[FACE_INFANTRY] = "leathernecks",
      [FACE_ARMOR] = "flamethrower-tanks",
      [FACE_GRENADE] = "allied-air-supremacy",
      [FACE_STAR] = "naval-struggle",
      [FACE_FLAG] = "combat-engineers"},
     {[FACE_INFANTRY] = "jungle-fighters",
      [FACE_ARMOR] = "improvised-hospital",
      [FACE_GRENADE] = "night-attacks",
      [FACE_STAR] = "forward-command",
      [FACE_FLAG] = "cave-construction"}},
    {"bicycle-blitzkrieg",
     {[FACE_INFANTRY] = "advanced-training",
      [FACE_ARMOR] = "british-tank-regiment",
      [FACE_GRENADE] = "relief",
      [FACE_STAR] = "defensive-works",
      [FACE_FLAG] = "fortifications"},
     {[FACE_INFANTRY] = "no-bicycles",
      [FACE_ARMOR] = "reinforcements",
      [FACE_GRENADE] = "jungle-trained-troops",
      [FACE_STAR] = "force-z",
      [FACE_FLAG] = "juggernaut"}},
    {"fall-of-poland",
     {[FACE_INFANTRY] = "poland-mobilizes",
      [FACE_ARMOR] = "dragoons-to-the-rescue",
      [FACE_GRENADE] = "western-allies",
      [FACE_STAR] = "minefields",
      [FACE_FLAG] = "fortifications"},
     {[FACE_INFANTRY] = "vehicle-troubles",
      [FACE_ARMOR] = "panzers-outgunned",
      [FACE_GRENADE] = "propaganda",
      [FACE_STAR] = "german-partisans",
      [FACE_FLAG] = "soviet-invasion"}},
    {"break-through-normandy",
     {[FACE_INFANTRY] = "reserves",
      [FACE_ARMOR] = "priests",
      [FACE_GRENADE] = "carpet-bombing",
      [FACE_STAR] = "tigers",
      [FACE_FLAG] = "friendly-fire"},
     {[FACE_INFANTRY] = "reserves",
      [FACE_ARMOR] = "tigers",
      [FACE_GRENADE] = "friendly-fire",
      [FACE_STAR] = "jabos",
      [FACE_FLAG] = "resistance"}},
};

static void test_face_to_event(void)
{
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        const struct ruleset *rs = rs_get(tables[t].ruleset);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
        CU_ASSERT_TRUE(rs->what_if.enabled);
        for (int f = 0; f < FACE_COUNT; f++) {
            const struct event_def *a = what_if_event(rs, SIDE_ALLIES, (enum face)f);
            const struct event_def *x = what_if_event(rs, SIDE_AXIS, (enum face)f);
            CU_ASSERT_PTR_NOT_NULL_FATAL(a);
            CU_ASSERT_PTR_NOT_NULL_FATAL(x);
            CU_ASSERT_STRING_EQUAL(a->id, tables[t].allies[f]);
            CU_ASSERT_STRING_EQUAL(x->id, tables[t].axis[f]);
            CU_ASSERT(strlen(a->name) > 0 && strlen(a->text) > 20);
        }
    }
    /* Rulesets without What-if events pick nothing. */
    const char *none[] = {"standard", "simplified", "cb1-flanking-caen"};
    for (size_t i = 0; i < 3; i++)
        CU_ASSERT_PTR_NULL(what_if_event(rs_get(none[i]), SIDE_ALLIES, FACE_STAR));
}

static const struct event_def *event(const char *ruleset, const char *id)
{
    const struct ruleset *rs = rs_get(ruleset);
    for (int i = 0; rs && i < rs->what_if.nevents; i++)
        if (strcmp(rs->what_if.events[i].id, id) == 0)
            return &rs->what_if.events[i];
    CU_FAIL("event not found");
    return NULL;
}

struct token_case {
    const char *ruleset, *event;
    enum side roller;
    bool already;
    int before[2], after[2];
    bool changed;
};

static const struct token_case token_cases[] = {
    {"bicycle-blitzkrieg", "relief", SIDE_ALLIES, false, {2, 2}, {4, 2}, true},
    {"bicycle-blitzkrieg", "reinforcements", SIDE_AXIS, false, {2, 2}, {2, 3}, true},
    {"bicycle-blitzkrieg", "juggernaut", SIDE_AXIS, false, {2, 2}, {2, 4}, true},
    {"bicycle-blitzkrieg", "force-z", SIDE_AXIS, false, {2, 3}, {2, 0}, true},
    {"bicycle-blitzkrieg", "force-z", SIDE_AXIS, false, {2, 0}, {2, 0}, false},
    {"bicycle-blitzkrieg", "advanced-training", SIDE_ALLIES, false, {2, 2}, {2, 2}, false},
    {"fall-of-poland", "german-partisans", SIDE_AXIS, false, {3, 2}, {1, 2}, true},
    {"fall-of-poland", "german-partisans", SIDE_AXIS, false, {1, 2}, {0, 2}, true},
    {"fall-of-poland", "german-partisans", SIDE_AXIS, false, {0, 2}, {0, 2}, false},
    /* Western Allies waits for the end of the first battle. */
    {"fall-of-poland", "western-allies", SIDE_ALLIES, false, {2, 3}, {2, 3}, false},
    {"break-through-normandy", "reserves", SIDE_ALLIES, false, {2, 2}, {3, 2}, true},
    {"break-through-normandy", "reserves", SIDE_AXIS, false, {2, 2}, {2, 3}, true},
    /* Both rolled Reserves: the second roller takes a token too (its text says so). */
    {"break-through-normandy", "reserves", SIDE_AXIS, true, {3, 2}, {3, 3}, true},
    {"break-through-normandy", "resistance", SIDE_AXIS, false, {2, 2}, {2, 1}, true},
    /* Rolled twice, an event that does not stack applies once. */
    {"bicycle-blitzkrieg", "relief", SIDE_ALLIES, true, {4, 2}, {4, 2}, false},
};

static void test_token_effects(void)
{
    for (size_t i = 0; i < sizeof token_cases / sizeof token_cases[0]; i++) {
        const struct token_case *c = &token_cases[i];
        const struct event_def *ev = event(c->ruleset, c->event);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
        int t[2] = {c->before[0], c->before[1]};
        CU_ASSERT_EQUAL(what_if_apply_now(ev, c->roller, c->already, t), c->changed);
        if (t[0] != c->after[0] || t[1] != c->after[1])
            fprintf(stderr, "\n%s %s: tokens %d/%d, want %d/%d\n", c->ruleset, c->event, t[0], t[1],
                    c->after[0], c->after[1]);
        CU_ASSERT_EQUAL(t[0], c->after[0]);
        CU_ASSERT_EQUAL(t[1], c->after[1]);
    }
}

static void test_after_first_battle(void)
{
    const struct event_def *ev = event("fall-of-poland", "western-allies");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
    enum side rollers[1] = {SIDE_ALLIES};
    int t[2] = {2, 3};
    CU_ASSERT_FALSE(what_if_apply_after_battle(ev, rollers, 1, 2, t));
    CU_ASSERT_EQUAL(t[1], 3);
    CU_ASSERT_TRUE(what_if_apply_after_battle(ev, rollers, 1, 1, t));
    CU_ASSERT_EQUAL(t[0], 2);
    CU_ASSERT_EQUAL(t[1], 0);
    /* An event with only immediate effects does nothing after a battle. */
    const struct event_def *relief = event("bicycle-blitzkrieg", "relief");
    int u[2] = {1, 1};
    CU_ASSERT_FALSE(what_if_apply_after_battle(relief, rollers, 1, 1, u));
    CU_ASSERT_EQUAL(u[0], 1);
}

struct scope_case {
    const char *ruleset, *event;
    int battle;
    const char *scenario;
    bool shown;
};

static const struct scope_case scope_cases[] = {
    {"bicycle-blitzkrieg", "advanced-training", 1, "Kota Bharu", true},
    {"bicycle-blitzkrieg", "advanced-training", 7, "Singapore", true},
    {"bicycle-blitzkrieg", "no-bicycles", 1, "Kota Bharu", false},
    {"bicycle-blitzkrieg", "no-bicycles", 2, "Ban Sadao", false},
    /* RULES.md 9: "Scenario names match whole names, case and spacing ignored". */
    {"bicycle-blitzkrieg", "no-bicycles", 2, "  ban   SADAO ", false},
    {"bicycle-blitzkrieg", "no-bicycles", 2, "battle of ban sadao", true},
    {"bicycle-blitzkrieg", "no-bicycles", 2, "Kota Baru", true}, /* not "Kota Bharu" */
    {"bicycle-blitzkrieg", "no-bicycles", 3, "Jitra", true},
    {"bicycle-blitzkrieg", "fortifications", 3, "Jitra", false},
    {"bicycle-blitzkrieg", "fortifications", 6, "Singapore", true},
    /* 001: Defensive Works, "Ignore all post-scenario instructions to remove sandbags from
     * British troops in the next scenario": RULES.md 9 shows it with battle 1's result and at
     * battle 2, not at battle 1 (scope_results below). */
    {"bicycle-blitzkrieg", "defensive-works", 1, "Kota Bharu", false},
    {"bicycle-blitzkrieg", "defensive-works", 2, "Jitra", true},
    {"bicycle-blitzkrieg", "defensive-works", 3, "Kampar", false},
    {"bicycle-blitzkrieg", "relief", 1, "Kota Bharu", false}, /* a token change only */
    {"fall-of-poland", "poland-mobilizes", 1, "Mokra", true},
    {"fall-of-poland", "poland-mobilizes", 2, "Hel", true},
    {"fall-of-poland", "poland-mobilizes", 3, "Kupa", false},
    {"fall-of-poland", "minefields", 4, "Kupa", true},
    {"fall-of-poland", "minefields", 4, "Hel Peninsula", false},
    /* D6 of the audit: an effect for "Hel" applied at "Defence of Chelm". */
    {"fall-of-poland", "minefields", 4, "Defence of Chelm", false},
    {"fall-of-poland", "minefields", 4, "hel", true},
    {"fall-of-poland", "minefields", 1, "Mokra", false},
    {"fall-of-poland", "soviet-invasion", 5, "Szack", true},
    {"fall-of-poland", "soviet-invasion", 5, "Hel", false},
};

static void test_scopes(void)
{
    for (size_t i = 0; i < sizeof scope_cases / sizeof scope_cases[0]; i++) {
        const struct scope_case *c = &scope_cases[i];
        const struct event_def *ev = event(c->ruleset, c->event);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
        bool shown = scope_applies(&ev->scope, c->battle, c->scenario, 0);
        if (shown != c->shown)
            fprintf(stderr, "\n%s at battle %d (%s): %d\n", c->event, c->battle, c->scenario,
                    shown);
        CU_ASSERT_EQUAL(shown, c->shown);
    }
}

/* Shown with a battle's result (RULES.md 9: Defensive Works with battle 1's result). */
static void test_scope_results(void)
{
    const struct event_def *dw = event("bicycle-blitzkrieg", "defensive-works");
    CU_ASSERT_PTR_NOT_NULL_FATAL(dw);
    CU_ASSERT_TRUE(scope_applies_result(&dw->scope, 1));
    CU_ASSERT_FALSE(scope_applies_result(&dw->scope, 2));
    const struct event_def *relief = event("bicycle-blitzkrieg", "relief");
    CU_ASSERT_FALSE(scope_applies_result(&relief->scope, 1));
    /* Night Attacks (RULES.md 9): only the battle the Axis picked, none before it picks. */
    const struct event_def *night = event("island-hoppers", "night-attacks");
    CU_ASSERT_PTR_NOT_NULL_FATAL(night);
    CU_ASSERT_FALSE(scope_applies(&night->scope, 2, "Tarawa", 0));
    CU_ASSERT_TRUE(scope_applies(&night->scope, 2, "Tarawa", 2));
    CU_ASSERT_FALSE(scope_applies(&night->scope, 3, "Saipan", 2));
}

/* Whole-name matching, directly. */
static void test_name_matching(void)
{
    static const struct {
        const char *a, *b;
        bool same;
    } t[] = {
        {"Hel", "Hel", true},
        {"Hel", "hel", true},
        {"Hel", " Hel ", true},
        {"Kota  Bharu", "kota bharu", true},
        {"Kota Bharu", "KotaBharu", false},
        {"Hel", "Chelm", false},
        {"Hel", "Defence of Chelm", false},
        {"Hel", "Hel Peninsula", false},
        {"", "", true},
        {"Hel", "", false},
        /* Letters beyond ASCII: Latin-1 and Latin Extended-A, upper and lower case. */
        {"Mont Pinçon", "MONT PINÇON", true},
        {"Mont Pinçon", "mont pinÇon", true},
        {"Mont Pinçon", "Mont Pincon", false},
        {"Łódź", "ŁÓDŹ", true},
        {"Łódź", "Lodz", false},
        {"Żnin", "żNIN", true},
        {"Åland", "åland", true},
        {"Kota × Bharu", "Kota ÷ Bharu", false},
        {"ÿ", "Ÿ", true},
        {"İ", "i", true},
        {"Ķ", "ĸ", false},
        {"ŉ", "ň", false},
        /* A letter typed as a letter and a combining mark (a keyboard may send "c" and U+0327
         * for "ç") is that letter; a mark no letter of these takes stays a character of its own. */
        {"Mont Pinçon", "Mont Pinc\xcc\xa7on", true},
        {"MONT PINC\xcc\xa7ON", "mont pinçon", true},
        {"Łódź",
         "Ło\xcc\x81"
         "dz\xcc\x81",
         true},
        {"Żnin", "Z\xcc\x87nin", true},
        {"Mont Pinçon", "Mont Pinc\xcc\x81on", false},
        {"Mont Pincon", "Mont Pinc\xcc\xa7on", false},
        {"Hel", "He\xcc\x83l", false},
        {"q\xcc\x81", "q\xcc\x81", true},
        /* Bytes that are not such letters are compared as they are. */
        {"\xe2\x80\x94 Hel", "\xe2\x80\x94 hel", true},
        {"\xe2\x80\x94", "\xe2\x80\x95", false},
        {"\xc3", "\xc3\x87", false},
        {"\xff", "\xff", true},
        {"\xc3\x28", "\xe3\x28", false},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bool got = scenario_names_match(t[i].a, t[i].b);
        if (got != t[i].same)
            fprintf(stderr, "\n\"%s\" vs \"%s\": %d\n", t[i].a, t[i].b, got);
        CU_ASSERT_EQUAL(got, t[i].same);
        CU_ASSERT_EQUAL(scenario_names_match(t[i].b, t[i].a), t[i].same);
    }
}

/* Effects that change play are state (RULES.md 9). */
static void test_effects_as_state(void)
{
    /* 001, Allied Air Supremacy: "The Axis player may not play any Air Sortie or Air Power card
     * / token for the rest of the campaign." Every air grant leaves the Axis options. */
    const struct ruleset *ih = rs_get("island-hoppers");
    const struct event_def *aas = event("island-hoppers", "allied-air-supremacy");
    CU_ASSERT_PTR_NOT_NULL_FATAL(aas);
    static struct option_mods mods;
    memset(&mods, 0, sizeof mods);
    what_if_option_mods(aas, SIDE_AXIS, &mods);
    enum face ss[2] = {FACE_STAR, FACE_STAR};
    static struct option_list got;
    reserve_options(ih, SIDE_AXIS, ss, 2, &mods, &got);
    for (int i = 0; i < got.n; i++)
        for (int g = 0; g < got.o[i].ngrants; g++) {
            CU_ASSERT_STRING_NOT_EQUAL(got.o[i].grants[g], "air-sortie");
            CU_ASSERT_STRING_NOT_EQUAL(got.o[i].grants[g], "air-power");
        }
    CU_ASSERT_EQUAL(got.n, 2); /* the elite units and the campaign's own stay */
    memset(&mods, 0, sizeof mods);
    what_if_option_mods(aas, SIDE_ALLIES, &mods); /* the Allies keep theirs */
    CU_ASSERT_EQUAL(mods.nremovals, 0);
    /* 001, Soviet Invasion: "The Soviet side gets to move first at the battle of Szack and they
     * may ignore the Commissar rule." */
    const struct event_def *si = event("fall-of-poland", "soviet-invasion");
    const struct event_def *const list[] = {si};
    struct battle_overrides ov;
    CU_ASSERT_TRUE(scope_applies(&si->scope, 4, "Szack", 0));
    CU_ASSERT_FALSE(scope_applies(&si->scope, 4, "Kock", 0));
    what_if_battle_overrides(list, 1, &ov);
    CU_ASSERT_EQUAL(ov.first_player, SIDE_AXIS);
    CU_ASSERT_TRUE(ov.no_commissar);
    what_if_battle_overrides(list, 0, &ov); /* at Kock it is not in scope */
    CU_ASSERT_EQUAL(ov.first_player, -1);
    CU_ASSERT_FALSE(ov.no_commissar);
    /* 001, Forward Command: "the Japanese player may roll again using this table for the next
     * scenario". */
    const struct effect_def *fc =
        event_effect(event("island-hoppers", "forward-command"), EFFECT_EXTRA_WHAT_IF);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fc);
    CU_ASSERT_EQUAL(fc->side, EFFECT_AXIS);
    /* 001, Naval Struggle: "in any scenario that involves US Navy Destroyers, the Japanese
     * player rolls 3 dice at the start of the battle; Stars indicate hits along with the normal
     * Grenade hits". */
    const struct event_def *ns = event("island-hoppers", "naval-struggle");
    static const char destroyers[1][RS_ID_MAX] = {"destroyers"};
    CU_ASSERT_PTR_NULL(what_if_pre_battle_roll(ns, destroyers, 0));
    const struct effect_def *roll = what_if_pre_battle_roll(ns, destroyers, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(roll);
    CU_ASSERT_EQUAL(roll->side, EFFECT_AXIS);
    CU_ASSERT_EQUAL(roll->dice, 3);
    enum face f[3] = {FACE_STAR, FACE_GRENADE, FACE_INFANTRY};
    CU_ASSERT_EQUAL(pre_battle_hits(roll, f, 3), 2);
    enum face none[3] = {FACE_FLAG, FACE_ARMOR, FACE_INFANTRY};
    CU_ASSERT_EQUAL(pre_battle_hits(roll, none, 3), 0);
}

static void test_stacking_flags(void)
{
    CU_ASSERT_TRUE(event("break-through-normandy", "reserves")->stacks);
    CU_ASSERT_FALSE(event("break-through-normandy", "tigers")->stacks);
    CU_ASSERT_FALSE(event("break-through-normandy", "friendly-fire")->stacks);
}

void register_whatif_tests(void)
{
    CU_pSuite s = CU_add_suite("what-if events", NULL, NULL);
    CU_add_test(s, "face -> event, per side, per ruleset", test_face_to_event);
    CU_add_test(s, "token effects (add, set to 0, never below 0, twice)", test_token_effects);
    CU_add_test(s, "effects after the first battle", test_after_first_battle);
    CU_add_test(s, "standing effect scopes", test_scopes);
    CU_add_test(s, "shown with a battle's result; picked battles", test_scope_results);
    CU_add_test(s, "scenario names match whole names", test_name_matching);
    CU_add_test(s, "effects that change play are state", test_effects_as_state);
    CU_add_test(s, "which events stack", test_stacking_flags);
}
