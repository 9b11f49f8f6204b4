#include "api/conns.h"

#include "api/clients.h"
#include "util/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

struct conn {
    int fd;
    struct client_key peer;
    bool counted; /* against the per-peer limit */
    bool in_request;
    bool cut;
    struct timespec since; /* opened, or its last reply was done */
    struct conn *prev, *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn *all;
static long nopen;
static struct client_counts per_peer = CLIENT_COUNTS_INIT;
static unsigned peer_limit, head_timeout, max_open;
/* Connections admitted by conns_accept and not yet closed: counted at admission, so that two
 * accepts racing on two threads cannot both pass a limit. */
static long admitted;
static atomic_ulong refused, head_cuts;
static atomic_bool stop;
static pthread_t thread;
static bool running;

enum MHD_Result conns_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)cls, (void)addrlen;
    /* Admitted here, counted here: libmicrohttpd's own --max-connections check, after this one,
     * then never refuses what was admitted (which would leave it counted). */
    bool trusted = clients_peer_trusted(addr);
    struct client_key k;
    client_key_sockaddr(addr, &k);
    pthread_mutex_lock(&lock);
    bool ok = admitted < (long)max_open &&
              (trusted || client_counts_add(&per_peer, &k, 1, (long)peer_limit));
    if (ok)
        admitted++;
    pthread_mutex_unlock(&lock);
    if (!ok)
        atomic_fetch_add(&refused, 1);
    return ok ? MHD_YES : MHD_NO;
}

void conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                  enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct conn *c = calloc(1, sizeof *c);
        *socket_context = c;
        if (!c)
            return;
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ad =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        c->fd = fd ? fd->connect_fd : -1;
        const struct sockaddr *sa = ad ? ad->client_addr : NULL;
        c->counted = !clients_peer_trusted(sa); /* by conns_accept */
        client_key_sockaddr(sa, &c->peer);
        clock_gettime(CLOCK_MONOTONIC, &c->since);
        pthread_mutex_lock(&lock);
        c->next = all;
        if (all)
            all->prev = c;
        all = c;
        nopen++;
        pthread_mutex_unlock(&lock);
        return;
    }
    struct conn *c = *socket_context;
    if (!c)
        return;
    /* Called before libmicrohttpd closes the socket: once out of the list, the deadline
     * thread cannot touch this fd again. */
    pthread_mutex_lock(&lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        all = c->next;
    if (c->next)
        c->next->prev = c->prev;
    nopen--;
    admitted--;
    if (c->counted)
        client_counts_add(&per_peer, &c->peer, -1, -1);
    pthread_mutex_unlock(&lock);
    free(c);
    *socket_context = NULL;
}

static struct conn *conn_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void conns_request_started(struct MHD_Connection *conn)
{
    struct conn *c = conn_of(conn);
    if (!c)
        return;
    pthread_mutex_lock(&lock);
    c->in_request = true;
    pthread_mutex_unlock(&lock);
}

void conns_request_done(struct MHD_Connection *conn)
{
    struct conn *c = conn_of(conn);
    if (!c)
        return;
    pthread_mutex_lock(&lock);
    c->in_request = false;
    clock_gettime(CLOCK_MONOTONIC, &c->since);
    pthread_mutex_unlock(&lock);
}

/* Shuts down connections whose head is late: libmicrohttpd then reads the end of the stream
 * and closes them as it would a client that hung up. */
static void *deadline_loop(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-conns");
    while (!atomic_load(&stop)) {
        struct timespec tick = {0, 250 * 1000 * 1000}, now;
        nanosleep(&tick, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        unsigned long cut = 0;
        pthread_mutex_lock(&lock);
        for (struct conn *c = all; c; c = c->next) {
            if (c->in_request || c->cut || c->fd < 0)
                continue;
            double idle = (double)(now.tv_sec - c->since.tv_sec) +
                          (double)(now.tv_nsec - c->since.tv_nsec) / 1e9;
            if (idle < (double)head_timeout)
                continue;
            /* Bytes waiting to be read: a request has just arrived; libmicrohttpd takes it. */
            char b;
            if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
                continue;
            shutdown(c->fd, SHUT_RDWR);
            c->cut = true;
            cut++;
        }
        pthread_mutex_unlock(&lock);
        if (cut) {
            atomic_fetch_add(&head_cuts, cut);
            log_msg(LOG_INFO, "http",
                    "closed %lu connection(s) with no whole request within %u s (--head-timeout)",
                    cut, head_timeout);
        }
    }
    return NULL;
}

bool conns_start(unsigned per_peer_max, unsigned head_s, unsigned max_connections)
{
    peer_limit = per_peer_max;
    max_open = max_connections;
    head_timeout = head_s;
    atomic_store(&stop, false);
    running = pthread_create(&thread, NULL, deadline_loop, NULL) == 0;
    if (!running)
        log_msg(LOG_ERROR, "http", "cannot start the connection deadline thread");
    return running;
}

void conns_stop(void)
{
    if (!running)
        return;
    atomic_store(&stop, true);
    pthread_join(thread, NULL);
    running = false;
}

unsigned long conns_refused(void)
{
    return atomic_load(&refused);
}

unsigned long conns_head_timeouts(void)
{
    return atomic_load(&head_cuts);
}

long conns_open(void)
{
    pthread_mutex_lock(&lock);
    long n = nopen;
    pthread_mutex_unlock(&lock);
    return n;
}
