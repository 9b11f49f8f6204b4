/* The chat's delivery worker (see api/chat_delivery.h). */
#include "api/chat_delivery.h"

#include "campaign/campaign.h"
#include "campaign/chat.h"
#include "db/db.h"
#include "db/store.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
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

#define ANSWER_KEEP  300        /* bytes of an answer kept for the log */
#define ANSWER_LIMIT (64 << 10) /* bytes of an answer read at most */
#define IDLE_MS      500        /* how often the outbox is looked at when nothing woke us */

static struct chat_options opts;
static pthread_t threads[CHAT_WORKERS_MAX];
static int nthreads;
static bool running;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool stop;
static unsigned long wakes; /* each worker notes the last it saw */
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
    wakes++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* ---- addresses ---- */

static bool v4_private(uint32_t a)
{
    /* IANA's special-purpose registry (RFC 6890 and since): nothing a chat is at. */
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
        {0xc0000200, 0xffffff00}, /* 192.0.2/24: documentation */
        {0xc0586300, 0xffffff00}, /* 192.88.99/24: 6to4 relays */
        {0xc0a80000, 0xffff0000}, /* 192.168/16 */
        {0xc6120000, 0xfffe0000}, /* 198.18/15: benchmarking */
        {0xc6336400, 0xffffff00}, /* 198.51.100/24: documentation */
        {0xcb007100, 0xffffff00}, /* 203.0.113/24: documentation */
        {0xe0000000, 0xe0000000}, /* 224/3: multicast, reserved, broadcast */
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++)
        if ((a & nets[i].mask) == nets[i].net)
            return true;
    return false;
}

