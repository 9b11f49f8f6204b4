/*
 * m44: the rules at the table, without a server.
 *   m44 rulesets
 *   m44 explain --ruleset ID --side allies|axis --faces star,armor [--tokens N] [--json]
 *   m44 events --ruleset ID --first allies|axis --allies-faces F,... --axis-faces F,...
 *              --cards A,X [--commissar allies|axis] [--json]
 *   m44 maps [--ruleset ID]
 *   m44 verify FILE
 * --effects names What-if events in force (explain, events). Every command takes --rulesets-dir DIR
 * (as m44d does). Bad arguments: usage, exit 2.
 */
#include "campaign/grand_rulesets.h"
#include "cmd/m44/verify.h"
#include "campaign/rulesets.h"
#include "rules/rules.h"
#include "campaign/rules_json.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage:\n"
                 "  m44 rulesets [--json]\n"
                 "  m44 explain --ruleset ID --side allies|axis --faces F,F [--tokens N]\n"
                 "              [--effects EVENT,...] [--json]\n"
                 "  m44 events --ruleset ID --first allies|axis --allies-faces F,... --axis-faces "
                 "F,...\n"
                 "             --cards ALLIES,AXIS [--commissar allies|axis]\n"
                 "             [--effects EVENT,... --scenario NAME] [--json]\n"
                 "  m44 maps [--ruleset ID] [--json]   the D-Day Landings map combinations\n"
                 "  m44 verify FILE    (exit 0: every server roll verified, or none to verify;\n"
                 "                     1: a mismatch; 2: not an export; 3: some server roll\n"
                 "                     not verifiable here)\n"
                 "Faces: infantry, armor, grenade, star, flag. Every command also takes\n"
                 "--rulesets-dir DIR, an extra directory of ruleset JSON files.\n");
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "m44: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    usage(stderr);
    return 2;
}

struct args {
    const char *ruleset, *side, *faces, *first, *allies_faces, *axis_faces, *cards, *commissar,
        *tokens, *rulesets_dir, *file, *effects, *scenario;
    bool json;
};

/* --name VALUE pairs (and --json); returns 0 or an exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
    static const struct {
        const char *flag;
        size_t offset;
    } opts[] = {
        {"--ruleset", offsetof(struct args, ruleset)},
        {"--side", offsetof(struct args, side)},
        {"--faces", offsetof(struct args, faces)},
        {"--first", offsetof(struct args, first)},
        {"--allies-faces", offsetof(struct args, allies_faces)},
        {"--axis-faces", offsetof(struct args, axis_faces)},
        {"--cards", offsetof(struct args, cards)},
        {"--commissar", offsetof(struct args, commissar)},
        {"--tokens", offsetof(struct args, tokens)},
        {"--rulesets-dir", offsetof(struct args, rulesets_dir)},
        {"--effects", offsetof(struct args, effects)},
        {"--scenario", offsetof(struct args, scenario)},
    };
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
            continue;
        }
        bool found = false;
        for (size_t k = 0; k < sizeof opts / sizeof opts[0] && !found; k++)
            if (strcmp(argv[i], opts[k].flag) == 0) {
                if (i + 1 >= argc)
                    return bad("%s needs a value", argv[i]);
                *(const char **)((char *)a + opts[k].offset) = argv[++i];
                found = true;
            }
        if (found)
            continue;
        if (argv[i][0] == '-' || a->file)
            return bad("unexpected argument \"%s\"", argv[i]);
        a->file = argv[i];
    }
    return 0;
}

/* "star,armor" -> faces; -1 on a bad name. */
static int parse_faces(const char *s, enum face *out, int max)
{
    int n = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (n >= max || !face_parse(tok, &out[n]))
            return -1;
        n++;
    }
    return n;
}

