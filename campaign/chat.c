/* The group's chat: webhook URLs checked, messages written to the outbox (see chat.h). */
#include "campaign/chat.h"

#include "campaign/grand.h"
#include "db/store.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const KIND_NAMES[] = {"discord", "slack", "generic"};

const char *chat_kind_name(enum chat_kind k)
{
    return KIND_NAMES[k];
}

bool chat_kind_parse(const char *text, enum chat_kind *k)
{
    for (int i = 0; text && i < 3; i++)
        if (strcmp(text, KIND_NAMES[i]) == 0) {
            *k = (enum chat_kind)i;
            return true;
        }
    return false;
}

bool chat_url_check(const char *url, char host[CHAT_HOST_MAX], char *why, size_t whylen)
{
    host[0] = '\0';
    size_t len = url ? strlen(url) : 0;
    if (len == 0 || len > CHAT_URL_MAX) {
        snprintf(why, whylen, "A chat link is a web address of at most %d characters.",
                 CHAT_URL_MAX);
        return false;
    }
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f) {
            snprintf(why, whylen, "A chat link has no spaces or special characters.");
            return false;
        }
    const char *rest = NULL;
    if (strncasecmp(url, "https://", 8) == 0)
        rest = url + 8;
    else if (strncasecmp(url, "http://", 7) == 0)
        rest = url + 7;
    if (!rest) {
        snprintf(why, whylen, "A chat link starts with https:// (or http://).");
        return false;
    }
    /* The authority: [userinfo@]host[:port], up to the path, query or fragment. Only what
     * the sender reads the same way is taken: a name (so no second "@") or an IPv6 address in
     * brackets, a port from 1 to 65535. */
    size_t alen = strcspn(rest, "/?#");
    const char *at = memchr(rest, '@', alen);
    const char *h = at ? at + 1 : rest;
    size_t hlen = alen - (size_t)(h - rest);
    const char *port = NULL;
    if (hlen && h[0] == '[') { /* an IPv6 literal */
        const char *close = memchr(h, ']', hlen);
        char inner[INET6_ADDRSTRLEN + 1];
        size_t ilen = close ? (size_t)(close - h) - 1 : 0, after = 0;
        struct in6_addr a6;
        bool ok = close && ilen > 0 && ilen < sizeof inner;
        if (ok) {
            memcpy(inner, h + 1, ilen);
            inner[ilen] = '\0';
            after = hlen - (ilen + 2);
            ok = inet_pton(AF_INET6, inner, &a6) == 1 && (!after || close[1] == ':');
        }
        if (!ok) {
            snprintf(why, whylen, "The chat link's server address is not valid.");
            return false;
        }
        port = after ? close + 1 : NULL;
        hlen = ilen + 2;
    } else {
        const char *colon = memchr(h, ':', hlen);
        port = colon;
        if (colon)
            hlen = (size_t)(colon - h);
        for (size_t i = 0; i < hlen; i++)
            if (!isalnum((unsigned char)h[i]) && !strchr("-._", h[i])) {
                snprintf(why, whylen,
                         "The chat link's server name has only letters, digits, dots and "
                         "dashes.");
                return false;
            }
    }
    if (port) { /* ":" and its digits, to the end of the authority */
        size_t plen = (size_t)(rest + alen - port) - 1;
        long value = 0;
        for (size_t i = 1; i <= plen && value <= 65535; i++)
            value = isdigit((unsigned char)port[i]) ? value * 10 + (port[i] - '0') : 65536;
        if (plen == 0 || value < 1 || value > 65535) {
            snprintf(why, whylen, "The chat link's port is a number from 1 to 65535.");
            return false;
        }
    }
    if (hlen == 0 || hlen >= CHAT_HOST_MAX) {
        snprintf(why, whylen, "The chat link has no server name.");
        return false;
    }
    for (size_t i = 0; i < hlen; i++)
        host[i] = (char)tolower((unsigned char)h[i]);
    host[hlen] = '\0';
    return true;
}

static bool host_is(const char *host, const char *domain)
{
    size_t h = strlen(host), d = strlen(domain);
    return h == d ? strcmp(host, domain) == 0
                  : h > d && host[h - d - 1] == '.' && strcmp(host + h - d, domain) == 0;
}

enum chat_kind chat_kind_guess(const char *host)
{
    if (host_is(host, "discord.com") || host_is(host, "discordapp.com"))
        return CHAT_DISCORD;
    if (host_is(host, "hooks.slack.com"))
        return CHAT_SLACK;
    return CHAT_GENERIC;
}

void chat_faces(const enum face *f, int n, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(out);
        snprintf(out + l, len - l, "%s%s", i ? ", " : "", face_name(f[i]));
    }
}

