/*
 * m44d configuration: one declarative table (flag, environment variable, default, help).
 * Precedence: command-line flag, then environment variable, then default.
 */
#ifndef M44_CONFIG_H
#define M44_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct config {
    char listen_host[64];
    unsigned listen_port;
    char database[1024];
    char read_database[1024]; /* a hot standby to read from (db/replica.h) */
    long read_max_lag_ms;     /* how far behind it may be and still be read */
    long threads;
    long http_threads;
    long max_body;
    char log_format[8]; /* "text" or "json" */
    long timeout;       /* seconds an idle connection may stay open */
    long max_connections;
    long per_ip_limit;
    char trust_proxy[1024]; /* proxies whose X-Forwarded-For names the client */
    long head_timeout;      /* seconds for a whole request head */
    long rate_read, burst_read, rate_write, burst_write, rate_create, burst_create,
        rate_create_site, burst_create_site;
    long max_parked, parked_per_client; /* long polls waiting at once */
    long heavy_workers, heavy_queue;    /* exports and imports */
    long conn_memory;                   /* bytes of libmicrohttpd memory per connection */
    long db_wait;                       /* seconds to wait for the database at start */
    long shutdown_timeout;
    long max_wait;               /* longest long-poll a client may ask for, seconds */
    long version_poll_ms;        /* long polls: how often other daemons' changes are looked for */
    long version_max_lag_ms;     /* versions heard (db/listener.h) are current within this */
    long version_changes_keep_s; /* how long the database keeps the changes (db/listener.h) */
    long idempotency_ttl;        /* seconds a stored response for an Idempotency-Key is kept */
    long cache_entries;          /* rendered standings kept in memory */
    long state_entries;          /* campaigns kept in memory (written or read last) */
    char check_state[4]; /* "on": writes and reads compare the campaign in memory with the stored */
    long chat_workers;   /* the group's chat: threads delivering at once */
    long chat_timeout;   /* seconds for one delivery attempt */
    long chat_attempts;  /* attempts before a message is given up */
    long chat_retry_max; /* longest wait between attempts, seconds */
    char chat_private[8]; /* "deny" or "allow": deliver to private addresses */
    char rulesets_dir[1024];
    bool migrate;
    bool help;
    bool version;
    bool config_markdown;
};

/* Outcome of config_parse. On CONFIG_ERROR, `err` names the option and why. */
enum config_status { CONFIG_OK, CONFIG_ERROR };

/*
 * Fills `cfg` from argv (argv[0] skipped) and `getenv_fn` (pass getenv; tests pass a function that
 * reads a fixed list). Never exits. `err` receives a message naming the bad option.
 */
enum config_status config_parse(struct config *cfg, int argc, char **argv,
                                char *(*getenv_fn)(const char *), char *err, size_t errlen);

/* Writes the --help text. */
void config_usage(FILE *out);

/* Writes the configuration table as Markdown (the README's table is checked against it). */
void config_markdown(FILE *out);

#endif