static int parse_count(const char *s, int min, int max, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static void print_json(json_t *j)
{
    char *s = json_dumps(j, JSON_INDENT(2));
    json_decref(j);
    if (s)
        puts(s);
    free(s);
}

static int cmd_rulesets(const struct ruleset_set *set, const struct args *a)
{
    json_t *list = json_array();
    for (int i = 0; i < set->n; i++) {
        const struct ruleset *rs = set->items[i].rs;
        if (a->json)
            json_array_append_new(list, json_pack("{s:s, s:s, s:b}", "id", rs->id, "name", rs->name,
                                                  "what_if", rs->what_if.enabled));
        else
            printf("%-24s %-36s %s\n", rs->id, rs->name, rs->what_if.enabled ? "what-if" : "");
    }
    /* Grand rulesets: the campaigns they link, in order. */
    for (int i = 0; i < grand_rulesets_count(); i++) {
        const struct grand_ruleset *g = grand_ruleset_at(i);
        json_t *parts = json_array();
        for (int k = 0; k < g->ncampaigns; k++)
            json_array_append_new(parts, json_string(g->campaigns[k].ruleset));
        if (a->json) {
            json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "id", g->id, "name", g->name,
                                                  "campaigns", parts));
        } else {
            printf("%-24s %-36s grand: %d campaigns\n", g->id, g->name, g->ncampaigns);
            json_decref(parts);
        }
    }
    if (a->json)
        print_json(list);
    else
        json_decref(list);
    return 0;
}

/* --effects ID,ID: What-if events in force, from the ruleset's table; -1 on an unknown id. */
static int parse_effects(const struct ruleset *rs, const char *list, const struct event_def **out)
{
    int n = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        const struct event_def *ev = NULL;
        for (int k = 0; k < rs->what_if.nevents; k++)
            if (strcmp(rs->what_if.events[k].id, tok) == 0)
                ev = &rs->what_if.events[k];
        if (!ev || n >= RS_MAX_EVENTS) {
            bad("--effects: \"%s\" is not a What-if event of %s", tok, rs->id);
            return -1;
        }
        out[n++] = ev;
    }
    return n;
}

static int cmd_explain(const struct ruleset_set *set, const struct args *a)
{
    enum side side;
    enum face faces[RULES_MAX_DICE];
    int tokens = -1;
    const struct ruleset_entry *e = a->ruleset ? rulesets_find(set, a->ruleset) : NULL;
    if (!e)
        return bad("--ruleset: unknown ruleset \"%s\" (see m44 rulesets)",
                   a->ruleset ? a->ruleset : "");
    if (!a->side || !side_parse(a->side, &side))
        return bad("--side must be allies or axis");
    int n = a->faces ? parse_faces(a->faces, faces, RULES_MAX_DICE) : -1;
    if (n <= 0)
        return bad("--faces: a comma-separated list of infantry, armor, grenade, star, flag");
    if (!e->rs->reserve.enabled) {
        fprintf(stderr, "m44: ruleset %s has no reserve roll\n", e->rs->id);
        return 1;
    }
    if (n != e->rs->reserve.dice)
        fprintf(stderr, "m44: note: a reserve roll in %s is %d dice, %d given\n", e->rs->id,
                e->rs->reserve.dice, n);
    if (a->tokens && parse_count(a->tokens, 0, 999, &tokens))
        return bad("--tokens must be a number from 0 to 999 (got \"%s\")", a->tokens);
    const struct event_def *events[RS_MAX_EVENTS];
    int nevents = parse_effects(e->rs, a->effects, events);
    if (nevents < 0)
        return 2;
    struct option_list *opts = malloc(sizeof *opts);
    struct option_mods *mods = calloc(1, sizeof *mods);
    for (int k = 0; k < nevents; k++)
        what_if_option_mods(events[k], side, mods);
    reserve_options(e->rs, side, faces, n, mods, opts);
    free(mods);
    if (a->json) {
        print_json(options_to_json(opts));
    } else if (opts->n == 0) {
        printf("No option: these dice give %s nothing.\n", side_title(side));
    } else {
        printf("%s rolled", side_title(side));
        for (int i = 0; i < n; i++)
            printf(" [%d] %s", i, face_name(faces[i]));
        printf("\n");
        for (int i = 0; i < opts->n; i++) {
            const struct option *o = &opts->o[i];
            printf("  %-32s dice", o->id);
            for (int d = 0; d < o->ndice; d++)
                printf(" %d", o->dice[d]);
            printf("  ");
            /* Each alternative with its own cost (RULES.md 9). */
            for (int g = 0; g < o->ngrants; g++) {
                int cost = o->grant_cost[g];
                printf("%s%s (", g ? " | " : "", o->grants[g]);
                if (cost)
                    printf("%d token%s", cost, cost == 1 ? "" : "s");
                else
                    printf("free");
                if (tokens >= 0 && cost > tokens)
                    printf(", you have %d", tokens);
                printf(")");
            }
            printf("\n      %s\n", o->text);
        }
        printf("Options that share a die are alternatives: pick any whose dice do not overlap.\n");
    }
    free(opts);
    return 0;
}

