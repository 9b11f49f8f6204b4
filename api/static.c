/* The dashboard: GET /, GET /c/{id} (a campaign's page), GET /g/{id}, GET /assets/{file}, and a
 * browser's page at an unknown address. */
#include "api/handlers.h"
#include "api/http.h"
#include "util/embed.h"

#include <stdio.h>
#include <string.h>

static const char *content_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},   {".svg", "image/svg+xml"},
        {".json", "application/json"},         {".png", "image/png"},
        {".txt", "text/plain; charset=utf-8"}, {".webmanifest", "application/manifest+json"},
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

static void serve_status(struct req *r, int status, const char *name)
{
    const struct embedded_file *f = embedded_find(embedded_web, name);
    if (!f || strchr(name, '/')) {
        reply_problem(r, PROBLEM_NOT_FOUND, "There is nothing at this path.");
        return;
    }
    /* Everything comes from this server; keys travel in the fragment, never in a request. */
    const char *headers[] = {"Cache-Control",
                             "no-cache",
                             "Content-Security-Policy",
                             "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                             "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
                             "Referrer-Policy",
                             "no-referrer",
                             NULL};
    reply_bytes(r, status, content_type(name), f->data, f->len, headers);
}

static void serve(struct req *r, const char *name)
{
    serve_status(r, 200, name);
}

void handle_index(struct req *r)
{
    serve(r, "index.html");
}

/* A browser's page at an address that is nothing (a link mistyped or cut short): the dashboard,
 * with 404, which tells the player so in words and where to go (app.js), not a problem in JSON.
 * A program asking for JSON, and every path under /api/, keeps the problem. */
bool static_not_found_page(struct req *r)
{
    const char *accept = req_header(r, "Accept");
    if ((strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0) || !accept ||
        !strstr(accept, "text/html") || strncmp(r->path, "/api/", 5) == 0)
        return false;
    serve_status(r, 404, "index.html");
    return true;
}

void handle_asset(struct req *r)
{
    serve(r, r->params[0]);
}

/* The service worker, at the root so that its scope is the whole dashboard. */
void handle_service_worker(struct req *r)
{
    serve(r, "sw.js");
}
