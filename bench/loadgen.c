/*
 * A small HTTP/1.1 load generator for the benchmarks: N keep-alive connections, one thread
 * each, for a bounded time. It measures every request and prints requests/s and latency
 * percentiles.
 *   loadgen -c CONNS -d SECONDS -g PATHS HOST:PORT   GET each line's path in turn; a line
 *                                                    "PATH<TAB>ETAG" sends If-None-Match
 *   loadgen -c CONNS -d SECONDS -p POSTS HOST:PORT   POST each line "PATH<TAB>KEY<TAB>BODY"
 *                                                    once (stops early when they run out)
 *   loadgen -c CONNS -d SECONDS -s POSTS HOST:PORT   the same, in order per connection:
 *                                                    connection i (from 0) sends lines i,
 *                                                    i + CONNS, i + 2 CONNS... one after the
 *                                                    other (a game played step by step)
 *   -k (with -p or -s): each POST with an Idempotency-Key of its own, as the page sends
 * Output: one line "requests=N ok=N errors=N rps=X p50_ms=X p99_ms=X max_ms=X".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct line {
    char *path, *extra, *body; /* extra: an ETag (GET) or a bearer key (POST) */
};

static struct line *lines;
static size_t nlines;
static bool posting, sequenced, keyed;
static int nconns;
static atomic_size_t next_line;
static double deadline;
static char host[64];
static int port;

struct worker {
    pthread_t t;
    int index;
    double *lat; /* seconds */
    size_t n, cap;
    long ok, errors;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads one response; returns its status, or -1 when the connection broke. */
static int read_response(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    char *end = NULL;
    while (!end) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
        buf[got] = '\0';
        end = strstr(buf, "\r\n\r\n");
        if (!end && got >= cap - 1)
            return -1;
    }
    int status = atoi(buf + 9);
    long length = 0;
    char *cl = strcasestr(buf, "\r\nContent-Length:");
    if (cl)
        length = atol(cl + 17);
    size_t have = got - (size_t)(end + 4 - buf);
    while ((long)have < length) {
        char sink[65536];
        size_t want = (size_t)length - have < sizeof sink ? (size_t)length - have : sizeof sink;
        ssize_t n = read(fd, sink, want);
        if (n <= 0)
            return -1;
        have += (size_t)n;
    }
    return status;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    int fd = dial();
    static _Thread_local char req[65536], resp[131072];
    size_t i = (size_t)w->index * 7919, step = 0;
    while (now_s() < deadline) {
        const struct line *l;
        if (posting) {
            size_t k = sequenced ? step++ * (size_t)nconns + (size_t)w->index
                                 : atomic_fetch_add(&next_line, 1);
            if (k >= nlines)
                break;
            l = &lines[k];
            char key[64] = "";
            if (keyed)
                snprintf(key, sizeof key, "Idempotency-Key: loadgen-%ld-%zu\r\n", (long)getpid(),
                         k);
            snprintf(req, sizeof req,
                     "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n%s"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                     l->path, host, l->extra, key, strlen(l->body), l->body);
        } else {
            l = &lines[i++ % nlines];
            if (l->extra)
                snprintf(req, sizeof req,
                         "GET %s HTTP/1.1\r\nHost: %s\r\nIf-None-Match: %s\r\n\r\n", l->path, host,
                         l->extra);
            else
                snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", l->path, host);
        }
        if (fd < 0 && (fd = dial()) < 0) {
            w->errors++;
            usleep(10000);
            continue;
        }
        double t0 = now_s();
        size_t len = strlen(req);
        int status =
            write(fd, req, len) == (ssize_t)len ? read_response(fd, resp, sizeof resp) : -1;
        double dt = now_s() - t0;
        if (status < 0) {
            close(fd);
            fd = -1;
            w->errors++;
            continue;
        }
        if (w->n == w->cap) {
            w->cap = w->cap ? w->cap * 2 : 4096;
            w->lat = realloc(w->lat, w->cap * sizeof *w->lat);
        }
        w->lat[w->n++] = dt;
        if ((status >= 200 && status < 300) || status == 304)
            w->ok++;
        else
            w->errors++;
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void load(const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        exit(2);
    }
    size_t cap = 1024;
    lines = malloc(cap * sizeof *lines);
    if (!lines)
        exit(2);
    char *buf = NULL;
    size_t bcap = 0;
    ssize_t n;
    while ((n = getline(&buf, &bcap, f)) > 0) {
        buf[strcspn(buf, "\n")] = '\0';
        if (!*buf)
            continue;
        if (nlines == cap) {
            struct line *more = realloc(lines, (cap *= 2) * sizeof *lines);
            if (!more) {
                fprintf(stderr, "loadgen: out of memory\n");
                exit(2);
            }
            lines = more;
        }
        struct line *l = &lines[nlines++];
        l->path = strdup(buf);
        l->extra = l->body = NULL;
        char *tab = strchr(l->path, '\t');
        if (tab) {
            *tab = '\0';
            l->extra = tab + 1;
            tab = strchr(l->extra, '\t');
            if (tab) {
                *tab = '\0';
                l->body = tab + 1;
            }
        }
    }
    free(buf);
    fclose(f);
}

int main(int argc, char **argv)
{
    int conns = 1;
    double seconds = 5;
    const char *file = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "c:d:g:kp:s:")) != -1) {
        switch (opt) {
        case 'c':
            conns = atoi(optarg);
            break;
        case 'd':
            seconds = atof(optarg);
            break;
        case 'g':
            file = optarg;
            break;
        case 'k':
            keyed = true;
            break;
        case 'p':
        case 's':
            file = optarg;
            posting = true;
            sequenced = opt == 's';
            break;
        default:
            return 2;
        }
    }
    if (!file || optind >= argc || conns < 1 || conns > 1024 ||
        sscanf(argv[optind], "%63[^:]:%d", host, &port) != 2) {
        fprintf(stderr,
                "usage: loadgen -c CONNS -d SECONDS (-g PATHS | [-k] -p POSTS | [-k] -s POSTS) "
                "HOST:PORT\n");
        return 2;
    }
    nconns = conns;
    load(file);
    if (!nlines) {
        fprintf(stderr, "loadgen: %s has no requests\n", file);
        return 2;
    }
    struct worker *w = calloc((size_t)conns, sizeof *w);
    double start = now_s();
    deadline = start + seconds;
    for (int i = 0; i < conns; i++) {
        w[i].index = i;
        pthread_create(&w[i].t, NULL, work, &w[i]);
    }
    size_t total = 0;
    long ok = 0, errors = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(w[i].t, NULL);
        total += w[i].n;
        ok += w[i].ok;
        errors += w[i].errors;
    }
    double elapsed = now_s() - start;
    double *all = malloc((total ? total : 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < conns; i++) {
        memcpy(all + k, w[i].lat, w[i].n * sizeof *all);
        k += w[i].n;
        free(w[i].lat);
    }
    qsort(all, total, sizeof *all, cmp);
    double p50 = total ? all[total / 2] : 0, p99 = total ? all[(size_t)(total * 0.99)] : 0;
    double max = total ? all[total - 1] : 0;
    printf("requests=%zu ok=%ld errors=%ld rps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f\n", total,
           ok, errors, (double)total / elapsed, p50 * 1000, p99 * 1000, max * 1000);
    free(all);
    free(w);
    return 0;
}
