/* Grand rulesets: loading and validating rules/grand/ files and --rulesets-dir's grand files. */
#include "campaign/grand_rulesets.h"

#include "campaign/ruleset_json.h"
#include "util/embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct grand_ruleset *loaded[GRAND_RULESETS_MAX];
static int nloaded;

bool is_grand_ruleset_doc(json_t *doc)
{
    /* Without an id it is no ruleset of either kind (another file left in --rulesets-dir, such
     * as a book's data): the ruleset loader says so. */
    return json_is_object(doc) && json_object_get(doc, "campaigns") != NULL &&
           json_object_get(doc, "id") != NULL;
}

static int load_grades(struct ctx *c, json_t *doc, struct grand_ruleset *g)
{
    json_t *grades = json_object_get(doc, "grades");
    size_t m = rj_push(c, "grades");
    if (!json_is_array(grades) || json_array_size(grades) < 1 ||
        json_array_size(grades) > GRAND_MAX_GRADES)
        return rj_fail(c, "must list 1 to %d grades, highest first", GRAND_MAX_GRADES);
    for (size_t i = 0; i < json_array_size(grades); i++) {
        json_t *x = json_array_get(grades, i);
        struct grand_grade *gr = &g->grades[g->ngrades];
        size_t k = rj_push_index(c, i);
        if (!json_is_object(x) || rj_check_keys(c, x, "name min_ratio points") ||
            rj_get_string(c, x, "name", true, gr->name, sizeof gr->name) ||
            rj_get_int(c, x, "min_ratio", true, 0, 0, 100, &gr->min_ratio) ||
            rj_get_int(c, x, "points", true, 0, 0, 100, &gr->points))
            return json_is_object(x) ? -1 : rj_fail(c, "must be {name, min_ratio, points}");
        if (g->ngrades && gr->min_ratio > g->grades[g->ngrades - 1].min_ratio) {
            rj_push(c, "min_ratio");
            return rj_fail(c, "grades are listed highest first");
        }
        g->ngrades++;
        rj_pop(c, k);
    }
    rj_pop(c, m);
    return 0;
}

static struct grand_ruleset *from_json(json_t *doc, const char *file, char *err, size_t errlen)
{
    struct grand_ruleset *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "%s: out of memory", file);
        return NULL;
    }
    struct ctx c = {.file = file, .path = "$", .err = err, .errlen = errlen};
    int rc = !json_is_object(doc) ? rj_fail(&c, "a grand ruleset is a JSON object") : 0;
    if (!rc)
        rc = rj_check_keys(&c, doc, "id name description source campaigns grades reading") ||
             rj_get_string(&c, doc, "id", true, g->id, sizeof g->id) ||
             rj_get_string(&c, doc, "name", true, g->name, sizeof g->name) ||
             rj_get_string(&c, doc, "description", true, g->description, sizeof g->description) ||
             rj_get_string(&c, doc, "source", false, g->source, sizeof g->source) ||
             rj_get_string(&c, doc, "reading", false, g->reading, sizeof g->reading);
    if (!rc && !rj_valid_id(g->id, RS_ID_MAX)) {
        rj_push(&c, "id");
        rc = rj_fail(&c, "ids are lowercase letters, digits and '-'");
    }
    json_t *list = json_object_get(doc, "campaigns");
    if (!rc) {
        size_t m = rj_push(&c, "campaigns");
        if (!json_is_array(list) || json_array_size(list) < 1 ||
            json_array_size(list) > GRAND_MAX_CAMPAIGNS)
            rc = rj_fail(&c, "must list 1 to %d campaigns, in the order they are played",
                         GRAND_MAX_CAMPAIGNS);
        for (size_t i = 0; !rc && i < json_array_size(list); i++) {
            json_t *x = json_array_get(list, i);
            size_t k = rj_push_index(&c, i);
            rc =
                !json_is_object(x) ? rj_fail(&c, "must be {ruleset, name}")
                : rj_check_keys(&c, x, "ruleset name") ||
                        rj_get_string(&c, x, "ruleset", true, g->campaigns[i].ruleset, RS_ID_MAX) ||
                        rj_get_string(&c, x, "name", true, g->campaigns[i].name, RS_NAME_MAX)
                    ? -1
                    : 0;
            if (!rc && !ruleset_entry(g->campaigns[i].ruleset)) {
                rj_push(&c, "ruleset");
                rc =
                    rj_fail(&c, "\"%s\" is not a ruleset this server has", g->campaigns[i].ruleset);
            }
            if (!rc) {
                g->ncampaigns++;
                rj_pop(&c, k);
            }
        }
        if (!rc)
            rj_pop(&c, m);
    }
    if (!rc)
        rc = load_grades(&c, doc, g);
    if (rc) {
        free(g);
        return NULL;
    }
    g->json = json_dumps(doc, JSON_COMPACT);
    return g;
}

