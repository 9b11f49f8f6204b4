#include "util/log.h"
#include "util/text.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
    /* By hand, as the request line below: printf's formatting was most of a line's cost. */
    size_t len = strlen(cached);
    long ms = ts.tv_nsec / 1000000;
    if (n < len + 6) {
        out[0] = '\0';
        return;
    }
    memcpy(out, cached, len);
    out[len] = '.';
    out[len + 1] = (char)('0' + ms / 100);
    out[len + 2] = (char)('0' + ms / 10 % 10);
    out[len + 3] = (char)('0' + ms % 10);
    out[len + 4] = 'Z';
    out[len + 5] = '\0';
}

/* A line put together piece by piece; what does not fit is left out (it always ends). */
struct line {
    char *p;
    size_t n, cap; /* cap includes the NUL */
};

static void put(struct line *l, const char *s, size_t len)
{
    if (len > l->cap - 1 - l->n)
        len = l->cap - 1 - l->n;
    memcpy(l->p + l->n, s, len);
    l->n += len;
    l->p[l->n] = '\0';
}

static void put_str(struct line *l, const char *s)
{
    put(l, s, strlen(s));
}

static void put_uint(struct line *l, unsigned long long v, int min_digits)
{
    char d[24];
    int i = (int)sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v || (int)sizeof d - i < min_digits);
    put(l, d + i, sizeof d - (size_t)i);
}

static void write_all(const char *p, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(STDERR_FILENO, p + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

/*
 * Lines wait in `pending` until the writer thread (log_start) writes them, many with one
 * write(2): a request's line costs a copy, not a system call, and while stderr keeps up no HTTP
 * thread waits for it. A warning or an error is written at once by its caller, after every line
 * before it. Lines are written whole and in order; when the buffer is full, or without the
 * writer (before log_start, after log_stop, in the tools), the caller writes.
 */
#define LOG_BUF   (256 * 1024)
#define GATHER_MS 10 /* a line waits at most about this long */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER; /* one batch at a time */
static pthread_cond_t pending_cond; /* on the monotonic clock: a change of time never stalls it */
static bool cond_made;
static char bufs[2][LOG_BUF];
static char *pending = bufs[0];
static size_t pending_len;
static bool writer_on, writer_idle, writer_stop;
static pthread_t writer;
static atomic_ulong writes; /* times lines went to stderr, by the writer or a caller */

/* Whether stderr is the journal's stream (systemd names it in JOURNAL_STREAM): each line then
 * starts with its priority, "<4>" for a warning, which the journal takes off and keeps as the
 * line's priority (journalctl -p warning). */
static bool journal;
static const char *const priorities[] = {"<7>", "<6>", "<4>", "<3>"};

void log_detect_journal(void)
{
    const char *stream = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    journal = stream && sscanf(stream, "%llu:%llu", &dev, &ino) == 2 &&
              fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
              (unsigned long long)st.st_ino == ino;
}

/* With pending_lock held: writes the pending lines, then `pre` and `line` (and a newline when
 * it has none), after the batch the writer may be writing. */
static void flush_locked(const char *pre, const char *line, size_t len, bool whole)
{
    pthread_mutex_lock(&write_lock);
    if (pending_len || len)
        atomic_fetch_add(&writes, 1);
    write_all(pending, pending_len);
    pending_len = 0;
    write_all(pre, strlen(pre));
    write_all(line, len);
    if (!whole)
        write_all("\n", 1);
    pthread_mutex_unlock(&write_lock);
}

static void *write_pending(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-log");
    pthread_mutex_lock(&pending_lock);
    for (;;) {
        while (!pending_len && !writer_stop) {
            writer_idle = true;
            pthread_cond_wait(&pending_cond, &pending_lock);
            writer_idle = false;
        }
        if (!pending_len)
            break;
        if (!writer_stop) { /* the first line of a batch: the lines of the next moments join it */
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_nsec += GATHER_MS * 1000000L;
            if (until.tv_nsec >= 1000000000L)
                until.tv_sec++, until.tv_nsec -= 1000000000L;
            while (!writer_stop && pending_len &&
                   pthread_cond_timedwait(&pending_cond, &pending_lock, &until) == 0) {
            }
            if (!pending_len) /* written by a caller meanwhile (a warning, a full buffer) */
                continue;
        }
        char *batch = pending;
        size_t n = pending_len;
        pending = batch == bufs[0] ? bufs[1] : bufs[0];
        pending_len = 0;
        /* Taken before pending_lock is let go: a line flushed later waits for this batch. */
        pthread_mutex_lock(&write_lock);
        pthread_mutex_unlock(&pending_lock);
        write_all(batch, n);
        atomic_fetch_add(&writes, 1);
        pthread_mutex_unlock(&write_lock);
        pthread_mutex_lock(&pending_lock);
    }
    pthread_mutex_unlock(&pending_lock);
    return NULL;
}

bool log_start(void)
{
    pthread_mutex_lock(&pending_lock);
    if (!cond_made) {
        pthread_condattr_t a;
        pthread_condattr_init(&a);
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        cond_made = pthread_cond_init(&pending_cond, &a) == 0;
        pthread_condattr_destroy(&a);
    }
    if (!writer_on && cond_made) {
        writer_stop = false;
        writer_on = pthread_create(&writer, NULL, write_pending, NULL) == 0;
    }
    bool on = writer_on;
    pthread_mutex_unlock(&pending_lock);
    return on;
}

void log_stop(void)
{
    pthread_mutex_lock(&pending_lock);
    bool was_on = writer_on;
    writer_stop = true;
    if (was_on)
        pthread_cond_signal(&pending_cond);
    pthread_mutex_unlock(&pending_lock);
    if (!was_on)
        return;
    pthread_join(writer, NULL);
    /* Lines logged after the writer left are written here; later ones by their callers. */
    pthread_mutex_lock(&pending_lock);
    writer_on = false;
    flush_locked("", "", 0, true);
    pthread_mutex_unlock(&pending_lock);
}

unsigned long log_writes(void)
{
    return atomic_load(&writes);
}

/* One line (a line cut short by its buffer still ends with a newline), written in order. */
static void emit(enum log_level level, const char *line)
{
    size_t len = strlen(line);
    bool whole = len && line[len - 1] == '\n';
    const char *pre = journal ? priorities[level] : "";
    size_t pre_len = strlen(pre);
    pthread_mutex_lock(&pending_lock);
    if (!writer_on || level >= LOG_WARN || pending_len + pre_len + len + 1 > LOG_BUF) {
        flush_locked(pre, line, len, whole);
    } else {
        size_t was = pending_len;
        memcpy(pending + pending_len, pre, pre_len);
        pending_len += pre_len;
        memcpy(pending + pending_len, line, len);
        pending_len += len;
        if (!whole)
            pending[pending_len++] = '\n';
        if (writer_idle && was == 0) /* the first line since the last batch */
            pthread_cond_signal(&pending_cond);
    }
    pthread_mutex_unlock(&pending_lock);
}

static void emit_json(enum log_level level, json_t *obj)
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
        emit(level, line);
        free(line);
    }
    free(s);
}

