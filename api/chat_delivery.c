/* The chat's delivery worker (see api/chat_delivery.h). */
#include "api/chat_delivery.h"

#include "campaign/campaign.h"
#include "db/db.h"
#include "db/store.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef M44_VERSION
#define M44_VERSION "dev"
#endif

#define BATCH        8
#define ANSWER_KEEP  300        /* bytes of an answer kept for the organizer's page */
#define ANSWER_LIMIT (64 << 10) /* bytes of an answer read at most */
#define IDLE_MS      500        /* how often the outbox is looked at when nothing woke us */

static struct chat_options opts;
static pthread_t thread;
static bool running;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool stop, woken;
static atomic_uint_fast64_t delivered, failed_attempts, given_up;

uint64_t chat_delivered_total(void)
{
    return atomic_load(&delivered);
}

uint64_t chat_failed_attempts_total(void)
{
    return atomic_load(&failed_attempts);
}

uint64_t chat_given_up_total(void)
{
    return atomic_load(&given_up);
}

void chat_delivery_wake(void)
{
    pthread_mutex_lock(&lock);
    woken = true;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
}

/* ---- addresses ---- */

static bool v4_private(uint32_t a)
{
    const struct {
        uint32_t net, mask;
    } nets[] = {
        {0x00000000, 0xff000000}, /* 0/8: this network */
        {0x0a000000, 0xff000000}, /* 10/8 */
        {0x64400000, 0xffc00000}, /* 100.64/10: shared (carrier-grade NAT) */
        {0x7f000000, 0xff000000}, /* 127/8: loopback */
        {0xa9fe0000, 0xffff0000}, /* 169.254/16: link-local (cloud metadata) */
        {0xac100000, 0xfff00000}, /* 172.16/12 */
        {0xc0000000, 0xffffff00}, /* 192.0.0/24: protocol assignments */
        {0xc0a80000, 0xffff0000}, /* 192.168/16 */
        {0xc6120000, 0xfffe0000}, /* 198.18/15: benchmarking */
        {0xe0000000, 0xe0000000}, /* 224/3: multicast, reserved, broadcast */
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++)
        if ((a & nets[i].mask) == nets[i].net)
            return true;
    return false;
}

bool chat_address_private(const struct sockaddr *a)
{
    if (a->sa_family == AF_INET)
        return v4_private(ntohl(((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr));
    if (a->sa_family != AF_INET6)
        return true;
    const uint8_t *b = ((const struct sockaddr_in6 *)(const void *)a)->sin6_addr.s6_addr;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t zero[15] = {0};
    if (memcmp(b, mapped, 12) == 0)
        return v4_private((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 |
                          b[15]);
    if (memcmp(b, zero, 15) == 0)
        return true;                                  /* :: and ::1 */
    return (b[0] & 0xfe) == 0xfc ||                   /* fc00::/7: unique local */
           (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || /* fe80::/10: link-local */
           b[0] == 0xff;                              /* ff00::/8: multicast */
}

/* ---- one attempt ---- */

struct attempt {
    bool blocked; /* the address was refused */
    char answer[ANSWER_KEEP + 1];
    size_t got;
};

static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *addr)
{
    (void)purpose;
    struct attempt *x = clientp;
    if (!opts.allow_private && chat_address_private(&addr->addr)) {
        x->blocked = true;
        return CURL_SOCKET_BAD;
    }
    return socket(addr->family, addr->socktype, addr->protocol);
}

/* Stopping: an attempt in flight ends now (its lease runs out, and it is sent again later). */
static int on_progress(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)clientp, (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    pthread_mutex_lock(&lock);
    bool quit = stop;
    pthread_mutex_unlock(&lock);
    return quit ? 1 : 0;
}

static size_t on_answer(char *data, size_t size, size_t n, void *userp)
{
    struct attempt *x = userp;
    size_t len = size * n;
    size_t room = x->got < ANSWER_KEEP ? ANSWER_KEEP - x->got : 0;
    memcpy(x->answer + x->got, data, len < room ? len : room);
    x->got += len;
    x->answer[x->got < ANSWER_KEEP ? x->got : ANSWER_KEEP] = '\0';
    return x->got > ANSWER_LIMIT ? 0 : len; /* 0 ends the transfer: enough was read */
}

/* Slack reads &, < and > as markup: escaped, a name cannot mention the channel. */
static void slack_escape(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; *in && o + 6 < len; in++) {
        const char *rep = *in == '&' ? "&amp;" : *in == '<' ? "&lt;" : *in == '>' ? "&gt;" : NULL;
        if (rep) {
            memcpy(out + o, rep, strlen(rep));
            o += strlen(rep);
        } else {
            out[o++] = *in;
        }
    }
    out[o] = '\0';
}

/* The body the chat takes: Discord's and Slack's own, or the message as it is, with its id. */
static char *body_of(const char *id, const char *kind, const char *message)
{
    json_t *m = json_loads(message, 0, NULL);
    if (!m)
        return NULL;
    const char *text = json_string_value(json_object_get(m, "text"));
    const char *campaign =
        json_string_value(json_object_get(json_object_get(m, "campaign"), "name"));
    const char *grand =
        json_string_value(json_object_get(json_object_get(m, "grand_campaign"), "name"));
    char title[600];
    if (grand && campaign)
        snprintf(title, sizeof title, "%s · %s", grand, campaign);
    else
        snprintf(title, sizeof title, "%s", campaign ? campaign : grand ? grand : "m44d");
    char line[1800];
    json_t *body;
    if (strcmp(kind, "discord") == 0) {
        snprintf(line, sizeof line, "**%s**: %s", title, text ? text : "");
        /* No name a player typed may ping anyone. */
        body = json_pack("{s:s, s:s, s:{s:[]}}", "content", line, "username", "m44d",
                         "allowed_mentions", "parse");
    } else if (strcmp(kind, "slack") == 0) {
        char t[700], x[1000];
        slack_escape(title, t, sizeof t);
        slack_escape(text ? text : "", x, sizeof x);
        snprintf(line, sizeof line, "*%s*: %s", t, x);
        body = json_pack("{s:s}", "text", line);
    } else {
        body = json_deep_copy(m);
        json_object_set_new(body, "id", json_integer(atoll(id)));
    }
    json_decref(m);
    char *s = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    return s;
}

enum attempt_end { SENT, RETRY, GIVE_UP };

/* Posts one message; `error` says why it was not sent. */
static enum attempt_end post(CURL *h, const char *id, const char *url, const char *body,
                             char *error, size_t errlen)
{
    struct attempt x = {0};
    char idem[64];
    snprintf(idem, sizeof idem, "Idempotency-Key: m44d-msg-%s", id);
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    headers = curl_slist_append(headers, idem);
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_PROXY, ""); /* straight to the chat, whatever the environment */
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)opts.timeout);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)opts.timeout);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "m44d/" M44_VERSION);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &x);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_answer);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (x.blocked) {
        snprintf(error, errlen,
                 "not sent: the chat link leads to a private or local network address, which "
                 "this server does not post to");
        return GIVE_UP;
    }
    /* A success answered at length is still a success. */
    if ((rc == CURLE_OK || rc == CURLE_WRITE_ERROR) && status >= 200 && status < 300)
        return SENT;
    if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
        snprintf(error, errlen, "the chat could not be reached: %s", curl_easy_strerror(rc));
        return RETRY;
    }
    snprintf(error, errlen, "the chat answered %ld%s%s", status, x.answer[0] ? ": " : "", x.answer);
    /* The chat refuses this message for good (a wrong or deleted link): no use trying again. */
    bool final = status >= 400 && status < 500 && status != 408 && status != 429;
    return final ? GIVE_UP : RETRY;
}