static int cmd_events(const struct ruleset_set *set, const struct args *a)
{
    const struct ruleset_entry *e = a->ruleset ? rulesets_find(set, a->ruleset) : NULL;
    if (!e)
        return bad("--ruleset: unknown ruleset \"%s\" (see m44 rulesets)",
                   a->ruleset ? a->ruleset : "");
    enum side first;
    if (!a->first || !side_parse(a->first, &first))
        return bad("--first must be allies or axis");
    static enum face f[SIDE_COUNT][RULES_MAX_DICE];
    int n[SIDE_COUNT];
    const char *given[SIDE_COUNT] = {a->allies_faces, a->axis_faces};
    for (int s = 0; s < SIDE_COUNT; s++) {
        /* An empty list is allowed: in the simplified rules a side may roll no dice. */
        n[s] = given[s] ? (*given[s] ? parse_faces(given[s], f[s], RULES_MAX_DICE) : 0) : -1;
        if (n[s] < 0)
            return bad("--%s-faces: a comma-separated list of faces", side_name((enum side)s));
    }
    int cards[SIDE_COUNT];
    char cbuf[64];
    snprintf(cbuf, sizeof cbuf, "%s", a->cards ? a->cards : "");
    char *comma = strchr(cbuf, ',');
    if (!comma)
        return bad("--cards ALLIES,AXIS: the scenario's command cards, e.g. 5,4");
    *comma = '\0';
    if (parse_count(cbuf, 1, 20, &cards[0]) || parse_count(comma + 1, 1, 20, &cards[1]))
        return bad("--cards ALLIES,AXIS: numbers from 1 to 20 (got \"%s\")", a->cards);
    int commissar = -1;
    if (a->commissar) {
        enum side cs;
        if (!side_parse(a->commissar, &cs))
            return bad("--commissar must be allies or axis (got \"%s\")", a->commissar);
        commissar = cs;
    }
    /* What-if events in force may change who moves first and lift the Commissar rule at this
     * scenario (RULES.md 9: Soviet Invasion at Szack). */
    const struct event_def *events[RS_MAX_EVENTS];
    int nevents = parse_effects(e->rs, a->effects, events);
    if (nevents < 0)
        return 2;
    struct battle_overrides ov;
    char scenario[RS_NAME_MAX] = "";
    if (a->scenario) /* as the players wrote it, without the spaces around it */
        snprintf(scenario, sizeof scenario, "%s", a->scenario + strspn(a->scenario, " "));
    for (size_t l = strlen(scenario); l && scenario[l - 1] == ' ';)
        scenario[--l] = '\0';
    /* Those whose scope takes this scenario in; an event for the battle a side picks is named
     * for this one. */
    int inscope = 0;
    for (int k = 0; k < nevents; k++)
        if (scope_applies(&events[k]->scope, 2, scenario, 2))
            events[inscope++] = events[k];
    what_if_battle_overrides(events, inscope, &ov);
    if (ov.first_player >= 0 && (int)first != ov.first_player) {
        first = (enum side)ov.first_player;
        if (!a->json)
            printf("A What-if event in force: the %s move first at %s.\n", side_title(first),
                   scenario[0] ? scenario : "this battle");
    }
    if (ov.no_commissar && commissar >= 0) {
        commissar = -1;
        if (!a->json)
            printf("A What-if event in force lifts the Political Commissar rule at %s.\n",
                   scenario[0] ? scenario : "this battle");
    }
    const enum face *faces[SIDE_COUNT] = {f[0], f[1]};
    struct victory_outcome *v = malloc(sizeof *v);
    victory_resolve(e->rs, first, faces, n, cards, commissar, v);
    json_t *j = victory_to_json(e->rs, v);
    if (a->json) {
        /* The battle as the events in force leave it (Soviet Invasion at Szack). */
        json_object_set_new(j, "first_player", json_string(side_name(first)));
        json_object_set_new(j, "commissar",
                            commissar >= 0 ? json_string(side_name((enum side)commissar))
                                           : json_null());
        print_json(j);
    } else {
        printf("Resolve in this order (%s moves first):\n", side_title(first));
        for (int i = 0; i < v->n; i++)
            printf("%3d. [%s %s] %s\n", i + 1, side_title(v->list[i].roller),
                   face_name(v->list[i].face), v->list[i].text);
        printf("Starting hands: Allies %d, Axis %d\n", v->hand[SIDE_ALLIES], v->hand[SIDE_AXIS]);
        json_t *notes = json_object_get(j, "notes");
        for (size_t i = 0; i < json_array_size(notes); i++)
            printf("Note: %s\n", json_string_value(json_array_get(notes, i)));
        json_decref(j);
    }
    free(v);
    return 0;
}