void log_msg(enum log_level level, const char *component, const char *fmt, ...)
{
    if (level < log_min)
        return;
    char raw[1024], msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* A message may quote a client's path or method, or a database's error ending in a line
     * break: one line, whatever it quotes. */
    size_t len = strlen(raw);
    while (len && (raw[len - 1] == '\n' || raw[len - 1] == '\r'))
        raw[--len] = '\0';
    text_clean_line(raw, msg, sizeof msg);
    char ts[40];
    timestamp(ts, sizeof ts);
    if (log_format == LOG_JSON) {
        emit_json(level, json_pack("{s:s, s:s, s:s, s:s}", "ts", ts, "level", level_names[level],
                                   "component", component, "msg", msg));
        return;
    }
    char line[1200];
    snprintf(line, sizeof line, "%s %-5s %s: %s\n", ts, level_names[level], component, msg);
    emit(level, line);
}

void log_request(const char *client, const char *method, const char *path, const char *route,
                 int status, double duration_ms)
{
    if (LOG_INFO < log_min)
        return;
    /* The method and the path are client input, cut to a bounded line; control characters
     * would forge log lines, and bytes that are not UTF-8 would lose the line in JSON. */
    char safe[301], verb[17];
    text_clean_line(path, safe, sizeof safe);
    text_clean_line(method, verb, sizeof verb);
    char ts[40];
    timestamp(ts, sizeof ts);
    if (log_format == LOG_JSON) {
        emit_json(LOG_INFO,
                  json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f}", "ts", ts, "level",
                            "info", "component", "http", "client", client, "method", verb, "path",
                            safe, "route", route, "status", status, "duration_ms", duration_ms));
        return;
    }
    /* "<ts> info  http: <client> <method> <path> <status> <ms, to the microsecond>ms" */
    char buf[1200];
    struct line l = {buf, 0, sizeof buf};
    unsigned long long us = duration_ms > 0 ? (unsigned long long)(duration_ms * 1000 + 0.5) : 0;
    put_str(&l, ts);
    put_str(&l, " info  http: ");
    put_str(&l, *client ? client : "-");
    put(&l, " ", 1);
    put_str(&l, verb);
    put(&l, " ", 1);
    put_str(&l, safe);
    put(&l, " ", 1);
    if (status < 0) {
        put(&l, "-", 1);
        status = -status;
    }
    put_uint(&l, (unsigned long long)status, 1);
    put(&l, " ", 1);
    put_uint(&l, us / 1000, 1);
    put(&l, ".", 1);
    put_uint(&l, us % 1000, 3);
    put(&l, "ms\n", 3);
    emit(LOG_INFO, buf);
}
