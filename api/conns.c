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
static atomic_ulong refused, head_cuts, idle_cuts;
static atomic_bool stop;
static pthread_t thread;
static bool running;

enum MHD_Result conns_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)cls, (void)addrlen;
    /* Admitted here, counted here: libmicrohttpd's own limit, checked again after this, is set
     * far above --max-connections (api/server.c), so it never refuses what was admitted (which
     * would leave it counted). */
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

bool conns_room(void)
{
    pthread_mutex_lock(&lock);
    bool room = admitted < (long)max_open;
    pthread_mutex_unlock(&lock);
    return room;
}

void conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                  enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ad =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *sa = ad ? ad->client_addr : NULL;
        bool counted = !clients_peer_trusted(sa); /* by conns_accept */
        struct client_key peer;
        client_key_sockaddr(sa, &peer);
        struct conn *c = calloc(1, sizeof *c);
        *socket_context = c;
        if (!c) {
            /* Not followed: its admission is undone now, as its close will find nothing. */
            pthread_mutex_lock(&lock);
            admitted--;
            if (counted)
                client_counts_add(&per_peer, &peer, -1, -1);
            pthread_mutex_unlock(&lock);
            return;
        }
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        c->fd = fd ? fd->connect_fd : -1;
        c->counted = counted;
        c->peer = peer;
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

/* Seconds since `c` opened or its last reply was done. */
static double idle_for(const struct conn *c, const struct timespec *now)
{
    return (double)(now->tv_sec - c->since.tv_sec) +
           (double)(now->tv_nsec - c->since.tv_nsec) / 1e9;
}

/* A connection with no request in progress that may be cut: none is being read (bytes waiting
 * mean a request has just arrived, and libmicrohttpd takes it). */
static bool cuttable(const struct conn *c)
{
    if (c->in_request || c->cut || c->fd < 0)
        return false;
    char b;
    return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

/* Shutting a connection down makes libmicrohttpd read the end of the stream and close it as it
 * would a client that hung up. */
static void cut(struct conn *c)
{
    shutdown(c->fd, SHUT_RDWR);
    c->cut = true;
}

static int older_first(const void *a, const void *b)
{
    const struct conn *x = *(struct conn *const *)a, *y = *(struct conn *const *)b;
    if (x->since.tv_sec != y->since.tv_sec)
        return x->since.tv_sec < y->since.tv_sec ? -1 : 1;
    return (x->since.tv_nsec > y->since.tv_nsec) - (x->since.tv_nsec < y->since.tv_nsec);
}

/* Nearly full (more than 7/8 of --max-connections open, not counting those already cut):
 * connections idle for a second or more are cut, longest idle first, down to that mark, so that
 * idle connections from a few addresses cannot hold every slot until --head-timeout while a new
 * client waits. A request in progress (a parked long poll too) is never cut, nor a trusted
 * proxy's connection (it may be sending a request on it just then, and would not send it
 * again). Called with the lock held. */
static unsigned long shed_idle(const struct timespec *now)
{
    long mark = (long)max_open - (long)max_open / 8, live = 0;
    for (struct conn *c = all; c; c = c->next)
        live += !c->cut;
    long excess = live - mark;
    if (excess <= 0)
        return 0;
    struct conn **idle = malloc((size_t)nopen * sizeof *idle);
    if (!idle)
        return 0;
    size_t n = 0;
    for (struct conn *c = all; c; c = c->next)
        if (c->counted && idle_for(c, now) >= 1.0 && !c->in_request && !c->cut && c->fd >= 0)
            idle[n++] = c;
    qsort(idle, n, sizeof *idle, older_first);
    unsigned long done = 0;
    for (size_t i = 0; i < n && (long)done < excess; i++) {
        if (!cuttable(idle[i]))
            continue;
        cut(idle[i]);
        done++;
        atomic_fetch_add(&idle_cuts, 1); /* before the lock is let go, as head_cuts */
    }
    free(idle);
    return done;
}

/* Cuts connections whose head is late, and idle ones when nearly full. */
static void *deadline_loop(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-conns");
    while (!atomic_load(&stop)) {
        struct timespec tick = {0, 250 * 1000 * 1000}, now;
        nanosleep(&tick, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        unsigned long late = 0, shed = 0;
        pthread_mutex_lock(&lock);
        for (struct conn *c = all; c; c = c->next) {
            if (idle_for(c, &now) < (double)head_timeout || !cuttable(c))
                continue;
            cut(c);
            late++;
            /* Counted before the lock is let go: a client that sees its connection closed and
             * reads /metrics at once finds it counted. */
            atomic_fetch_add(&head_cuts, 1);
        }
        shed = shed_idle(&now);
        long open_now = nopen;
        pthread_mutex_unlock(&lock);
        if (late) {
            log_msg(LOG_INFO, "http",
                    "closed %lu connection(s) with no whole request within %u s (--head-timeout)",
                    late, head_timeout);
        }
        if (shed) {
            log_msg(LOG_INFO, "http",
                    "closed %lu idle connection(s) to keep room for new ones (%ld of "
                    "--max-connections %u open)",
                    shed, open_now, max_open);
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

unsigned long conns_idle_shed(void)
{
    return atomic_load(&idle_cuts);
}

long conns_open(void)
{
    pthread_mutex_lock(&lock);
    long n = nopen;
    pthread_mutex_unlock(&lock);
    return n;
}
