#include "cmd/m44d/config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum opt_type { OPT_STRING, OPT_INT, OPT_SIZE, OPT_ENUM, OPT_LISTEN, OPT_FLAG };

struct option_spec {
    const char *flag; /* without the leading "--" */
    const char *env;  /* NULL when the option has no variable */
    enum opt_type type;
    const char *def;     /* parsed like user input, so defaults obey the same rules */
    long min, max;       /* OPT_INT and OPT_SIZE */
    const char *choices; /* OPT_ENUM: "a|b" */
    size_t offset;
    size_t size; /* OPT_STRING / OPT_ENUM destination size */
    const char *help;
};

#define FIELD(f) offsetof(struct config, f), sizeof(((struct config *)0)->f)

static const struct option_spec options[] = {
    {"listen", "M44_LISTEN", OPT_LISTEN, "127.0.0.1:8044", 0, 0, NULL, FIELD(listen_host),
     "address and port to serve HTTP on (HOST:PORT)"},
    {"database", "DATABASE_URL", OPT_STRING, "", 0, 0, NULL, FIELD(database),
     "PostgreSQL connection string or URI (required)"},
    {"read-database", "M44_READ_DATABASE_URL", OPT_STRING, "", 0, 0, NULL, FIELD(read_database),
     "a hot standby of --database to read from (connection string or URI; empty: none): "
     "standings, lists, roll logs and exports are read there while it is at most "
     "--read-max-lag-ms behind, and on the primary when a read must show a newer version"},
    {"read-max-lag-ms", "M44_READ_MAX_LAG_MS", OPT_INT, "1000", 1, 600000, NULL,
     FIELD(read_max_lag_ms),
     "how far behind the primary, in milliseconds, --read-database may be and still be read"},
    {"threads", "M44_THREADS", OPT_INT, "4", 1, 256, NULL, FIELD(threads),
     "database workers, each with its own PostgreSQL connection"},
    {"http-threads", "M44_HTTP_THREADS", OPT_INT, "2", 1, 64, NULL, FIELD(http_threads),
     "HTTP threads (libmicrohttpd thread pool); they never wait on the database"},
    {"max-body", "M44_MAX_BODY", OPT_SIZE, "1M", 1024, 64L << 20, NULL, FIELD(max_body),
     "largest request body accepted; larger gets 413 (suffix k or M)"},
    {"log-format", "M44_LOG_FORMAT", OPT_ENUM, "text", 0, 0, "text|json", FIELD(log_format),
     "log line format: text or json"},
    {"timeout", "M44_TIMEOUT", OPT_INT, "30", 1, 3600, NULL, FIELD(timeout),
     "seconds before an idle or stalled connection is closed"},
    {"max-connections", "M44_MAX_CONNECTIONS", OPT_INT, "12000", 1, 100000, NULL,
     FIELD(max_connections), "most connections open at once"},
    {"per-ip-limit", "M44_PER_IP_LIMIT", OPT_INT, "1024", 1, 100000, NULL, FIELD(per_ip_limit),
     "most connections open at once from one address (an IPv6 /64; a --trust-proxy proxy "
     "excepted)"},
    {"trust-proxy", "M44_TRUST_PROXY", OPT_STRING, "", 0, 0, NULL, FIELD(trust_proxy),
     "comma-separated addresses or ADDR/PREFIX ranges of reverse proxies: only from these is "
     "X-Forwarded-For believed (the client is its last address that is not one of them)"},
    {"head-timeout", "M44_HEAD_TIMEOUT", OPT_INT, "10", 1, 3600, NULL, FIELD(head_timeout),
     "seconds a client has to send a whole request head (an idle kept-alive connection is "
     "closed after the same)"},
    {"rate-read", "M44_RATE_READ", OPT_INT, "1200", 0, 10000000, NULL, FIELD(rate_read),
     "API reads one client may make per minute (0: no limit); more get 429"},
    {"burst-read", "M44_BURST_READ", OPT_INT, "200", 1, 10000000, NULL, FIELD(burst_read),
     "API reads one client may make at once before --rate-read applies"},
    {"rate-write", "M44_RATE_WRITE", OPT_INT, "300", 0, 10000000, NULL, FIELD(rate_write),
     "API writes (rolls, choices, results...) one client may make per minute (0: no limit)"},
    {"burst-write", "M44_BURST_WRITE", OPT_INT, "60", 1, 10000000, NULL, FIELD(burst_write),
     "API writes one client may make at once before --rate-write applies"},
    {"rate-create", "M44_RATE_CREATE", OPT_INT, "2", 0, 10000000, NULL, FIELD(rate_create),
     "creations, imports and exports one client may make per minute (0: no limit)"},
    {"burst-create", "M44_BURST_CREATE", OPT_INT, "20", 1, 10000000, NULL, FIELD(burst_create),
     "creations, imports and exports one client may make at once before --rate-create applies"},
    {"rate-create-site", "M44_RATE_CREATE_SITE", OPT_INT, "16", 0, 10000000, NULL,
     FIELD(rate_create_site),
     "creations, imports and exports all clients of one IPv6 /48 may make per minute together "
     "(0: no limit)"},
    {"burst-create-site", "M44_BURST_CREATE_SITE", OPT_INT, "80", 1, 10000000, NULL,
     FIELD(burst_create_site),
     "creations, imports and exports all clients of one IPv6 /48 may make at once before "
     "--rate-create-site applies"},
    {"max-parked", "M44_MAX_PARKED", OPT_INT, "10000", 1, 1000000, NULL, FIELD(max_parked),
     "long polls (?wait=) waiting at once; more get 429 at once"},
    {"parked-per-client", "M44_PARKED_PER_CLIENT", OPT_INT, "512", 1, 1000000, NULL,
     FIELD(parked_per_client), "long polls one client may have waiting at once; more get 429"},
    {"heavy-workers", "M44_HEAVY_WORKERS", OPT_INT, "1", 1, 64, NULL, FIELD(heavy_workers),
     "database workers for exports and imports (apart from --threads, so these never hold up "
     "play)"},
    {"heavy-queue", "M44_HEAVY_QUEUE", OPT_INT, "8", 1, 100000, NULL, FIELD(heavy_queue),
     "exports and imports that may wait for a --heavy-workers worker; more get 503 at once"},
    {"conn-memory", "M44_CONN_MEMORY", OPT_SIZE, "6k", 4096, 16L << 20, NULL, FIELD(conn_memory),
     "memory per connection for its request head and buffers (suffix k or M): every open "
     "connection holds all of it, so it bounds the memory of many viewers; 6k takes request "
     "heads of about 5 KB, five times what a browser sends"},
    {"db-wait", "M44_DB_WAIT", OPT_INT, "30", 0, 3600, NULL, FIELD(db_wait),
     "seconds to keep retrying the database at start"},
    {"shutdown-timeout", "M44_SHUTDOWN_TIMEOUT", OPT_INT, "10", 0, 3600, NULL,
     FIELD(shutdown_timeout), "seconds requests in flight get to finish on SIGTERM"},
    {"max-wait", "M44_MAX_WAIT", OPT_INT, "30", 0, 300, NULL, FIELD(max_wait),
     "longest long-poll (?wait=) a client may ask for, in seconds"},
    {"version-poll-ms", "M44_VERSION_POLL_MS", OPT_INT, "400", 0, 60000, NULL,
     FIELD(version_poll_ms),
     "how often long polls look for changes made through other m44d processes on the same "
     "database when the changes the database records are not seen (the listener is down or "
     "lags), in milliseconds (0: never)"},
    {"version-max-lag-ms", "M44_VERSION_MAX_LAG_MS", OPT_INT, "1000", 0, 60000, NULL,
     FIELD(version_max_lag_ms),
     "versions seen in the database's record of changes answer 304s, cached GETs and long "
     "polls without asking it while every change up to this many milliseconds ago has been "
     "seen; else they are read (0: always read)"},
    {"version-changes-keep-s", "M44_VERSION_CHANGES_KEEP_S", OPT_INT, "60", 2, 3600, NULL,
     FIELD(version_changes_keep_s),
     "how long each change of a version stays in the database for the daemons to read, in "
     "seconds; a daemon that has not read them for longer forgets the versions it knew"},
    {"idempotency-ttl", "M44_IDEMPOTENCY_TTL", OPT_INT, "86400", 1, 30L * 86400, NULL,
     FIELD(idempotency_ttl),
     "seconds a response is kept for a repeat with the same Idempotency-Key (then deleted)"},
    {"cache-entries", "M44_CACHE_ENTRIES", OPT_INT, "4096", 0, 1000000, NULL, FIELD(cache_entries),
     "rendered campaign standings kept in memory, a few KiB each (0: none)"},
    {"state-entries", "M44_STATE_ENTRIES", OPT_INT, "1024", 0, 1000000, NULL, FIELD(state_entries),
     "campaigns kept in memory (those written or read last), so that a write need not load its "
     "campaign, nor a read load it again: about 2 KiB and 1 KiB a battle each (0: none, every "
     "write and read loads it)"},
    {"check-state", "M44_CHECK_STATE", OPT_ENUM, "off", 0, 0, "off|on", FIELD(check_state),
     "on: every write that keeps its campaign in memory reads it back before it commits, and "
     "every read that takes it from memory loads it too, and fails if the two differ (for tests; "
     "it costs a load per write and per such read)"},
    {"chat-workers", "M44_CHAT_WORKERS", OPT_INT, "4", 1, 32, NULL, FIELD(chat_workers),
     "threads posting to groups' chats at once, each with its own PostgreSQL connection"},
    {"chat-timeout", "M44_CHAT_TIMEOUT", OPT_INT, "10", 1, 120, NULL, FIELD(chat_timeout),
     "seconds one attempt to post to a group's chat may take"},
    {"chat-attempts", "M44_CHAT_ATTEMPTS", OPT_INT, "12", 1, 1000, NULL, FIELD(chat_attempts),
     "attempts to post a chat message before it is given up (and shown as failed)"},
    {"chat-retry-max", "M44_CHAT_RETRY_MAX", OPT_INT, "600", 1, 86400, NULL, FIELD(chat_retry_max),
     "longest wait between two attempts to post a chat message, seconds (the wait doubles)"},
    {"chat-private", "M44_CHAT_PRIVATE", OPT_ENUM, "deny", 0, 0, "deny|allow", FIELD(chat_private),
     "allow: post to chats at loopback and private addresses too (a LAN; never on a public "
     "instance, where anyone may set a chat link)"},
    {"rulesets-dir", "M44_RULESETS_DIR", OPT_STRING, "", 0, 0, NULL, FIELD(rulesets_dir),
     "extra directory of ruleset JSON files (added to, or replacing, the built-in ones)"},
    {"migrate", NULL, OPT_FLAG, NULL, 0, 0, NULL, FIELD(migrate),
     "apply pending database migrations and exit"},
    {"help", NULL, OPT_FLAG, NULL, 0, 0, NULL, FIELD(help), "show this help and exit"},
    {"version", NULL, OPT_FLAG, NULL, 0, 0, NULL, FIELD(version), "show the version and exit"},
    {"config-markdown", NULL, OPT_FLAG, NULL, 0, 0, NULL, FIELD(config_markdown),
     "print the configuration table as Markdown and exit"},
};

