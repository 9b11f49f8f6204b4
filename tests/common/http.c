#include "tests/common/http.h"

#include "tests/common/contract.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static _Thread_local char source[64];

void http_set_source(const char *address)
{
    snprintf(source, sizeof source, "%s", address ? address : "");
}

/* How long one request may take before it counts as no answer: 60 s, or 300 s when every
 * daemon runs under a wrapper (valgrind), which runs the long requests (an import of a
 * log of two thousand actions) ten to fifty times slower, more on a busy machine. */
static long request_limit(void)
{
    const char *w = getenv("M44_TEST_WRAPPER");
    return w && *w ? 300L : 60L;
}

struct growbuf {
    char *data;
    size_t len;
};

static size_t collect(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    struct growbuf *b = userdata;
    size_t n = size * nmemb;
    char *nd = realloc(b->data, b->len + n + 1);
    if (!nd)
        return 0;
    b->data = nd;
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

struct http_resp *http_do(const char *method, const char *url, const char *body,
                          const char *const *headers)
{
    struct http_resp *r = calloc(1, sizeof *r);
    struct growbuf b = {calloc(1, 1), 0}, h = {calloc(1, 1), 0};
    CURL *c = curl_easy_init();
    struct curl_slist *list = NULL;
    int has_type = 0;
    for (const char *const *p = headers; p && *p; p++) {
        list = curl_slist_append(list, *p);
        has_type |= strncasecmp(*p, "Content-Type:", 13) == 0;
    }
    if (body && !has_type)
        list = curl_slist_append(list, "Content-Type: application/json");
    list = curl_slist_append(list, "Expect:");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (source[0])
        curl_easy_setopt(c, CURLOPT_INTERFACE, source);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, request_limit());
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    char *type = NULL;
    if (curl_easy_perform(c) == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
        curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
        contract_check(method, url, r->status, type, b.data, b.len);
    }
    curl_slist_free_all(list);
    curl_easy_cleanup(c);
    r->body = b.data;
    r->len = b.len;
    r->headers = h.data;
    r->json = json_loadb(r->body, r->len, 0, NULL);
    return r;
}

void http_free(struct http_resp *r)
{
    if (!r)
        return;
    json_decref(r->json);
    free(r->body);
    free(r->headers);
    free(r);
}

const char *http_header(const struct http_resp *r, const char *name, char *buf, size_t len)
{
    size_t nlen = strlen(name);
    for (const char *line = r->headers; line && *line;) {
        const char *end = strchr(line, '\n');
        if (strncasecmp(line, name, nlen) == 0 && line[nlen] == ':') {
            const char *v = line + nlen + 1;
            while (*v == ' ')
                v++;
            size_t vlen = (size_t)((end ? end : v + strlen(v)) - v);
            while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n'))
                vlen--;
            if (vlen >= len)
                vlen = len - 1;
            memcpy(buf, v, vlen);
            buf[vlen] = '\0';
            return buf;
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

json_t *http_json_at(const struct http_resp *r, const char *path)
{
    json_t *cur = r->json;
    char seg[128];
    while (cur && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof seg)
            return NULL;
        memcpy(seg, path, n);
        seg[n] = '\0';
        if (json_is_array(cur)) {
            char *end;
            long i = strtol(seg, &end, 10);
            cur = *end ? NULL : json_array_get(cur, (size_t)i);
        } else {
            cur = json_object_get(cur, seg);
        }
        path += n;
        if (*path == '.')
            path++;
    }
    return cur;
}

const char *http_str(const struct http_resp *r, const char *path)
{
    json_t *v = http_json_at(r, path);
    return json_is_string(v) ? json_string_value(v) : "";
}

long long http_int(const struct http_resp *r, const char *path)
{
    json_t *v = http_json_at(r, path);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

int tcp_connect(int port)
{
    return tcp_connect_from(port, NULL);
}

int tcp_connect_from(int port, const char *from)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct sockaddr_in src = {.sin_family = AF_INET};
    if (fd < 0 ||
        (from && (inet_pton(AF_INET, from, &src.sin_addr) != 1 ||
                  bind(fd, (struct sockaddr *)&src, sizeof src) < 0)) ||
        connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

bool tcp_closed_within(int fd, int timeout_ms)
{
    char buf[4096];
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left =
            timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0)
            return false;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)left) <= 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            return true; /* end of stream, or reset */
    }
}

size_t tcp_read_all(int fd, char *buf, size_t len, int timeout_ms)
{
    size_t got = 0;
    while (got + 1 < len) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, timeout_ms) <= 0)
            break;
        ssize_t n = read(fd, buf + got, len - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}