/* A text cut to its buffer may end inside a character: that character goes. */
static void whole_characters(char *s)
{
    size_t n = strlen(s), i = n, tail = 0;
    while (tail < 4 && i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
        i--, tail++;
    if (i == 0)
        return;
    unsigned char lead = (unsigned char)s[i - 1];
    size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (tail + 1 < need)
        s[i - 1] = '\0';
}

/* Writes one message: `scope` is whose chat it is; `campaign_id` what it is about (or NULL). */
static enum cres tell(struct db *db, const char *scope, const char *campaign_id, const char *url,
                      enum chat_kind kind, json_t *campaign, json_t *grand, const char *event,
                      const char *whole)
{
    char text[CHAT_TEXT_MAX];
    snprintf(text, sizeof text, "%s", whole);
    whole_characters(text);
    json_t *m =
        json_pack("{s:s, s:s, s:o, s:o}", "event", event, "text", text, "campaign",
                  campaign ? campaign : json_null(), "grand_campaign", grand ? grand : json_null());
    char *body = m ? json_dumps(m, JSON_COMPACT) : NULL;
    json_decref(m);
    const char *p[] = {scope, campaign_id, url, chat_kind_name(kind), body};
    bool ok = body && db_outbox_insert(db, p);
    free(body);
    return ok ? C_OK : C_DBERR;
}

static json_t *about_campaign(const struct campaign *c)
{
    return json_pack("{s:s, s:s}", "id", c->id, "name", c->name);
}

static json_t *about_grand(const char *id, const char *name)
{
    return id && id[0] ? json_pack("{s:s, s:s}", "id", id, "name", name) : NULL;
}

enum cres chat_tell(struct db *db, const struct campaign *c, const char *event, const char *fmt,
                    ...)
{
    if (!c->webhook_url)
        return C_OK;
    char text[CHAT_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* A campaign without a chat of its own tells its grand campaign's, in that chat's order. */
    const char *scope = c->webhook_own ? c->id : c->grand_id;
    return tell(db, scope, c->id, c->webhook_url, c->webhook_kind, about_campaign(c),
                about_grand(c->grand_id, c->grand_name), event, text);
}

enum cres chat_tell_grand(struct db *db, const struct grand *g, const char *campaign_id,
                          const char *campaign_name, const char *event, const char *text)
{
    if (!g->webhook_url[0])
        return C_OK;
    json_t *campaign =
        campaign_id ? json_pack("{s:s, s:s}", "id", campaign_id, "name", campaign_name) : NULL;
    return tell(db, g->id, campaign_id, g->webhook_url, g->webhook_kind, campaign,
                about_grand(g->id, g->name), event, text);
}

enum cres chat_set(struct db *db, struct campaign *c, struct grand *g, const char *url,
                   enum chat_kind kind, struct cerr *e)
{
    char host[CHAT_HOST_MAX] = "", why[200];
    if (url && !chat_url_check(url, host, why, sizeof why))
        return refuse(e, PROBLEM_INVALID_FIELD, "url", "%s", why);
    const char *id = c ? c->id : g->id;
    const char *kind_name = url ? chat_kind_name(kind) : NULL;
    if (!db_chat_set(db, c == NULL, id, url, kind_name) ||
        !db_outbox_reroute(db, id, url, kind_name,
                           "not sent: the chat link was removed before it could be"))
        return C_DBERR;
    /* Each campaign's log says so, with the host only: the link itself is a secret. */
    json_t *detail = json_pack("{s:o, s:o}", "host", url ? json_string(host) : json_null(), "kind",
                               url ? json_string(kind_name) : json_null());
    enum cres rc = C_OK;
    if (c) {
        rc = campaign_log(db, c, "organizer", "chat_set", json_incref(detail));
    } else {
        for (int i = 0; i < g->nmembers && rc == C_OK; i++) {
            char *text = json_dumps(detail, JSON_COMPACT);
            if (!text || !db_log_insert(db, g->members[i].id, "organizer", "chat_set", text))
                rc = C_DBERR;
            free(text);
        }
        /* Their logs changed: their pages read them again. */
        if (rc == C_OK)
            rc = grand_members_touch(db, g, NULL);
    }
    json_decref(detail);
    if (rc != C_OK || !url)
        return rc;
    /* Greeted, so the group sees at once that the link works. */
    char text[CHAT_TEXT_MAX];
    if (c) {
        free(c->webhook_url);
        c->webhook_url = strdup(url);
        if (!c->webhook_url)
            return C_DBERR;
        c->webhook_kind = kind;
        c->webhook_own = true;
        snprintf(text, sizeof text,
                 "This chat now hears about %s: every roll, choice and result, as it happens.",
                 c->name);
        return chat_tell(db, c, "chat_set", "%s", text);
    }
    snprintf(g->webhook_url, sizeof g->webhook_url, "%s", url);
    g->webhook_kind = kind;
    snprintf(text, sizeof text,
             "This chat now hears about %s: every roll, choice and result of each of its "
             "campaigns, as it happens.",
             g->name);
    return chat_tell_grand(db, g, NULL, NULL, "chat_set", text);
}
