/* Ruleset files: the built-ins and --rulesets-dir, "extends", and the loaded set. */
#include "campaign/ruleset_load.h"

#include "campaign/grand_rulesets.h"
#include "campaign/ruleset_json.h"

#include "util/embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- files, "extends", the set ---- */

struct raw {
    char file[256];
    char id[RS_ID_MAX];
    json_t *doc;      /* as read */
    json_t *resolved; /* after extends */
    int state;        /* 0 unvisited, 1 resolving, 2 done */
};

/* Objects merge key by key (null deletes); anything else replaces. */
static void deep_merge(json_t *base, json_t *over)
{
    const char *key;
    json_t *v;
    json_object_foreach(over, key, v)
    {
        json_t *b = json_object_get(base, key);
        if (json_is_null(v))
            json_object_del(base, key);
        else if (json_is_object(v) && json_is_object(b))
            deep_merge(b, v);
        else
            json_object_set(base, key, v);
    }
}

static int resolve(struct raw *raws, int n, int i, char *err, size_t errlen)
{
    struct raw *r = &raws[i];
    if (r->state == 2)
        return 0;
    if (r->state == 1) {
        snprintf(err, errlen, "%s: $.extends: \"extends\" forms a cycle", r->file);
        return -1;
    }
    json_t *ext = json_object_get(r->doc, "extends");
    if (!ext) {
        r->resolved = json_incref(r->doc);
        r->state = 2;
        return 0;
    }
    if (!json_is_string(ext)) {
        snprintf(err, errlen, "%s: $.extends: must be the id of another ruleset", r->file);
        return -1;
    }
    int parent = -1;
    for (int k = 0; k < n; k++)
        if (strcmp(raws[k].id, json_string_value(ext)) == 0)
            parent = k;
    if (parent < 0) {
        snprintf(err, errlen, "%s: $.extends: no ruleset has id \"%s\"", r->file,
                 json_string_value(ext));
        return -1;
    }
    r->state = 1;
    if (resolve(raws, n, parent, err, errlen))
        return -1;
    json_t *merged = json_deep_copy(raws[parent].resolved);
    json_t *own = json_deep_copy(r->doc);
    json_object_del(own, "extends");
    deep_merge(merged, own);
    json_decref(own);
    r->resolved = merged;
    r->state = 2;
    return 0;
}