#define NOPTIONS (sizeof options / sizeof options[0])

static const struct option_spec *find_option(const char *flag, size_t len)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (strlen(options[i].flag) == len && strncmp(options[i].flag, flag, len) == 0)
            return &options[i];
    return NULL;
}

static int parse_long(const char *s, long *out, bool allow_suffix)
{
    if (!*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || end == s)
        return -1;
    if (allow_suffix && *end) {
        long mul = (*end == 'k' || *end == 'K')   ? 1024
                   : (*end == 'm' || *end == 'M') ? 1L << 20
                                                  : 0;
        if (!mul || end[1] || v > LONG_MAX / mul)
            return -1;
        v *= mul;
        end++;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* Applies one value to its option; on failure writes a message naming the option. */
static int apply(struct config *cfg, const struct option_spec *o, const char *value,
                 const char *source, char *err, size_t errlen)
{
    char *dst = (char *)cfg + o->offset;
    long v;
    switch (o->type) {
    case OPT_FLAG:
        *(bool *)dst = true;
        return 0;
    case OPT_STRING:
        if (strlen(value) >= o->size) {
            snprintf(err, errlen, "%s: value is too long (at most %zu bytes)", source, o->size - 1);
            return -1;
        }
        strcpy(dst, value);
        return 0;
    case OPT_ENUM: {
        size_t len = strlen(value);
        const char *c = o->choices;
        while (c && *c) {
            const char *bar = strchr(c, '|');
            size_t clen = bar ? (size_t)(bar - c) : strlen(c);
            if (clen == len && strncmp(c, value, len) == 0 && len < o->size) {
                strcpy(dst, value);
                return 0;
            }
            c = bar ? bar + 1 : NULL;
        }
        snprintf(err, errlen, "%s: \"%s\" is not one of %s", source, value, o->choices);
        return -1;
    }
    case OPT_INT:
    case OPT_SIZE:
        if (parse_long(value, &v, o->type == OPT_SIZE) || v < o->min || v > o->max) {
            snprintf(err, errlen, "%s: \"%s\" is not a number from %ld to %ld%s", source, value,
                     o->min, o->max, o->type == OPT_SIZE ? " (bytes; suffix k or M allowed)" : "");
            return -1;
        }
        *(long *)dst = v;
        return 0;
    case OPT_LISTEN: {
        const char *colon = strrchr(value, ':');
        long port;
        size_t hostlen = colon ? (size_t)(colon - value) : 0;
        if (!colon || hostlen == 0 || hostlen >= sizeof cfg->listen_host ||
            parse_long(colon + 1, &port, false) || port < 1 || port > 65535) {
            snprintf(err, errlen, "%s: \"%s\" is not HOST:PORT with a port from 1 to 65535", source,
                     value);
            return -1;
        }
        if (hostlen > 2 && value[0] == '[' && value[hostlen - 1] == ']') {
            value++; /* "[::1]:8044": an IPv6 address in brackets */
            hostlen -= 2;
        }
        memcpy(cfg->listen_host, value, hostlen);
        cfg->listen_host[hostlen] = '\0';
        cfg->listen_port = (unsigned)port;
        return 0;
    }
    }
    return -1;
}

enum config_status config_parse(struct config *cfg, int argc, char **argv,
                                char *(*getenv_fn)(const char *), char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    char source[128];
    bool given[NOPTIONS] = {false};

    /* Command line first, so we know which options the environment must not override. */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0) {
            snprintf(err, errlen, "unexpected argument \"%s\" (options start with --)", arg);
            return CONFIG_ERROR;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct option_spec *o = find_option(name, len);
        if (!o) {
            snprintf(err, errlen, "unknown option \"--%.*s\" (see --help)", (int)len, name);
            return CONFIG_ERROR;
        }
        snprintf(source, sizeof source, "--%s", o->flag);
        const char *value = NULL;
        if (o->type == OPT_FLAG) {
            if (eq) {
                snprintf(err, errlen, "%s: takes no value", source);
                return CONFIG_ERROR;
            }
        } else if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            snprintf(err, errlen, "%s: missing value", source);
            return CONFIG_ERROR;
        }
        if (apply(cfg, o, value, source, err, errlen))
            return CONFIG_ERROR;
        given[o - options] = true;
    }
    for (size_t i = 0; i < NOPTIONS; i++) {
        const struct option_spec *o = &options[i];
        if (given[i] || o->type == OPT_FLAG)
            continue;
        const char *env = o->env ? getenv_fn(o->env) : NULL;
        if (env && *env) {
            snprintf(source, sizeof source, "%s (from --%s)", o->env, o->flag);
            if (apply(cfg, o, env, source, err, errlen))
                return CONFIG_ERROR;
        } else {
            snprintf(source, sizeof source, "default of --%s", o->flag);
            if (apply(cfg, o, o->def, source, err, errlen))
                return CONFIG_ERROR;
        }
    }
    return CONFIG_OK;
}

