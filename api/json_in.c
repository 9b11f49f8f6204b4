#include "api/json_in.h"

#include "api/bodies.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool jerr_set(struct jerr *e, enum problem_code code, const char *field, const char *fmt, ...)
{
    e->code = code;
    snprintf(e->field, sizeof e->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    /* Either may quote a field's name cut short in the middle of a letter. */
    text_mend_utf8(e->field);
    text_mend_utf8(e->detail);
    return false;
}

json_t *jget(json_t *obj, const char *name)
{
    json_t *v = json_object_get(obj, name);
    return json_is_null(v) ? NULL : v;
}

json_t *body_parse(const struct req *r, struct jerr *e)
{
    return json_body(r->body, r->body_len, e);
}

static const char *kind_name(enum jkind k)
{
    switch (k) {
    case JK_STRING:
    case JK_NAME:
        return "a string";
    case JK_INT:
        return "a whole number";
    case JK_BOOL:
        return "true or false";
    case JK_OBJECT:
        return "an object";
    case JK_ARRAY:
        return "an array";
    case JK_SIDE:
        return "\"allies\" or \"axis\"";
    case JK_ANY:
        break;
    }
    return "a value";
}

static bool check_fields(json_t *obj, const struct jfield *spec, const char *path, bool recorded,
                         struct jerr *e);

static bool check_value(json_t *v, const struct jfield *f, const char *path, bool recorded,
                        struct jerr *e)
{
    switch (f->kind) {
    case JK_STRING:
    case JK_NAME: {
        if (!json_is_string(v))
            break;
        size_t len = json_string_length(v);
        if ((long)len < f->min || (long)len > f->max) {
            if (f->min > 0 && (long)len < f->min)
                return jerr_set(e, PROBLEM_INVALID_FIELD, path, "%s must not be empty.", path);
            /* In bytes, as stored; said so that a player sees why 60 emoji do not fit. */
            return jerr_set(e, PROBLEM_INVALID_FIELD, path,
                            "%s is too long: it takes %zu bytes, and %ld fit (a plain letter "
                            "takes 1, an accented letter 2, an emoji up to 4).",
                            path, len, f->max);
        }
        if (f->kind == JK_NAME && !recorded && text_blank(json_string_value(v), len))
            return jerr_set(e, PROBLEM_INVALID_FIELD, path, "%s is only spaces: give a name%s.",
                            path, f->min > 0 ? "" : ", or leave it empty");
        return true;
    }
    case JK_INT:
        if (!json_is_integer(v))
            break;
        if (json_integer_value(v) < f->min || json_integer_value(v) > f->max)
            return jerr_set(e, PROBLEM_INVALID_FIELD, path,
                            "%s must be a whole number from %ld to %ld.", path, f->min, f->max);
        return true;
    case JK_BOOL:
        if (!json_is_boolean(v))
            break;
        return true;
    case JK_OBJECT:
        if (!json_is_object(v))
            break;
        return f->fields ? check_fields(v, f->fields, path, recorded, e) : true;
    case JK_ARRAY:
        if (!json_is_array(v))
            break;
        if ((long)json_array_size(v) < f->min || (long)json_array_size(v) > f->max)
            return jerr_set(e, PROBLEM_INVALID_FIELD, path, "%s must have from %ld to %ld items.",
                            path, f->min, f->max);
        return true;
    case JK_SIDE: {
        const char *s = json_string_value(v);
        if (!s || (strcmp(s, "allies") != 0 && strcmp(s, "axis") != 0))
            break;
        return true;
    }
    case JK_ANY:
        return true;
    }
    return jerr_set(e, PROBLEM_INVALID_FIELD, path, "%s must be %s.", path, kind_name(f->kind));
}

static bool check_fields(json_t *obj, const struct jfield *spec, const char *path, bool recorded,
                         struct jerr *e)
{
    char sub[160];
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        const struct jfield *f = spec;
        while (f->name && strcmp(f->name, key) != 0)
            f++;
        snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
        text_cut_utf8(sub); /* a long name cut short ends on a whole letter */
        if (!f->name) {
            /* Name the known fields so the client sees what was meant. */
            char known[256] = "";
            for (const struct jfield *k = spec; k->name; k++) {
                size_t l = strlen(known);
                snprintf(known + l, sizeof known - l, "%s%s", l ? ", " : "", k->name);
            }
            if (!known[0])
                return jerr_set(e, PROBLEM_UNKNOWN_FIELD, sub,
                                "Unknown field \"%s\": this request takes no fields ({}).", sub);
            return jerr_set(e, PROBLEM_UNKNOWN_FIELD, sub, "Unknown field \"%s\"; this takes: %s.",
                            sub, known);
        }
        if (json_is_null(v)) {
            if (f->nullable)
                continue;
            return jerr_set(e, PROBLEM_INVALID_FIELD, sub, "%s must be %s, not null.", sub,
                            kind_name(f->kind));
        }
        if (!check_value(v, f, sub, recorded, e))
            return false;
    }
    for (const struct jfield *f = spec; f->name; f++)
        if (f->required && !jget(obj, f->name)) {
            snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", f->name);
            return jerr_set(e, PROBLEM_MISSING_FIELD, sub, "%s is required.", sub);
        }
    return true;
}

bool body_check(json_t *obj, const struct jfield *spec, const char *path, struct jerr *e)
{
    return check_fields(obj, spec, path, false, e);
}

bool body_check_recorded(json_t *obj, const struct jfield *spec, const char *path, struct jerr *e)
{
    return check_fields(obj, spec, path, true, e);
}

void reply_jerr(struct req *r, const struct jerr *e)
{
    reply_problem_extra(r, e->code, e->field[0] ? json_pack("{s:s}", "field", e->field) : NULL,
                        "%s", e->detail);
}