static uint32_t v4_at(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static bool v6_private(const uint8_t *b)
{
    static const uint8_t zero[12] = {0};
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t siit[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    /* An IPv4 address inside IPv6 is judged as the IPv4 address: mapped, compatible (:: and
     * ::1 among them), SIIT, NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, zero, 12) == 0 || memcmp(b, siit, 12) == 0 ||
        memcmp(b, nat64, 12) == 0)
        return v4_private(v4_at(b + 12));
    if (b[0] == 0x20 && b[1] == 0x02)
        return v4_private(v4_at(b + 2));
    return (b[0] & 0xfe) == 0xfc ||           /* fc00::/7: unique local */
           (b[0] == 0xfe && (b[1] & 0x80)) || /* fe80::/10, fec0::/10 */
           b[0] == 0xff ||                    /* ff00::/8: multicast */
           (b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) ||    /* local NAT64 */
           (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) ||       /* Teredo */
           (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) || /* documentation */
           (b[0] == 0x01 && b[1] == 0 && memcmp(b + 2, zero, 6) == 0);       /* 100::/64 discard */
}

bool chat_address_own(const struct sockaddr *a)
{
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0)
        return true; /* cannot tell: refuse */
    bool own = false;
    for (struct ifaddrs *i = list; i && !own; i = i->ifa_next) {
        const struct sockaddr *x = i->ifa_addr;
        if (!x || x->sa_family != a->sa_family)
            continue;
        if (a->sa_family == AF_INET)
            own = ((const struct sockaddr_in *)(const void *)x)->sin_addr.s_addr ==
                  ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr;
        else if (a->sa_family == AF_INET6)
            own = memcmp(&((const struct sockaddr_in6 *)(const void *)x)->sin6_addr,
                         &((const struct sockaddr_in6 *)(const void *)a)->sin6_addr, 16) == 0;
    }
    freeifaddrs(list);
    return own;
}

bool chat_address_private(const struct sockaddr *a)
{
    if (a->sa_family == AF_INET)
        return v4_private(ntohl(((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr));
    if (a->sa_family != AF_INET6)
        return true;
    return v6_private(((const struct sockaddr_in6 *)(const void *)a)->sin6_addr.s6_addr);
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
    if (!opts.allow_private &&
        (chat_address_private(&addr->addr) || chat_address_own(&addr->addr))) {
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
    char line[sizeof title + CHAT_TEXT_MAX + 16];
    json_t *body;
    if (strcmp(kind, "discord") == 0) {
        snprintf(line, sizeof line, "**%s**: %s", title, text ? text : "");
        /* No name a player typed may ping anyone. */
        body = json_pack("{s:s, s:s, s:{s:[]}}", "content", line, "username", "m44d",
                         "allowed_mentions", "parse");
    } else if (strcmp(kind, "slack") == 0) {
        /* Room for every byte escaped (5 bytes for one): never cut inside a character. */
        char t[sizeof title * 5], x[CHAT_TEXT_MAX * 5 + 1], sline[sizeof t + sizeof x + 8];
        slack_escape(title, t, sizeof t);
        slack_escape(text ? text : "", x, sizeof x);
        snprintf(sline, sizeof sline, "*%s*: %s", t, x);
        body = json_pack("{s:s}", "text", sline);
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

/* What a chat's refusal means, in the organizer's words (its status and answer go to the log). */
static const char *answer_words(long status)
{
    if (status == 404 || status == 410)
        return "the chat says this link does not exist (deleted, or mistyped)";
    if (status == 401 || status == 403)
        return "the chat does not let this link post";
    if (status == 429)
        return "the chat asks for fewer messages";
    if (status >= 500)
        return "the chat has a fault of its own";
    if (status >= 400)
        return "the chat refused the message";
    return "the chat did not take the message";
}

/* Why a chat could not be reached, in the organizer's words. */
static const char *reach_words(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
        return "no server has that name (mistyped, or gone)";
    case CURLE_COULDNT_CONNECT:
        return "its server did not let this one connect (down, or closed to it)";
    case CURLE_OPERATION_TIMEDOUT:
        return "its server did not answer in time";
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
        return "its secure connection could not be made";
    default:
        return "the connection failed on the way";
    }
}

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
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)(opts.timeout < 5 ? opts.timeout : 5));
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
    /* The chat's answer is logged: printable ASCII only, so it cannot forge a log line. */
    for (char *c = x.answer; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = (unsigned char)*c >= 0x80 ? '?' : ' ';
    /* A success answered at length is still a success (and one address refused of several a
     * name has does not matter once another one took the message). */
    if ((rc == CURLE_OK || rc == CURLE_WRITE_ERROR) && status >= 200 && status < 300)
        return SENT;
    if (x.blocked) {
        snprintf(error, errlen,
                 "not sent: the chat link leads to a private or local network address, which "
                 "this server does not post to");
        return GIVE_UP;
    }
    if (rc == CURLE_URL_MALFORMAT || rc == CURLE_UNSUPPORTED_PROTOCOL) {
        /* Never a link set today (chat_url_check refuses it), but one kept from an older
         * check: no attempt can ever send it. */
        snprintf(error, errlen, "not sent: the chat link is not a web address this server can use");
        return GIVE_UP;
    }
    if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
        /* Said to the organizer: in words, libcurl's own in the log. */
        log_msg(LOG_INFO, "chat", "message %s: %s", id, curl_easy_strerror(rc));
        snprintf(error, errlen, "the chat could not be reached: %s", reach_words(rc));
        return RETRY;
    }
    log_msg(LOG_INFO, "chat", "message %s: the chat answered %ld%s%s", id, status,
            x.answer[0] ? ": " : "", x.answer);
    snprintf(error, errlen, "%s", answer_words(status));
    /* The chat refuses this message for good (a wrong or deleted link): no use trying again. */
    bool final = status >= 400 && status < 500 && status != 408 && status != 429;
    return final ? GIVE_UP : RETRY;
}

static void deliver(struct db *db, CURL *h, PGresult *r, int i)
{
    const char *id = PQgetvalue(r, i, 0), *attempt = PQgetvalue(r, i, 4);
    long attempts = atol(attempt);
    /* Just before posting: still ours (a sender whose lease ran out does not post), still
     * wanted (the chat may have been removed), and to the link the chat has now. */
    PGresult *now = db_outbox_still(db, id, attempt);
    if (!now || PQntuples(now) != 1) {
        PQclear(now);
        return;
    }
    char *body = body_of(id, PQgetvalue(now, 0, 1), PQgetvalue(r, i, 3));
    char error[ANSWER_KEEP + 200] = "the message could not be written";
    enum attempt_end o =
        body ? post(h, id, PQgetvalue(now, 0, 0), body, error, sizeof error) : GIVE_UP;
    PQclear(now);
    free(body);
    if (o == SENT) {
        atomic_fetch_add(&delivered, 1);
        db_outbox_delivered(db, id, attempt);
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
    db_outbox_retry(db, id, attempt, give_up ? NULL : wait, error);
}

/* One worker: one message at a time, so that its lease (two attempts' time and some) covers
 * the one attempt it makes; other workers, here or in another process, send other chats'. */
static void *run(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-chat");
    struct db *db = db_thread();
    CURL *h = curl_easy_init();
    char lease[16];
    snprintf(lease, sizeof lease, "%u", opts.timeout * 2 + 5);
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        bool quit = stop;
        pthread_mutex_unlock(&lock);
        if (quit)
            break;
        PGresult *r = h && db_ensure(db) ? db_outbox_claim(db, "1", lease) : NULL;
        int n = r ? PQntuples(r) : 0;
        if (n == 1)
            deliver(db, h, r, 0);
        PQclear(r);
        if (n > 0)
            continue; /* the next may be due now */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += IDLE_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&lock);
        while (wakes == seen && !stop && pthread_cond_timedwait(&cond, &lock, &until) == 0)
            ;
        seen = wakes;
        pthread_mutex_unlock(&lock);
    }
    if (h)
        curl_easy_cleanup(h);
    return NULL;
}

bool chat_delivery_start(const struct chat_options *o)
{
    opts = *o;
    stop = false;
    int want = opts.workers < 1                  ? 1
               : opts.workers > CHAT_WORKERS_MAX ? CHAT_WORKERS_MAX
                                                 : (int)opts.workers;
    for (nthreads = 0; nthreads < want; nthreads++)
        if (pthread_create(&threads[nthreads], NULL, run, NULL) != 0)
            break;
    running = nthreads > 0;
    if (nthreads < want)
        log_msg(LOG_ERROR, "chat", "cannot start the chat delivery threads");
    return nthreads == want;
}

void chat_delivery_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stop = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    nthreads = 0;
    running = false;
}