static const char *metavar(const struct option_spec *o)
{
    switch (o->type) {
    case OPT_INT:
        return "N";
    case OPT_SIZE:
        return "BYTES";
    case OPT_ENUM:
        return "FORMAT";
    case OPT_LISTEN:
        return "HOST:PORT";
    case OPT_STRING:
        if (strcmp(o->flag, "database") == 0 || strcmp(o->flag, "read-database") == 0)
            return "URL";
        return strcmp(o->flag, "trust-proxy") == 0 ? "ADDRS" : "PATH";
    case OPT_FLAG:
        break;
    }
    return "";
}

void config_usage(FILE *out)
{
    fprintf(out, "usage: m44d [OPTION]...\n"
                 "Memoir '44 campaign manager: HTTP API and dashboard backed by PostgreSQL.\n\n");
    for (size_t i = 0; i < NOPTIONS; i++) {
        const struct option_spec *o = &options[i];
        char lhs[64];
        snprintf(lhs, sizeof lhs, "--%s%s%s", o->flag, o->type == OPT_FLAG ? "" : " ", metavar(o));
        fprintf(out, "  %-28s %s", lhs, o->help);
        if (o->env)
            fprintf(out, " [env %s", o->env);
        if (o->def && *o->def)
            fprintf(out, "%sdefault %s", o->env ? ", " : " [", o->def);
        if (o->env || (o->def && *o->def))
            fprintf(out, "]");
        fprintf(out, "\n");
    }
    fprintf(out, "\nExit status: 0 on success or clean shutdown, 1 on a runtime failure, "
                 "2 on bad configuration.\n");
}

void config_markdown(FILE *out)
{
    fprintf(out, "| flag | environment | default | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < NOPTIONS; i++) {
        const struct option_spec *o = &options[i];
        fprintf(out, "| `--%s%s%s` | %s%s%s | %s%s%s | %s |\n", o->flag,
                o->type == OPT_FLAG ? "" : " ", metavar(o), o->env ? "`" : "", o->env ? o->env : "",
                o->env ? "`" : "", (o->def && *o->def) ? "`" : "", o->def ? o->def : "",
                (o->def && *o->def) ? "`" : "", o->help);
    }
}
