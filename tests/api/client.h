/* Campaign-level helpers for API tests: create, act with a role's key, read. */
#ifndef M44_TEST_CLIENT_H
#define M44_TEST_CLIENT_H

#include "tests/common/daemon.h"
#include "tests/common/http.h"

#include <stdbool.h>
#include <stdint.h>

enum who { ORGANIZER = 0, ALLIES = 1, AXIS = 2, ANYONE = 3 };

struct camp {
    char id[40];
    char key[3][64]; /* organizer, allies, axis */
    char commitment[70];
};

/* A request to `path` (absolute, e.g. "/api/v1/rulesets") with `who`'s key and extra headers. */
struct http_resp *api(const struct daemon *d, const char *method, const char *path,
                      const struct camp *c, enum who who, const char *body,
                      const char *const *headers);

/* POST /api/v1/campaigns with `body`; fills c. Fails the test (and returns false) on non-201. */
bool camp_create(const struct daemon *d, const char *body, struct camp *c);

/* POST /api/v1/campaigns/{id}<suffix> as `who`. */
struct http_resp *camp_post(const struct daemon *d, const struct camp *c, enum who who,
                            const char *suffix, const char *body);

/* GET /api/v1/campaigns/{id}<suffix>. */
struct http_resp *camp_get(const struct daemon *d, const struct camp *c, const char *suffix);

/* The campaign's version (GET), or -1. */
long long camp_version(const struct daemon *d, const struct camp *c);

/* Asserts the reply's status (printing `what` and the body when it is not), and frees it. */
void expect_status(struct http_resp *r, long status, const char *what);

/* Seconds on the monotonic clock. */
double mono_seconds(void);

/* A long poll on a campaign's standing, for a thread of its own (long_poll_thread):
 * GET /api/v1/campaigns/{id}?wait=<wait> with the header `inm` ("If-None-Match: ..."); what
 * came back, how long it took, and when it was answered (mono_seconds). */
struct poll_arg {
    const struct daemon *d;
    const struct camp *c;
    char inm[80];
    int wait;
    bool capitals; /* spell the id in capitals, as a path may */
    long status;
    long long version; /* the new version on a 200, else -1 */
    double seconds, done_at;
};
void *long_poll_thread(void *arg);

/* The daemon's metric of long polls woken for `cause` ("write", "heard", "other_daemon"). */
#define WAKES_BY(cause) "m44d_long_poll_wakes_total{cause=\"" cause "\"}"

/* A second m44d on a database of its own (named after `prefix`), for a suite's set-up: 0 when
 * it runs; and its tear-down: 0 when it stopped cleanly. */
int other_daemon_start(struct daemon *d, char **db, const char *prefix);
int other_daemon_stop(struct daemon *d, char **db);
/* Campaign c exported from the suites' daemon and imported into `to` (asserted: 201). */
void camp_copy_to(const struct daemon *to, const struct camp *c);

/* Asserts a problem+json reply with this status and code. */
void assert_problem(const struct http_resp *r, long status, const char *code);

/* Serialises json (reference kept) into a static-lifetime string the caller frees. */
char *jstr(json_t *j);

/* The shared daemon and database of the API suites (started once in main.c). */
extern struct daemon api_daemon;
extern char *api_conninfo;

/* One SQL value as a number (on a fresh connection to the shared test database, or to the
 * database `conninfo`), or -1. */
long sql_long(const char *sql);
long sql_long_on(const char *conninfo, const char *sql);
/* Runs one SQL statement on a fresh connection to `conninfo`; false (printed) when it fails. */
bool sql_exec_on(const char *conninfo, const char *sql);

/* RULES.md 1.2, written again here from the text, independent of rules/dice.c: the faces of
 * roll n (as names) from a server seed. */
void derive_faces(const uint8_t seed[32], const char *cid, long n, const char *cs, int count,
                  const char **out);

/* Runs `m44 verify` on the export `json_text`: its exit status, and its output in *out (static,
 * valid until the next call). */
int m44_verify(const char *json_text, char **out);

#endif
