/*
 * The baseline for GET: the least a libmicrohttpd + libpq server can do for a primary-key
 * read. Same threading as m44d's HTTP side (internal polling thread, epoll, a thread pool),
 * one PGconn per thread with a prepared statement, a JSON reply.
 *   bare DATABASE HOST:PORT THREADS        GET /row/<campaign id>, or GET /hello (no database)
 */
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *conninfo;
static _Thread_local PGconn *conn;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *data,
                              size_t *size, void **state)
{
    (void)cls, (void)method, (void)version, (void)data, (void)size;
    if (!*state) { /* reply on the second call, so the connection stays alive */
        *state = c;
        return MHD_YES;
    }
    if (strcmp(url, "/hello") == 0) /* libmicrohttpd alone: no database */
        return reply(c, 200, "{\"hello\":true}");
    if (strncmp(url, "/row/", 5) != 0)
        return reply(c, 404, "{}");
    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        PQfinish(conn);
        conn = PQconnectdb(conninfo);
        PGresult *p = PQprepare(
            conn, "row", "SELECT id, name, version FROM campaigns WHERE id = $1::uuid", 1, NULL);
        PQclear(p);
    }
    const char *params[] = {url + 5};
    PGresult *r = PQexecPrepared(conn, "row", 1, params, NULL, NULL, 0);
    char body[512];
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        snprintf(body, sizeof body, "{\"id\":\"%s\",\"name\":\"%s\",\"version\":%s}",
                 PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 2));
    else
        snprintf(body, sizeof body, "{}");
    PQclear(r);
    return reply(c, 200, body);
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    conninfo = argv[1];
    char host[64];
    int port;
    if (sscanf(argv[2], "%63[^:]:%d", host, &port) != 2)
        return 2;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0,
                                            NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, &a,
                                            MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[3]),
                                            MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_END);
    if (!d)
        return 1;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGINT);
    pthread_sigmask(SIG_BLOCK, &s, NULL);
    int sig;
    sigwait(&s, &sig);
    MHD_stop_daemon(d);
    return 0;
}
