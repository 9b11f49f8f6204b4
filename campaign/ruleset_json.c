/* JSON readers for the ruleset loader: each failure names the file, JSON path and reason. */
#include "campaign/ruleset_json.h"

#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

int rj_fail(struct ctx *c, const char *fmt, ...)
{
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s: %s: %s", c->file, c->path[0] ? c->path : "$", reason);
    return -1;
}

/* Appends ".key" (or "[i]") to the path; returns the old length for rj_pop(). */
size_t rj_push(struct ctx *c, const char *key)
{
    size_t len = strlen(c->path);
    if (len == 0)
        snprintf(c->path, sizeof c->path, "$");
    len = strlen(c->path);
    snprintf(c->path + len, sizeof c->path - len, ".%s", key);
    return len;
}

size_t rj_push_index(struct ctx *c, size_t i)
{
    size_t len = strlen(c->path);
    snprintf(c->path + len, sizeof c->path - len, "[%zu]", i);
    return len;
}

void rj_pop(struct ctx *c, size_t len)
{
    c->path[len] = '\0';
}

/* Every key of obj must be in the space-separated list. */
int rj_check_keys(struct ctx *c, json_t *obj, const char *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        size_t n = strlen(key);
        bool ok = false;
        for (const char *a = allowed; *a && !ok;) {
            size_t alen = strcspn(a, " ");
            ok = alen == n && strncmp(a, key, n) == 0;
            a += alen;
            while (*a == ' ')
                a++;
        }
        if (!ok)
            return rj_fail(c, "unknown field \"%s\" (allowed: %s)", key, allowed);
    }
    return 0;
}

int rj_get_string(struct ctx *c, json_t *obj, const char *key, bool required, char *out,
                  size_t outlen)
{
    json_t *v = json_object_get(obj, key);
    size_t m = rj_push(c, key);
    int rc = 0;
    if (!v) {
        if (required)
            rc = rj_fail(c, "is required");
        else if (outlen)
            out[0] = '\0';
    } else if (!json_is_string(v)) {
        rc = rj_fail(c, "must be a string");
    } else if (json_string_length(v) >= outlen) {
        rc = rj_fail(c, "is too long (at most %zu bytes)", outlen - 1);
    } else if (required && json_string_length(v) == 0) {
        rc = rj_fail(c, "must not be empty");
    } else {
        memcpy(out, json_string_value(v), json_string_length(v) + 1);
    }
    rj_pop(c, m);
    return rc;
}

int rj_get_int(struct ctx *c, json_t *obj, const char *key, bool required, int def, int min,
               int max, int *out)
{
    json_t *v = json_object_get(obj, key);
    size_t m = rj_push(c, key);
    int rc = 0;
    if (!v) {
        if (required)
            rc = rj_fail(c, "is required");
        *out = def;
    } else if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        rc = rj_fail(c, "must be an integer from %d to %d", min, max);
    } else {
        *out = (int)json_integer_value(v);
    }
    rj_pop(c, m);
    return rc;
}

int rj_get_bool(struct ctx *c, json_t *obj, const char *key, bool def, bool *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        *out = def;
        return 0;
    }
    size_t m = rj_push(c, key);
    int rc = json_is_boolean(v) ? 0 : rj_fail(c, "must be true or false");
    *out = json_is_true(v);
    rj_pop(c, m);
    return rc;
}

int rj_as_face(struct ctx *c, json_t *v, enum face *out)
{
    if (!json_is_string(v) || !face_parse(json_string_value(v), out))
        return rj_fail(c, "must be one of infantry, armor, grenade, star, flag");
    return 0;
}

int rj_as_side(struct ctx *c, json_t *v, enum side *out)
{
    if (!json_is_string(v) || !side_parse(json_string_value(v), out))
        return rj_fail(c, "must be \"allies\" or \"axis\"");
    return 0;
}

/* {"allies": n, "axis": n} */
int rj_get_pair(struct ctx *c, json_t *obj, const char *key, bool required, int min, int max,
                int out[SIDE_COUNT])
{
    json_t *v = json_object_get(obj, key);
    out[0] = out[1] = 0;
    if (!v && !required)
        return 0;
    size_t m = rj_push(c, key);
    int rc = 0;
    if (!json_is_object(v))
        rc = rj_fail(c, "must be an object {\"allies\": n, \"axis\": n}");
    else if (rj_check_keys(c, v, "allies axis") ||
             rj_get_int(c, v, "allies", true, 0, min, max, &out[0]) ||
             rj_get_int(c, v, "axis", true, 0, min, max, &out[1]))
        rc = -1;
    rj_pop(c, m);
    return rc;
}

bool rj_valid_id(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max)
        return false;
    for (const char *p = s; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-'))
            return false;
    return true;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int rj_json_files(const char *dir, char **names, int max, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open the rulesets directory", dir);
        return -1;
    }
    int count = 0, rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
            continue;
        if (count >= max) {
            snprintf(err, errlen, "%s: too many ruleset files (at most %d)", dir, max);
            rc = -1;
        } else if (!(names[count] = strdup(e->d_name))) {
            snprintf(err, errlen, "%s: out of memory", dir);
            rc = -1;
        } else {
            count++;
        }
    }
    closedir(d);
    if (rc) {
        for (int i = 0; i < count; i++)
            free(names[i]);
        return -1;
    }
    qsort(names, (size_t)count, sizeof names[0], cmp_name);
    return count;
}