/* Adds (or, for an id loaded already, replaces) one grand ruleset. */
static int add(json_t *doc, const char *file, char *err, size_t errlen)
{
    struct grand_ruleset *g = from_json(doc, file, err, errlen);
    if (!g)
        return -1;
    snprintf(g->file, sizeof g->file, "%s", file);
    for (int i = 0; i < nloaded; i++)
        if (strcmp(loaded[i]->id, g->id) == 0) {
            /* A file of the directory replaces a built-in; two files of it may not share an id. */
            if (strncmp(loaded[i]->file, "rules/grand/", 12) != 0) {
                snprintf(err, errlen, "%s: $.id: \"%s\" is also the id of another file here", file,
                         g->id);
                free(g->json);
                free(g);
                return -1;
            }
            free(loaded[i]->json);
            free(loaded[i]);
            loaded[i] = g;
            return 0;
        }
    if (nloaded >= GRAND_RULESETS_MAX) {
        snprintf(err, errlen, "%s: too many grand rulesets (at most %d)", file, GRAND_RULESETS_MAX);
        free(g->json);
        free(g);
        return -1;
    }
    loaded[nloaded++] = g;
    return 0;
}

static int load_dir(const char *dir, char *err, size_t errlen)
{
    char *names[RULESETS_MAX];
    int n = rj_json_files(dir, names, RULESETS_MAX, err, errlen);
    if (n < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_error_t je;
        json_t *doc = rc ? NULL : json_load_file(path, JSON_REJECT_DUPLICATES, &je);
        /* Unreadable files are the ruleset loader's to report; rulesets are not ours. */
        if (doc && is_grand_ruleset_doc(doc))
            rc = add(doc, path, err, errlen);
        json_decref(doc);
        free(names[i]);
    }
    return rc;
}

static int cmp_grand(const void *a, const void *b)
{
    return strcmp((*(struct grand_ruleset *const *)a)->id, (*(struct grand_ruleset *const *)b)->id);
}

int grand_rulesets_init(const char *dir, char *err, size_t errlen)
{
    int rc = 0;
    for (const struct embedded_file *f = embedded_grand; f->name && rc == 0; f++) {
        char file[256];
        snprintf(file, sizeof file, "rules/grand/%s", f->name);
        json_error_t je;
        json_t *doc = json_loadb((const char *)f->data, f->len, JSON_REJECT_DUPLICATES, &je);
        if (!doc) {
            snprintf(err, errlen, "%s: line %d: %s", file, je.line, je.text);
            rc = -1;
        } else {
            rc = add(doc, file, err, errlen);
        }
        json_decref(doc);
    }
    if (rc == 0 && dir && *dir)
        rc = load_dir(dir, err, errlen);
    if (rc)
        grand_rulesets_shutdown();
    else
        qsort(loaded, (size_t)nloaded, sizeof loaded[0], cmp_grand);
    return rc;
}

void grand_rulesets_shutdown(void)
{
    for (int i = 0; i < nloaded; i++) {
        free(loaded[i]->json);
        free(loaded[i]);
    }
    nloaded = 0;
}

int grand_rulesets_count(void)
{
    return nloaded;
}

const struct grand_ruleset *grand_ruleset_at(int i)
{
    return i >= 0 && i < nloaded ? loaded[i] : NULL;
}

const struct grand_ruleset *grand_ruleset_find(const char *id)
{
    for (int i = 0; id && i < nloaded; i++)
        if (strcmp(loaded[i]->id, id) == 0)
            return loaded[i];
    return NULL;
}
