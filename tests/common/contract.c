#include "tests/common/contract.h"

#include "tests/common/testkit.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t validator;
static char check_url[64];
static pthread_t main_thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *pending;                     /* mismatches seen on other threads, one per line */
static long checked, mismatches, outside; /* outside: mismatches seen outside any test */

bool contract_start(void)
{
    char script[1024], doc[1024];
    snprintf(script, sizeof script, "%s/tests/contract/validate.mjs", tk_env("M44_ROOT"));
    snprintf(doc, sizeof doc, "%s/api/openapi.json", tk_env("M44_ROOT"));
    int out[2];
    if (pipe(out) != 0)
        return false;
    validator = fork();
    if (validator == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a crashed test program leaves no server behind */
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        execlp("node", "node", script, doc, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    FILE *f = fdopen(out[0], "r");
    char line[128] = "";
    int port = 0;
    if (!f || !fgets(line, sizeof line, f) || sscanf(line, "listening %d", &port) != 1) {
        fprintf(stderr, "the contract validator (node %s) did not start: %s\n", script, line);
        if (f)
            fclose(f);
        contract_stop();
        return false;
    }
    fclose(f);
    snprintf(check_url, sizeof check_url, "http://127.0.0.1:%d/check", port);
    main_thread = pthread_self();
    return true;
}

void contract_stop(void)
{
    if (validator > 0) {
        kill(validator, SIGTERM);
        waitpid(validator, NULL, 0);
    }
    validator = 0;
    check_url[0] = '\0';
}

struct sink {
    char buf[8192];
    size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
    struct sink *s = arg;
    size_t k = size * n;
    if (s->len + k < sizeof s->buf) {
        memcpy(s->buf + s->len, p, k);
        s->len += k;
        s->buf[s->len] = '\0';
    }
    return k;
}

static void report(const char *what)
{
    if (pthread_equal(pthread_self(), main_thread) && !CU_get_current_test()) {
        fprintf(stderr, "\ncontract (outside any test): %s\n", what);
        __atomic_add_fetch(&outside, 1, __ATOMIC_RELAXED);
        return;
    }
    if (pthread_equal(pthread_self(), main_thread)) {
        CU_assertImplementation(CU_FALSE, 0, what, "api/openapi.json", "", CU_FALSE);
        fprintf(stderr, "\ncontract: %s\n", what);
        return;
    }
    pthread_mutex_lock(&lock);
    size_t have = pending ? strlen(pending) : 0;
    char *p = realloc(pending, have + strlen(what) + 2);
    if (p) {
        sprintf(p + have, "%s\n", what);
        pending = p;
    }
    pthread_mutex_unlock(&lock);
}

void contract_check(const char *method, const char *url, long status, const char *content_type,
                    const char *body, size_t len)
{
    if (!check_url[0] || status == 0)
        return;
    const char *path = strstr(url, "://");
    path = path ? strchr(path + 3, '/') : NULL;
    json_t *req =
        json_pack("{s:s, s:s, s:i, s:s, s:s%}", "method", method, "path", path ? path : "/",
                  "status", (int)status, "content_type", content_type ? content_type : "", "body",
                  body ? body : "", body ? len : (size_t)0);
    char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    struct sink s = {.len = 0};
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, check_url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, text ? text : "{}");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(text);
    __atomic_add_fetch(&checked, 1, __ATOMIC_RELAXED);
    json_t *ans = rc == CURLE_OK ? json_loads(s.buf, 0, NULL) : NULL;
    if (json_is_true(json_object_get(ans, "ok"))) {
        json_decref(ans);
        return;
    }
    __atomic_add_fetch(&mismatches, 1, __ATOMIC_RELAXED);
    char what[2048];
    if (!ans) {
        snprintf(what, sizeof what, "the contract validator did not answer for %s %s", method,
                 path ? path : url);
    } else {
        size_t o = 0;
        json_t *e;
        size_t i;
        what[0] = '\0';
        json_array_foreach(json_object_get(ans, "errors"), i, e) o +=
            (size_t)snprintf(what + o, o < sizeof what ? sizeof what - o : 0, "%s%s", i ? "; " : "",
                             json_string_value(e));
    }
    json_decref(ans);
    report(what);
}

long contract_outside(void)
{
    return __atomic_load_n(&outside, __ATOMIC_RELAXED);
}

void contract_flush(void)
{
    pthread_mutex_lock(&lock);
    char *p = pending;
    pending = NULL;
    pthread_mutex_unlock(&lock);
    for (char *line = p, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        CU_assertImplementation(CU_FALSE, 0, line, "api/openapi.json", "", CU_FALSE);
        fprintf(stderr, "\ncontract (another thread): %s\n", line);
    }
    free(p);
}

long contract_checked(void)
{
    return __atomic_load_n(&checked, __ATOMIC_RELAXED);
}

long contract_mismatches(void)
{
    return __atomic_load_n(&mismatches, __ATOMIC_RELAXED);
}
