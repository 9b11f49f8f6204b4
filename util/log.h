/* Logging: one line per event on stderr, as text or JSON. Thread-safe. */
#ifndef M44_UTIL_LOG_H
#define M44_UTIL_LOG_H

#include <stdbool.h>

enum log_format { LOG_TEXT, LOG_JSON };
enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Sets the output format for every later line. Call once at start. */
void log_set_format(enum log_format format);

/* Silences lines below `level` (used by tests to keep output short). */
void log_set_level(enum log_level level);

/* A free-form line: "component: message". */
void log_msg(enum log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The one line written for every HTTP request. */
void log_request(const char *client, const char *method, const char *path, const char *route,
                 int status, double duration_ms);

/* Looks whether stderr is the journal's stream (JOURNAL_STREAM, set by systemd): if so, every
 * later line starts with its syslog priority ("<6>" info, "<4>" warning, "<3>" error), which
 * the journal keeps as the line's priority. Call after stderr is what it will stay. */
void log_detect_journal(void);

/* Starts the thread that writes the lines below a warning, many with one write(2), so that the
 * thread that logs never waits for stderr. Warnings and errors are still written at once, after
 * every line before them. Without it (or after log_stop) every line is written by its caller.
 * false: the thread could not start (lines are then written by their callers). */
bool log_start(void);

/* Writes every line still waiting and stops the thread. */
void log_stop(void);

/* How many times lines went to stderr, by the thread or by a caller (a test's evidence that
 * lines were gathered: many lines to a write). */
unsigned long log_writes(void);

#endif
