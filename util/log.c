#include "util/log.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static enum log_format log_format = LOG_TEXT;
static enum log_level log_min = LOG_INFO;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_set_format(enum log_format format)
{
    log_format = format;
}

void log_set_level(enum log_level level)
{
    log_min = level;
}

/* The time to the millisecond. The date and time to the second is formatted once a second per
 * thread: gmtime_r takes glibc's time-zone lock, which every request's log line would contend
 * for. */
static void timestamp(char *out, size_t n)
{
    static _Thread_local time_t cached_sec = -1;
    static _Thread_local char cached[32];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != cached_sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        if (!strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm))
            cached[0] = '\0';
        cached_sec = ts.tv_sec;
    }
    snprintf(out, n, "%s.%03ldZ", cached, ts.tv_nsec / 1000000);
}

/* Writes a whole line with one write(2), so that concurrent lines never interleave and no
 * stdio lock is taken. */
static void emit(const char *line)
{
    size_t len = strlen(line), done = 0;
    if (len && line[len - 1] != '\n') { /* cut short by its buffer: still one line */
        char *whole = malloc(len + 2);
        if (whole) {
            memcpy(whole, line, len);
            memcpy(whole + len, "\n", 2);
            emit(whole);
            free(whole);
            return;
        }
    }
    while (done < len) {
        ssize_t w = write(STDERR_FILENO, line + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

static void emit_json(json_t *obj)
{
    char *s = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    if (!s)
        return;
    size_t n = strlen(s);
    char *line = malloc(n + 2);
    if (line) {
        memcpy(line, s, n);
        line[n] = '\n';
        line[n + 1] = '\0';
        emit(line);
        free(line);
    }
    free(s);
}

void log_msg(enum log_level level, const char *component, const char *fmt, ...)
{
    if (level < log_min)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char ts[40];
    timestamp(ts, sizeof ts);
    if (log_format == LOG_JSON) {
        emit_json(json_pack("{s:s, s:s, s:s, s:s}", "ts", ts, "level", level_names[level],
                            "component", component, "msg", msg));
        return;
    }
    char line[1200];
    snprintf(line, sizeof line, "%s %-5s %s: %s\n", ts, level_names[level], component, msg);
    emit(line);
}

/* `in`, cut to fit `out`, with control characters as '?'. */
static void clean(const char *in, char *out, size_t n)
{
    size_t i = 0;
    for (; i < n - 1 && in[i]; i++)
        out[i] = ((unsigned char)in[i] < 0x20 || in[i] == 0x7f) ? '?' : in[i];
    out[i] = '\0';
}

void log_request(const char *client, const char *method, const char *path, const char *route,
                 int status, double duration_ms)
{
    if (LOG_INFO < log_min)
        return;
    /* The method and the path are client input, cut to a bounded line; control characters
     * would forge log lines. */
    char safe[301], verb[17];
    clean(path, safe, sizeof safe);
    clean(method, verb, sizeof verb);
    char ts[40];
    timestamp(ts, sizeof ts);
    if (log_format == LOG_JSON) {
        emit_json(json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f}", "ts", ts, "level",
                            "info", "component", "http", "client", client, "method", verb, "path",
                            safe, "route", route, "status", status, "duration_ms", duration_ms));
        return;
    }
    char line[1200];
    snprintf(line, sizeof line, "%s info  http: %s %s %s %d %.3fms\n", ts, *client ? client : "-",
             verb, safe, status, duration_ms);
    emit(line);
}
