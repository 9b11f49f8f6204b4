/* A chat that records what it is sent (see receiver.h). */
#include "tests/common/receiver.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_POSTS 512
#define MAX_BODY  (256 << 10)

struct post {
    char *path, *key, *body;
};

struct receiver {
    struct MHD_Daemon *mhd;
    int port;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    enum receiver_mode mode;
    int status, delay_ms;
    bool stopping;
    struct post posts[MAX_POSTS];
    int n;
};

struct upload {
    char *buf;
    size_t len;
    bool too_big;
};

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *data_size, void **state)
{
    (void)version;
    struct receiver *r = cls;
    struct upload *u = *state;
    if (!u) {
        u = calloc(1, sizeof *u);
        if (!u)
            return MHD_NO;
        *state = u;
        return MHD_YES;
    }
    if (*data_size) {
        if (u->len + *data_size > MAX_BODY) {
            u->too_big = true;
        } else {
            char *b = realloc(u->buf, u->len + *data_size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + u->len, data, *data_size);
            u->buf = b;
            u->len += *data_size;
            u->buf[u->len] = '\0';
        }
        *data_size = 0;
        return MHD_YES;
    }
    int status = strcmp(method, "POST") == 0 && !u->too_big ? 204 : 400;
    pthread_mutex_lock(&r->lock);
    if (status == 204 && r->n < MAX_POSTS) {
        struct post *p = &r->posts[r->n++];
        p->path = dup_or_empty(url);
        p->key =
            dup_or_empty(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Idempotency-Key"));
        p->body = dup_or_empty(u->buf);
        pthread_cond_broadcast(&r->cond);
    }
    /* A hanging chat: nothing until the test lets it go (or it stops). */
    while (r->mode == RECV_HANG && !r->stopping)
        pthread_cond_wait(&r->cond, &r->lock);
    if (status == 204 && r->mode == RECV_STATUS)
        status = r->status;
    int delay = r->delay_ms;
    pthread_mutex_unlock(&r->lock);
    if (delay > 0)
        usleep((useconds_t)delay * 1000);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ok = MHD_queue_response(conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static void done(void *cls, struct MHD_Connection *conn, void **state,
                 enum MHD_RequestTerminationCode why)
{
    (void)cls, (void)conn, (void)why;
    struct upload *u = *state;
    if (u) {
        free(u->buf);
        free(u);
    }
    *state = NULL;
}

bool receiver_up(struct receiver *r)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)r->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    pthread_mutex_lock(&r->lock);
    r->stopping = false;
    pthread_mutex_unlock(&r->lock);
    r->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0,
                              NULL, NULL, answer, r, MHD_OPTION_SOCK_ADDR, &a,
                              MHD_OPTION_LISTENING_ADDRESS_REUSE, 1U, MHD_OPTION_NOTIFY_COMPLETED,
                              done, r, MHD_OPTION_END);
    if (!r->mhd)
        return false;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(r->mhd, MHD_DAEMON_INFO_BIND_PORT);
    if (info)
        r->port = info->port;
    return true;
}

struct receiver *receiver_start(int port)
{
    struct receiver *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    r->port = port;
    if (!receiver_up(r)) {
        receiver_free(r);
        return NULL;
    }
    return r;
}

void receiver_down(struct receiver *r)
{
    if (!r->mhd)
        return;
    pthread_mutex_lock(&r->lock);
    r->stopping = true; /* a hanging answer ends */
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    MHD_stop_daemon(r->mhd);
    r->mhd = NULL;
}

void receiver_clear(struct receiver *r)
{
    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < r->n; i++) {
        free(r->posts[i].path);
        free(r->posts[i].key);
        free(r->posts[i].body);
    }
    r->n = 0;
    pthread_mutex_unlock(&r->lock);
}

void receiver_free(struct receiver *r)
{
    if (!r)
        return;
    receiver_down(r);
    receiver_clear(r);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    free(r);
}

int receiver_port(const struct receiver *r)
{
    return r->port;
}

void receiver_mode(struct receiver *r, enum receiver_mode m, int status)
{
    pthread_mutex_lock(&r->lock);
    r->mode = m;
    r->status = status;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

void receiver_delay(struct receiver *r, int ms)
{
    pthread_mutex_lock(&r->lock);
    r->delay_ms = ms;
    pthread_mutex_unlock(&r->lock);
}

int receiver_count(struct receiver *r)
{
    pthread_mutex_lock(&r->lock);
    int n = r->n;
    pthread_mutex_unlock(&r->lock);
    return n;
}

bool receiver_wait(struct receiver *r, int n, int timeout_s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_s;
    pthread_mutex_lock(&r->lock);
    while (r->n < n && pthread_cond_timedwait(&r->cond, &r->lock, &until) == 0)
        ;
    bool ok = r->n >= n;
    pthread_mutex_unlock(&r->lock);
    return ok;
}

static const char *field(struct receiver *r, int i, int which)
{
    pthread_mutex_lock(&r->lock);
    const char *s = NULL;
    if (i >= 0 && i < r->n)
        s = which == 0 ? r->posts[i].path : which == 1 ? r->posts[i].key : r->posts[i].body;
    pthread_mutex_unlock(&r->lock);
    return s;
}

const char *receiver_body(struct receiver *r, int i)
{
    return field(r, i, 2);
}

const char *receiver_key(struct receiver *r, int i)
{
    return field(r, i, 1);
}

const char *receiver_path(struct receiver *r, int i)
{
    return field(r, i, 0);
}
