/* m44d: the Memoir '44 campaign daemon. */
#include "api/server.h"
#include "api/cache.h"
#include "api/clients.h"
#include "api/metrics.h"
#include "api/views.h"
#include "campaign/grand_rulesets.h"
#include "campaign/rulesets.h"
#include "campaign/state_cache.h"
#include "cmd/m44d/config.h"
#include "db/db.h"
#include "db/replica.h"
#include "db/migrate.h"
#include "util/log.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sodium.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef M44_VERSION
#define M44_VERSION "dev"
#endif

/*
 * Signals go through the main loop: they are blocked in every thread and taken here with
 * sigtimedwait. The first SIGTERM/SIGINT drains; a second one exits at once.
 */
static int drain_and_stop(const sigset_t *sigs, long timeout_s)
{
    log_msg(LOG_INFO, "main",
            "stopping: no new connections; waiting up to %ld s for %ld "
            "request(s) in flight",
            timeout_s, metrics_inflight());
    http_quiesce();
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (metrics_inflight() <= 0)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= timeout_s) {
            log_msg(LOG_WARN, "main", "%ld request(s) still in flight after %ld s; closing them",
                    metrics_inflight(), timeout_s);
            break;
        }
        struct timespec tick = {0, 50 * 1000 * 1000};
        int sig = sigtimedwait(sigs, NULL, &tick);
        if (sig > 0) {
            log_msg(LOG_WARN, "main", "second signal (%s): exiting now", strsignal(sig));
            _exit(1);
        }
    }
    http_stop();
    return 0;
}

/* Each connection is a file: the soft limit (often 1024) is raised to the hard one, so that
 * --max-connections can be reached; said when it still cannot. */
static void open_files_for(unsigned max_connections)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    rlim_t need = (rlim_t)max_connections + 128; /* database connections, logs, listeners */
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
        log_msg(LOG_WARN, "main",
                "open files are limited to %llu, fewer than --max-connections %u needs (%llu): "
                "raise the limit (LimitNOFILE= in the unit, ulimit -n)",
                (unsigned long long)rl.rlim_cur, max_connections, (unsigned long long)need);
}

int main(int argc, char **argv)
{
    struct config cfg;
    char err[512];
    if (config_parse(&cfg, argc, argv, getenv, err, sizeof err) != CONFIG_OK) {
        fprintf(stderr, "m44d: %s\n", err);
        return 2;
    }
    if (cfg.help) {
        config_usage(stdout);
        return 0;
    }
    if (cfg.version) {
        printf("m44d %s\n", M44_VERSION);
        return 0;
    }
    if (cfg.config_markdown) {
        config_markdown(stdout);
        return 0;
    }
    if (!cfg.database[0]) {
        fprintf(stderr, "m44d: --database: no database given (set --database or DATABASE_URL)\n");
        return 2;
    }
    if (!clients_set_trusted(cfg.trust_proxy, err, sizeof err)) {
        fprintf(stderr, "m44d: --trust-proxy: %s\n", err);
        return 2;
    }
    log_set_format(strcmp(cfg.log_format, "json") == 0 ? LOG_JSON : LOG_TEXT);
    log_detect_journal();
    if (sodium_init() < 0) {
        fprintf(stderr, "m44d: libsodium failed to initialise\n");
        return 1;
    }
    /* A broken ruleset file is a configuration error: refuse to start, naming it. */
    if (rulesets_init(cfg.rulesets_dir, err, sizeof err) ||
        grand_rulesets_init(cfg.rulesets_dir, err, sizeof err)) {
        fprintf(stderr, "m44d: --rulesets-dir: %s\n", err);
        rulesets_shutdown();
        return 2;
    }
    log_msg(LOG_INFO, "main", "%d rulesets and %d grand rulesets loaded%s%s", rulesets()->n,
            grand_rulesets_count(), cfg.rulesets_dir[0] ? " including " : "", cfg.rulesets_dir);

    /*
     * Block the signals before any thread starts, so only the main loop receives them. A
     * parent shell may have set them to "ignore" (background jobs): restore the default first,
     * or they would be discarded instead of queued.
     */
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    log_start(); /* after the signals are blocked: its thread must not take them */

    /* Before any thread that uses libcurl (the chat posts with it); the log's thread does not. */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    db_init(cfg.database);
    db_init_standby(cfg.read_database);
    int status = 1;
    if (!db_wait_ready((int)cfg.db_wait) || db_migrate(db_thread()) < 0)
        goto out;
    if (cfg.migrate) {
        status = 0;
        goto out;
    }
    uint8_t tag_secret[32];
    if (!db_key_tag_secret(db_thread(), tag_secret))
        goto out;
    key_tags_secret(tag_secret);
    sodium_memzero(tag_secret, sizeof tag_secret);
    if (!replica_start((unsigned)cfg.read_max_lag_ms))
        goto out;
    struct http_options opts = {
        .host = cfg.listen_host,
        .port = cfg.listen_port,
        .threads = (unsigned)cfg.threads,
        .http_threads = (unsigned)cfg.http_threads,
        .max_body = (size_t)cfg.max_body,
        .timeout = (unsigned)cfg.timeout,
        .max_connections = (unsigned)cfg.max_connections,
        .per_ip_limit = (unsigned)cfg.per_ip_limit,
        .head_timeout = (unsigned)cfg.head_timeout,
        .rate_read = cfg.rate_read,
        .burst_read = cfg.burst_read,
        .rate_write = cfg.rate_write,
        .burst_write = cfg.burst_write,
        .rate_create = cfg.rate_create,
        .burst_create = cfg.burst_create,
        .rate_create_site = cfg.rate_create_site,
        .burst_create_site = cfg.burst_create_site,
        .max_parked = (unsigned)cfg.max_parked,
        .parked_per_client = (unsigned)cfg.parked_per_client,
        .heavy_workers = (unsigned)cfg.heavy_workers,
        .heavy_queue = (unsigned)cfg.heavy_queue,
        .conn_memory = (size_t)cfg.conn_memory,
        .max_wait = (unsigned)cfg.max_wait,
        .version_poll_ms = (unsigned)cfg.version_poll_ms,
        .version_max_lag_ms = (unsigned)cfg.version_max_lag_ms,
        .version_changes_keep_s = (unsigned)cfg.version_changes_keep_s,
        .idempotency_ttl = (unsigned)cfg.idempotency_ttl,
        .check_state = strcmp(cfg.check_state, "on") == 0,
        .chat = {.workers = (unsigned)cfg.chat_workers,
                 .timeout = (unsigned)cfg.chat_timeout,
                 .attempts = (unsigned)cfg.chat_attempts,
                 .retry_max = (unsigned)cfg.chat_retry_max,
                 .allow_private = strcmp(cfg.chat_private, "allow") == 0},
    };
    cache_init(cfg.cache_entries);
    state_cache_init(cfg.state_entries);
    open_files_for(opts.max_connections);
    if (!http_start(&opts))
        goto out;
    log_msg(LOG_INFO, "main", "m44d %s ready", M44_VERSION);
    for (;;) {
        int sig = sigwaitinfo(&sigs, NULL);
        if (sig > 0) {
            log_msg(LOG_INFO, "main", "received %s", strsignal(sig));
            drain_and_stop(&sigs, cfg.shutdown_timeout);
            status = 0;
            break;
        }
    }
out:
    replica_stop();
    db_shutdown();
    grand_rulesets_shutdown();
    rulesets_shutdown();
    cache_shutdown();
    state_cache_shutdown();
    curl_global_cleanup();
    if (status == 0)
        log_msg(LOG_INFO, "main", "stopped");
    log_stop();
    return status;
}