/* The D-Day Landings map combinations (RULES.md 7). */
static int cmd_maps(const struct ruleset_set *set, const struct args *a)
{
    const struct ruleset_entry *e = rulesets_find(set, a->ruleset ? a->ruleset : "standard");
    if (!e)
        return bad("--ruleset: unknown ruleset \"%s\" (see m44 rulesets)", a->ruleset);
    const struct map_rules *m = &e->rs->maps;
    if (m->ncombos == 0) {
        printf("Ruleset %s has no multi-map battles.\n", e->rs->id);
        return 0;
    }
    json_t *list = json_array();
    for (int c = 0; c < m->ncombos; c++) {
        const struct map_combo *combo = &m->combos[c];
        char names[256] = "", send[160] = "";
        json_t *ids = json_array();
        for (int i = 0; i < combo->nmaps; i++) {
            size_t l = strlen(names), k = strlen(send);
            snprintf(names + l, sizeof names - l, "%s%s", i ? " + " : "",
                     m->maps[combo->maps[i]].name);
            snprintf(send + k, sizeof send - k, "%s\"%s\"", i ? "," : "",
                     m->maps[combo->maps[i]].id);
            json_array_append_new(ids, json_string(m->maps[combo->maps[i]].id));
        }
        json_t *j = json_pack("{s:o, s:s, s:i}", "maps", ids, "mode", combo->mode, "medals_to_win",
                              combo->medals_to_win);
        if (combo->has_cards)
            json_object_set_new(
                j, "cards",
                json_pack("{s:i, s:i}", "allies", combo->cards[0], "axis", combo->cards[1]));
        if (!a->json) {
            printf("%s: %s\n  %d medals to win; ", combo->mode, names, combo->medals_to_win);
            if (combo->has_cards)
                printf("Commander-in-Chief command cards: Allies %d, Axis %d\n", combo->cards[0],
                       combo->cards[1]);
            else
                printf("each player has their own hand of command cards\n");
            printf("  set-up: \"maps\": [%s]\n", send);
        }
        json_array_append_new(list, j);
    }
    if (a->json)
        print_json(list);
    else
        json_decref(list);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    struct args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    if (sodium_init() < 0) {
        fprintf(stderr, "m44: libsodium failed to initialise\n");
        return 1;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "verify") == 0) {
        if (!a.file)
            return bad("verify needs the export FILE");
    } else if (a.file) {
        return bad("unexpected argument \"%s\"", a.file);
    }
    char err[1024];
    if (rulesets_init(a.rulesets_dir, err, sizeof err)) {
        fprintf(stderr, "m44: %s\n", err);
        return 1;
    }
    const struct ruleset_set *set = rulesets();
    if (strcmp(cmd, "verify") == 0 || strcmp(cmd, "rulesets") == 0) {
        /* A grand campaign's record is checked against its grand ruleset's order; the list
         * checks and shows the grand rulesets too. */
        if (grand_rulesets_init(a.rulesets_dir, err, sizeof err)) {
            fprintf(stderr, "m44: %s\n", err);
            rulesets_shutdown();
            return 1;
        }
        rc = strcmp(cmd, "verify") == 0 ? verify_export(a.file, stdout, stderr)
                                        : cmd_rulesets(set, &a);
        grand_rulesets_shutdown();
        rulesets_shutdown();
        return rc;
    }
    if (strcmp(cmd, "explain") == 0)
        rc = cmd_explain(set, &a);
    else if (strcmp(cmd, "events") == 0)
        rc = cmd_events(set, &a);
    else if (strcmp(cmd, "maps") == 0)
        rc = cmd_maps(set, &a);
    else
        rc = bad("unknown command \"%s\"", cmd);
    rulesets_shutdown();
    return rc;
}
