/* A small HTTP client for tests (libcurl), plus raw sockets for misbehaving clients. */
#ifndef M44_TEST_HTTP_H
#define M44_TEST_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct http_resp {
    long status; /* 0 when the request failed at the transport level */
    char *body;
    size_t len;
    char *headers; /* raw header block */
    json_t *json;  /* parsed body when it is JSON, else NULL */
};

/* Sends a request. `headers` is a NULL-terminated list of "Name: value". Never NULL. */
struct http_resp *http_do(const char *method, const char *url, const char *body,
                          const char *const *headers);
void http_free(struct http_resp *r);

/* Later requests of the calling thread come from this local address (e.g. "127.0.0.2": another
 * client on the loopback network); NULL for the default. */
void http_set_source(const char *address);

/* A response header's value (copied into buf), or NULL. */
const char *http_header(const struct http_resp *r, const char *name, char *buf, size_t len);

/* JSON member lookups on the parsed body: "a.b.0.c" paths. NULL / -1 / "" when absent. */
json_t *http_json_at(const struct http_resp *r, const char *path);
const char *http_str(const struct http_resp *r, const char *path);
long long http_int(const struct http_resp *r, const char *path);

/* Raw TCP to 127.0.0.1:port (from the local address `source`, e.g. "127.0.0.2"; NULL: any);
 * returns the socket or -1. */
int tcp_connect(int port);
int tcp_connect_from(int port, const char *source);
/* Reads (and drops) until the peer closes or resets: true if it did within `timeout_ms`. */
bool tcp_closed_within(int fd, int timeout_ms);
/* Reads until the peer closes or `timeout_ms` passes; returns bytes read. */
size_t tcp_read_all(int fd, char *buf, size_t len, int timeout_ms);

/* A free TCP port on 127.0.0.1. */
int free_port(void);

#endif
