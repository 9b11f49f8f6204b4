#include "tests/common/daemon.h"

#include "tests/common/http.h"
#include "tests/common/testkit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *daemon_url(const struct daemon *d, const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", d->base, path);
    return buf;
}

bool daemon_start(struct daemon *d, const char *conninfo, const char *const *extra)
{
    return daemon_start_port(d, conninfo, free_port(), extra);
}

bool daemon_start_port(struct daemon *d, const char *conninfo, int port, const char *const *extra)
{
    static int started;
    memset(d, 0, sizeof *d);
    d->port = port;
    snprintf(d->base, sizeof d->base, "http://127.0.0.1:%d", d->port);
    char name[64], logdir[512];
    tk_out_path("logs", logdir, sizeof logdir);
    mkdir(logdir, 0755);
    snprintf(name, sizeof name, "logs/m44d-%d-%d.log", (int)getpid(), ++started);
    tk_out_path(name, d->log, sizeof d->log);

    char bin[512], listen[64];
    snprintf(bin, sizeof bin, "%s/m44d", tk_env("M44_TEST_BIN"));
    snprintf(listen, sizeof listen, "127.0.0.1:%d", d->port);
    const char *argv[64];
    int argc = 0;
    char *wrapper = getenv("M44_TEST_WRAPPER") ? strdup(getenv("M44_TEST_WRAPPER")) : NULL;
    for (char *tok = wrapper ? strtok(wrapper, " ") : NULL; tok && argc < 40;
         tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc++] = bin;
    argv[argc++] = "--database";
    argv[argc++] = conninfo;
    argv[argc++] = "--listen";
    argv[argc++] = listen;
    /* The suites act far faster than people; a test of the limits sets its own (a later
     * option wins). */
    argv[argc++] = "--rate-read=0";
    argv[argc++] = "--rate-write=0";
    argv[argc++] = "--rate-create=0";
    /* Every write the suites make checks that the campaign it keeps in memory is the one
     * stored (campaign/state_cache.h). */
    argv[argc++] = "--check-state=on";
    for (const char *const *e = extra; e && *e && argc < 62; e++)
        argv[argc++] = *e;
    argv[argc] = NULL;

    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a crashed test program leaves no server behind */
        int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    free(wrapper);
    d->pid = pid;
    char url[128];
    daemon_url(d, "/healthz", url, sizeof url);
    /* Valgrind starts slowly; everything else is up in well under a second. */
    for (int i = 0; i < 600; i++) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            d->pid = 0;
            return false;
        }
        struct http_resp *r = http_do("GET", url, NULL, NULL);
        long st = r->status;
        http_free(r);
        if (st == 200)
            return true;
        tk_sleep_ms(100);
    }
    daemon_stop(d, SIGKILL, 5);
    return false;
}

int daemon_stop(struct daemon *d, int sig, int timeout_s)
{
    if (d->pid <= 0)
        return -1;
    kill(d->pid, sig);
    for (int i = 0; i < timeout_s * 20; i++) {
        int status;
        pid_t w = waitpid(d->pid, &status, WNOHANG);
        if (w == d->pid) {
            d->pid = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        tk_sleep_ms(50);
    }
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    d->pid = 0;
    return -1;
}

long daemon_metric(const struct daemon *d, const char *name)
{
    char url[128], key[200];
    struct http_resp *r = http_do("GET", daemon_url(d, "/metrics", url, sizeof url), NULL, NULL);
    long v = -1;
    snprintf(key, sizeof key, "\n%s ", name);
    const char *at = r->body ? strstr(r->body, key) : NULL;
    if (at)
        v = atol(at + strlen(key));
    http_free(r);
    return v;
}

bool daemon_seen_all(const struct daemon *d, int timeout_ms)
{
    /* The look under way may have been sent before the call: the one after it was not. */
    long want = daemon_metric(d, "m44d_version_looks_total") + 2;
    for (int t = 0; t < timeout_ms; t += 10) {
        if (daemon_metric(d, "m44d_version_looks_total") >= want)
            return true;
        tk_sleep_ms(10);
    }
    fprintf(stderr, "m44d_version_looks_total did not reach %ld\n", want);
    return false;
}

bool daemon_metric_becomes(const struct daemon *d, const char *name, long want, int timeout_ms)
{
    for (int t = 0; t < timeout_ms; t += 50) {
        if (daemon_metric(d, name) == want)
            return true;
        tk_sleep_ms(50);
    }
    fprintf(stderr, "%s is %ld, not %ld\n", name, daemon_metric(d, name), want);
    return false;
}
