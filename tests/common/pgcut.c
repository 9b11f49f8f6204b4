#include "tests/common/pgcut.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct pgcut {
    int listen_fd, port;
    char socket_path[100]; /* fits sockaddr_un's sun_path */
    pthread_mutex_t lock;
    char marker[64];  /* "" when not armed */
    char breaker[64]; /* pgcut_break's; "" when not breaking */
    atomic_int cuts;
    atomic_int live;    /* links open now */
    atomic_int said;    /* how many times pgcut_say_fatal was called */
    atomic_int to_tell; /* links that have not yet passed on the last pgcut_say_fatal */
    atomic_bool stop;
    pthread_t acceptor;
};

struct link {
    struct pgcut *p;
    int client, server;
    int heard; /* the pgcut_say_fatal calls this link has passed on (or was made after) */
};

/* An ErrorResponse as PgBouncer sends its own: severity, code and message, no non-localized
 * severity (V), which only PostgreSQL sends. */
static const char pooler_fatal[] = "E\0\0\0\x29SFATAL\0C08P01\0Mserver conn crashed?\0";

/* The bytes of a CommandComplete message for COMMIT: 'C', length 11,
 * "COMMIT\0". */
static const char commit_done[] = {'C', 0, 0, 0, 11, 'C', 'O', 'M', 'M', 'I', 'T', 0};

static bool contains(const char *hay, size_t n, const char *needle, size_t m)
{
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return true;
    return false;
}

static void *link_loop(void *arg)
{
    struct link *l = arg;
    struct pgcut *p = l->p;
    bool marked = false; /* the current transaction used the marker */
    bool ended = false;  /* told the client FATAL: whatever it sends now ends the link */
    char buf[65536];
    while (!atomic_load(&p->stop)) {
        if (l->heard < atomic_load(&p->said)) {
            l->heard = atomic_load(&p->said);
            ended =
                write(l->client, pooler_fatal, sizeof pooler_fatal) == (ssize_t)sizeof pooler_fatal;
            atomic_fetch_sub(&p->to_tell, 1);
        }
        struct pollfd fds[2] = {{l->client, POLLIN, 0}, {l->server, POLLIN, 0}};
        if (poll(fds, 2, 50) <= 0)
            continue;
        if (fds[0].revents) {
            ssize_t n = read(l->client, buf, sizeof buf);
            if (n <= 0 || ended)
                break;
            pthread_mutex_lock(&p->lock);
            if (p->marker[0] && contains(buf, (size_t)n, p->marker, strlen(p->marker)))
                marked = true;
            bool broken = p->breaker[0] && contains(buf, (size_t)n, p->breaker, strlen(p->breaker));
            pthread_mutex_unlock(&p->lock);
            if (broken) {
                atomic_fetch_add(&p->cuts, 1);
                break; /* the statement never reaches PostgreSQL */
            }
            if (write(l->server, buf, (size_t)n) != n)
                break;
        }
        if (fds[1].revents) {
            ssize_t n = read(l->server, buf, sizeof buf);
            if (n <= 0)
                break;
            bool cut = false;
            pthread_mutex_lock(&p->lock);
            if (marked && p->marker[0] &&
                contains(buf, (size_t)n, commit_done, sizeof commit_done)) {
                p->marker[0] = '\0';
                cut = true;
            }
            pthread_mutex_unlock(&p->lock);
            if (cut) {
                atomic_fetch_add(&p->cuts, 1);
                break; /* COMMIT was carried out; its answer is never passed on */
            }
            if (write(l->client, buf, (size_t)n) != n)
                break;
        }
    }
    close(l->client);
    close(l->server);
    /* Under the lock, as pgcut_say_fatal counts the links to tell. */
    pthread_mutex_lock(&p->lock);
    if (l->heard < atomic_load(&p->said))
        atomic_fetch_sub(&p->to_tell, 1); /* ended before it was told */
    atomic_fetch_sub(&p->live, 1);
    pthread_mutex_unlock(&p->lock);
    free(l);
    return NULL;
}

static void *accept_loop(void *arg)
{
    struct pgcut *p = arg;
    while (!atomic_load(&p->stop)) {
        struct pollfd pfd = {p->listen_fd, POLLIN, 0};
        if (poll(&pfd, 1, 200) <= 0)
            continue;
        int c = accept(p->listen_fd, NULL, NULL);
        if (c < 0)
            continue;
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        memcpy(sun.sun_path, p->socket_path, sizeof p->socket_path);
        struct link *l = malloc(sizeof *l);
        if (s < 0 || !l || connect(s, (struct sockaddr *)&sun, sizeof sun) != 0) {
            close(c);
            if (s >= 0)
                close(s);
            free(l);
            continue;
        }
        pthread_mutex_lock(&p->lock); /* as pgcut_say_fatal counts the links to tell */
        *l = (struct link){p, c, s, atomic_load(&p->said)};
        atomic_fetch_add(&p->live, 1);
        pthread_mutex_unlock(&p->lock);
        pthread_t t; /* detached: pgcut_stop waits for every link to end (live) */
        if (pthread_create(&t, NULL, link_loop, l) == 0) {
            pthread_detach(t);
        } else {
            pthread_mutex_lock(&p->lock);
            atomic_fetch_sub(&p->live, 1);
            pthread_mutex_unlock(&p->lock);
            close(c);
            close(s);
            free(l);
        }
    }
    return NULL;
}

struct pgcut *pgcut_start(const char *socket_dir)
{
    struct pgcut *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    snprintf(p->socket_path, sizeof p->socket_path, "%s/.s.PGSQL.5432", socket_dir);
    p->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sin;
    if (p->listen_fd < 0 || bind(p->listen_fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
        listen(p->listen_fd, 64) != 0 ||
        getsockname(p->listen_fd, (struct sockaddr *)&sin, &len) != 0 ||
        pthread_create(&p->acceptor, NULL, accept_loop, p) != 0) {
        if (p->listen_fd >= 0)
            close(p->listen_fd);
        free(p);
        return NULL;
    }
    p->port = ntohs(sin.sin_port);
    return p;
}

int pgcut_port(const struct pgcut *p)
{
    return p->port;
}

void pgcut_arm(struct pgcut *p, const char *marker)
{
    pthread_mutex_lock(&p->lock);
    snprintf(p->marker, sizeof p->marker, "%s", marker);
    pthread_mutex_unlock(&p->lock);
}

void pgcut_break(struct pgcut *p, const char *marker)
{
    pthread_mutex_lock(&p->lock);
    snprintf(p->breaker, sizeof p->breaker, "%s", marker);
    pthread_mutex_unlock(&p->lock);
}

bool pgcut_say_fatal(struct pgcut *p)
{
    pthread_mutex_lock(&p->lock);
    atomic_store(&p->to_tell, atomic_load(&p->live));
    atomic_fetch_add(&p->said, 1);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < 200 && atomic_load(&p->to_tell) > 0; i++)
        usleep(10000);
    return atomic_load(&p->to_tell) <= 0;
}

int pgcut_cuts(struct pgcut *p)
{
    return atomic_load(&p->cuts);
}

void pgcut_stop(struct pgcut *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, true);
    pthread_join(p->acceptor, NULL);
    while (atomic_load(&p->live) > 0) /* each link sees stop within its poll's 50 ms */
        usleep(10000);
    close(p->listen_fd);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
