/*
 * Live viewers: N long polls (GET ?wait=) on one campaign, then one write; how long after the
 * write each viewer has its answer.
 *   viewers N READ_PORT WRITE_PORT CAMPAIGN_ID ETAG ORGANIZER_KEY
 * Connections come from 127.0.1.2, .3, ... (PER_ADDRESS each: phones behind a few NATs, within
 * m44d's default --per-ip-limit and --parked-per-client). The
 * write (a new battle) goes to WRITE_PORT: the same daemon, or another one on the same database.
 * Prints: viewers= parked_s= answered= ok= write_ms= p50_ms= p99_ms= max_ms=
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PER_ADDRESS 500

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int connect_from(int port, const char *source)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
    inet_pton(AF_INET, source, &src.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    dst.sin_port = htons((uint16_t)port);
    if (bind(fd, (struct sockaddr *)&src, sizeof src) < 0 ||
        connect(fd, (struct sockaddr *)&dst, sizeof dst) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The parked count from m44d's /metrics. */
static long parked(int port)
{
    int fd = connect_from(port, "127.0.0.1");
    if (fd < 0)
        return -1;
    const char *q = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (send(fd, q, strlen(q), MSG_NOSIGNAL) < 0) {
        close(fd);
        return -1;
    }
    static char buf[1 << 16];
    size_t got = 0;
    ssize_t n;
    while (got + 1 < sizeof buf && (n = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    close(fd);
    const char *m = strstr(buf, "\nm44d_long_polls_waiting ");
    return m ? atol(m + 25) : -1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: viewers N READ_PORT WRITE_PORT CAMPAIGN_ID ETAG ORGANIZER_KEY\n");
        return 2;
    }
    int n = atoi(argv[1]), rport = atoi(argv[2]), wport = atoi(argv[3]);
    const char *id = argv[4], *etag = argv[5], *key = argv[6];
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int *fds = calloc((size_t)n, sizeof *fds);
    double *at = calloc((size_t)n, sizeof *at);
    int *status = calloc((size_t)n, sizeof *status);
    if (!fds || !at || !status)
        return 1;
    char req[512];
    snprintf(
        req, sizeof req,
        "GET /api/v1/campaigns/%s?wait=120 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"%s\"\r\n\r\n",
        id, etag);
    int ep = epoll_create1(0);
    double t_open = now_ms();
    for (int i = 0; i < n; i++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.%d.%d", 1 + i / PER_ADDRESS / 250,
                 2 + (i / PER_ADDRESS) % 250);
        fds[i] = connect_from(rport, src);
        if (fds[i] < 0 || send(fds[i], req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
            fprintf(stderr, "viewer %d: %s\n", i, strerror(errno));
            return 1;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
    }
    /* Every one parked (bounded: 120 s). */
    long p = 0;
    while ((p = parked(rport)) < n && now_ms() - t_open < 120000)
        usleep(50000);
    double parked_s = (now_ms() - t_open) / 1e3;
    if (p < n) {
        fprintf(stderr, "only %ld of %d parked\n", p, n);
        return 1;
    }
    /* The write. */
    const char *body = "{\"scenario\":\"Pegasus Bridge\",\"first_player\":\"axis\","
                       "\"cards\":{\"allies\":4,\"axis\":4},\"medals_to_win\":4}";
    char w[1024];
    snprintf(w, sizeof w,
             "POST /api/v1/campaigns/%s/battles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
             id, key, strlen(body), body);
    int wfd = connect_from(wport, "127.0.0.1");
    double t0 = now_ms();
    if (wfd < 0 || send(wfd, w, strlen(w), MSG_NOSIGNAL) < 0)
        return 1;
    char wb[256] = "";
    ssize_t wn = read(wfd, wb, sizeof wb - 1);
    double write_ms = now_ms() - t0;
    if (wn < 12 || strncmp(wb, "HTTP/1.1 201", 12) != 0) {
        fprintf(stderr, "the write failed: %.80s\n", wn > 0 ? wb : "(nothing)");
        return 1;
    }
    close(wfd);
    /* Each viewer's first bytes. */
    int answered = 0, ok = 0;
    struct epoll_event evs[256];
    static char buf[65536];
    while (answered < n && now_ms() - t0 < 60000) {
        int k = epoll_wait(ep, evs, 256, 1000);
        for (int e = 0; e < k; e++) {
            int i = (int)evs[e].data.u32;
            ssize_t r = read(fds[i], buf, sizeof buf - 1);
            if (at[i] == 0) {
                at[i] = now_ms() - t0;
                answered++;
                ok += r >= 12 && strncmp(buf, "HTTP/1.1 200", 12) == 0;
            }
            if (r <= 0 || r < (ssize_t)sizeof buf - 1) {
                epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], NULL);
            }
        }
    }
    double *sorted = calloc((size_t)n, sizeof *sorted);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (at[i] > 0)
            sorted[m++] = at[i];
    qsort(sorted, (size_t)m, sizeof *sorted, cmp);
    printf("viewers=%d parked_s=%.1f answered=%d ok=%d write_ms=%.1f p50_ms=%.1f p99_ms=%.1f "
           "max_ms=%.1f\n",
           n, parked_s, answered, ok, write_ms, m ? sorted[m / 2] : -1.0,
           m ? sorted[(m * 99) / 100 < m ? (m * 99) / 100 : m - 1] : -1.0,
           m ? sorted[m - 1] : -1.0);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    return 0;
}
