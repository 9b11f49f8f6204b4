#include "api/acceptor.h"

#include "util/log.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* How long accepting pauses after an error, such as the process being out of files: a
 * connection that closes in the meantime frees one, and the clients wait in the listen queue
 * rather than being refused. */
#define PAUSE_MS 100

/* Most connections accepted between two looks for acceptor_stop. */
#define ACCEPT_BATCH 64

/* While full, whether there is room again is asked this often. */
#define FULL_MS 10

static struct MHD_Daemon *mhd;
static bool (*has_room)(void);
static int listen_fd = -1, wake_fd = -1;
static pthread_t thread;
static bool running;
static atomic_ulong fd_waits;

unsigned long acceptor_fd_waits(void)
{
    return atomic_load(&fd_waits);
}

int acceptor_listen(const struct sockaddr *addr, socklen_t addrlen)
{
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        (addr->sa_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) != 0) ||
        bind(fd, addr, addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Waits up to `ms` (-1: for ever) for the listening socket to have a connection (`listen_too`)
 * or for acceptor_stop. False once stopping. */
static bool wait_for(bool listen_too, int ms)
{
    struct pollfd p[2] = {{.fd = wake_fd, .events = POLLIN}, {.fd = listen_fd, .events = POLLIN}};
    if (poll(p, listen_too ? 2 : 1, ms) < 0 && errno != EINTR) {
        log_msg(LOG_ERROR, "http", "waiting for connections: %s", strerror(errno));
        struct timespec pause = {0, PAUSE_MS * 1000 * 1000};
        nanosleep(&pause, NULL); /* not a loop of errors */
    }
    return !(p[0].revents & POLLIN);
}

/* accept_queued's answer when there is no room for another connection. */
#define FULL (-1)

/* Accepts what the queue holds, up to a batch (then acceptor_stop is looked for again, however
 * fast clients come): 0 once it is empty or the batch done, FULL, or the error that stopped
 * it. */
static int accept_queued(void)
{
    for (int batch = 0; batch < ACCEPT_BATCH; batch++) {
        if (!has_room())
            return FULL;
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int c = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c >= 0) {
            /* libmicrohttpd owns the socket from here, and closes it when it refuses it
             * (conns_accept's limits, or every worker full). */
            MHD_add_connection(mhd, c, (const struct sockaddr *)&ss, len);
            continue;
        }
        switch (errno) {
        case EAGAIN:
#if EWOULDBLOCK != EAGAIN
        case EWOULDBLOCK:
#endif
            return 0;
        case EINTR:
        case ECONNABORTED:
        case EPROTO: /* the client went away, or a network error Linux passes on: next */
        case ENETDOWN:
        case ENOPROTOOPT:
        case EHOSTDOWN:
        case ENONET:
        case EHOSTUNREACH:
        case EOPNOTSUPP:
        case ENETUNREACH:
            continue;
        default:
            return errno;
        }
    }
    return 0;
}

static void *run(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "m44d-accept");
    bool paused = false; /* in a run of pauses: said once */
    while (wait_for(true, -1)) {
        int err = accept_queued();
        if (!err) {
            paused = false;
            continue;
        }
        if (err == FULL) {
            if (!wait_for(false, FULL_MS))
                break;
            continue;
        }
        bool out_of_files = err == EMFILE || err == ENFILE;
        bool out_of_memory = err == ENOBUFS || err == ENOMEM;
        if (out_of_files || out_of_memory)
            atomic_fetch_add(&fd_waits, 1);
        if (!paused && out_of_files)
            log_msg(LOG_WARN, "http",
                    "cannot accept connections: %s; new clients wait until a connection closes "
                    "(raise the open-files limit, or lower --max-connections)",
                    strerror(err));
        else if (!paused && out_of_memory)
            log_msg(LOG_WARN, "http",
                    "cannot accept connections: %s; new clients wait until memory is freed",
                    strerror(err));
        else if (!paused)
            log_msg(LOG_ERROR, "http", "cannot accept connections: %s", strerror(err));
        paused = true;
        if (!wait_for(false, PAUSE_MS))
            break;
    }
    return NULL;
}

bool acceptor_start(struct MHD_Daemon *daemon, int fd, bool (*room)(void))
{
    mhd = daemon;
    has_room = room;
    listen_fd = fd;
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int err = wake_fd < 0 ? errno : pthread_create(&thread, NULL, run, NULL);
    running = err == 0;
    if (!running) {
        log_msg(LOG_ERROR, "http", "cannot start the thread that accepts connections: %s",
                strerror(err));
        acceptor_stop();
    }
    return running;
}

void acceptor_stop(void)
{
    if (running) {
        uint64_t one = 1;
        if (write(wake_fd, &one, sizeof one) != sizeof one)
            log_msg(LOG_ERROR, "http", "cannot stop accepting: %s", strerror(errno));
        pthread_join(thread, NULL);
        running = false;
    }
    if (listen_fd >= 0)
        close(listen_fd);
    if (wake_fd >= 0)
        close(wake_fd);
    listen_fd = wake_fd = -1;
}