static void deliver(struct db *db, CURL *h, PGresult *r, int i)
{
    const char *id = PQgetvalue(r, i, 0);
    long attempts = atol(PQgetvalue(r, i, 4));
    char *body = body_of(id, PQgetvalue(r, i, 2), PQgetvalue(r, i, 3));
    char error[ANSWER_KEEP + 200] = "the message could not be written";
    enum attempt_end o =
        body ? post(h, id, PQgetvalue(r, i, 1), body, error, sizeof error) : GIVE_UP;
    free(body);
    if (o == SENT) {
        atomic_fetch_add(&delivered, 1);
        db_outbox_delivered(db, id);
        return;
    }
    atomic_fetch_add(&failed_attempts, 1);
    char wait[24];
    long w = attempts < 1 ? 1 : attempts >= 31 ? (long)opts.retry_max : 1L << (attempts - 1);
    snprintf(wait, sizeof wait, "%ld", w < (long)opts.retry_max ? w : (long)opts.retry_max);
    bool give_up = o == GIVE_UP || attempts >= (long)opts.attempts;
    if (give_up)
        atomic_fetch_add(&given_up, 1);
    log_msg(give_up ? LOG_WARN : LOG_INFO, "chat", "message %s, attempt %ld: %s%s", id, attempts,
            error, give_up ? " (given up)" : "");
    db_outbox_retry(db, id, give_up ? NULL : wait, error);
}

static void *run(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-chat");
    struct db *db = db_thread();
    CURL *h = curl_easy_init();
    char batch[16], lease[16];
    snprintf(batch, sizeof batch, "%d", BATCH);
    snprintf(lease, sizeof lease, "%u", opts.timeout * 2 + 5);
    for (;;) {
        pthread_mutex_lock(&lock);
        bool quit = stop;
        pthread_mutex_unlock(&lock);
        if (quit)
            break;
        int n = 0;
        PGresult *r = h && db_ensure(db) ? db_outbox_claim(db, batch, lease) : NULL;
        for (int i = 0; r && i < PQntuples(r); i++, n++)
            deliver(db, h, r, i);
        PQclear(r);
        if (n > 0)
            continue; /* the next of each chat may be due now */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += IDLE_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&lock);
        while (!woken && !stop && pthread_cond_timedwait(&cond, &lock, &until) == 0)
            ;
        woken = false;
        pthread_mutex_unlock(&lock);
    }
    if (h)
        curl_easy_cleanup(h);
    return NULL;
}

bool chat_delivery_start(const struct chat_options *o)
{
    opts = *o;
    stop = woken = false;
    running = pthread_create(&thread, NULL, run, NULL) == 0;
    if (!running)
        log_msg(LOG_ERROR, "chat", "cannot start the chat delivery thread");
    return running;
}

void chat_delivery_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stop = true;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    running = false;
}
