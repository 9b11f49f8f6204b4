/* The dashboard: GET /, GET /c/{id} (a campaign's page) and GET /assets/{file}. */
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

static void serve(struct req *r, const char *name)
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
    reply_bytes(r, 200, content_type(name), f->data, f->len, headers);
}

void handle_index(struct req *r)
{
    serve(r, "index.html");
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