static int add_raw(struct raw *raws, int *n, const char *file, const char *text, size_t len,
                   char *err, size_t errlen)
{
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        snprintf(err, errlen, "%s: line %d column %d: %s", file, je.line, je.column, je.text);
        return -1;
    }
    if (is_grand_ruleset_doc(doc)) {
        json_decref(doc); /* a grand ruleset: campaign/grand_rulesets.c loads it */
        return 0;
    }
    const char *id = json_string_value(json_object_get(doc, "id"));
    if (!json_is_object(doc) || !json_object_get(doc, "id")) {
        snprintf(err, errlen,
                 "%s: not a ruleset (it has no \"id\"): this directory holds only rulesets and "
                 "grand rulesets; move other files elsewhere",
                 file);
        json_decref(doc);
        return -1;
    }
    if (!id || !rj_valid_id(id, RS_ID_MAX)) {
        snprintf(err, errlen,
                 "%s: $.id: a ruleset is an object with an \"id\" of lowercase "
                 "letters, digits and '-'",
                 file);
        json_decref(doc);
        return -1;
    }
    for (int k = 0; k < *n; k++)
        if (strcmp(raws[k].id, id) == 0) {
            /* A later source (the extra directory) replaces a built-in; within one source
             * the same id twice is a mistake, caught by the caller comparing directories. */
            json_decref(raws[k].doc);
            raws[k].doc = doc;
            snprintf(raws[k].file, sizeof raws[k].file, "%s", file);
            return 0;
        }
    if (*n >= RULESETS_MAX) {
        snprintf(err, errlen, "%s: too many rulesets (at most %d)", file, RULESETS_MAX);
        json_decref(doc);
        return -1;
    }
    struct raw *r = &raws[(*n)++];
    memset(r, 0, sizeof *r);
    snprintf(r->file, sizeof r->file, "%s", file);
    snprintf(r->id, sizeof r->id, "%s", id);
    r->doc = doc;
    return 0;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            if (cap > (4u << 20)) {
                free(buf);
                buf = NULL;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int load_dir(struct raw *raws, int *n, const char *dir, char *err, size_t errlen)
{
    char *names[RULESETS_MAX];
    int count = rj_json_files(dir, names, RULESETS_MAX, err, errlen);
    if (count < 0)
        return -1;
    int rc = 0;
    char seen[RULESETS_MAX][RS_ID_MAX];
    for (int i = 0; i < count && rc == 0; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len;
        char *text = read_file(path, &len);
        if (!text) {
            snprintf(err, errlen, "%s: cannot read (or larger than 4 MiB)", path);
            rc = -1;
            break;
        }
        rc = add_raw(raws, n, path, text, len, err, errlen);
        free(text);
        if (rc)
            break;
        /* The id just added (or replaced) must not repeat within this directory. */
        const char *id = NULL;
        for (int k = 0; k < *n; k++)
            if (strcmp(raws[k].file, path) == 0)
                id = raws[k].id;
        for (int k = 0; k < i && id; k++)
            if (strcmp(seen[k], id) == 0) {
                snprintf(err, errlen, "%s: $.id: \"%s\" is also the id of another file here", path,
                         id);
                rc = -1;
            }
        snprintf(seen[i], RS_ID_MAX, "%s", id ? id : "");
    }
    for (int i = 0; i < count; i++)
        free(names[i]);
    return rc;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct ruleset_entry *x = a, *y = b;
    return strcmp(x->rs->id, y->rs->id);
}

int rulesets_load(struct ruleset_set *set, const char *dir, char *err, size_t errlen)
{
    memset(set, 0, sizeof *set);
    struct raw *raws = calloc(RULESETS_MAX, sizeof *raws);
    int n = 0, rc = 0;
    if (!raws) {
        snprintf(err, errlen, "out of memory loading rulesets");
        return -1;
    }
    for (const struct embedded_file *f = embedded_rulesets; f->name && rc == 0; f++) {
        char file[256];
        snprintf(file, sizeof file, "rules/data/%s", f->name);
        rc = add_raw(raws, &n, file, (const char *)f->data, f->len, err, errlen);
    }
    if (rc == 0 && dir && *dir)
        rc = load_dir(raws, &n, dir, err, errlen);
    for (int i = 0; i < n && rc == 0; i++)
        rc = resolve(raws, n, i, err, errlen);
    for (int i = 0; i < n && rc == 0; i++) {
        struct ruleset *rs = ruleset_from_json(raws[i].resolved, raws[i].file, err, errlen);
        if (!rs) {
            rc = -1;
            break;
        }
        struct ruleset_entry *e = &set->items[set->n++];
        e->rs = rs;
        e->json = json_dumps(raws[i].resolved, JSON_COMPACT);
        snprintf(e->file, sizeof e->file, "%s", raws[i].file);
    }
    for (int i = 0; i < n; i++) {
        json_decref(raws[i].doc);
        json_decref(raws[i].resolved);
    }
    free(raws);
    if (rc) {
        rulesets_free(set);
        return -1;
    }
    qsort(set->items, (size_t)set->n, sizeof set->items[0], cmp_entry);
    return 0;
}

void rulesets_free(struct ruleset_set *set)
{
    for (int i = 0; i < set->n; i++) {
        free(set->items[i].rs);
        free(set->items[i].json);
    }
    set->n = 0;
}

const struct ruleset_entry *rulesets_find(const struct ruleset_set *set, const char *id)
{
    for (int i = 0; i < set->n; i++)
        if (id && strcmp(set->items[i].rs->id, id) == 0)
            return &set->items[i];
    return NULL;
}
