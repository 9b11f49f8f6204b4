#include "api/clients.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_TRUSTED 32

/* An address as 16 bytes: IPv4 as its IPv4-mapped IPv6 form, so one comparison serves both. */
struct addr16 {
    uint8_t b[16];
};

struct net {
    struct addr16 a;
    int bits; /* prefix length over the 16 bytes */
};

static struct net trusted[MAX_TRUSTED];
static int ntrusted;

static void mapped_v4(const uint8_t v4[4], struct addr16 *out)
{
    memset(out->b, 0, 10);
    out->b[10] = out->b[11] = 0xff;
    memcpy(out->b + 12, v4, 4);
}

static bool is_mapped_v4(const struct addr16 *a)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(a->b, prefix, sizeof prefix) == 0;
}

/* A bare address ("192.0.2.1", "2001:db8::1"); false when it is not one. */
static bool parse_addr(const char *s, size_t len, struct addr16 *out)
{
    char buf[INET6_ADDRSTRLEN + 1];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    uint8_t v4[4];
    if (inet_pton(AF_INET, buf, v4) == 1) {
        mapped_v4(v4, out);
        return true;
    }
    return inet_pton(AF_INET6, buf, out->b) == 1;
}

static bool from_sockaddr(const struct sockaddr *sa, struct addr16 *out)
{
    if (sa && sa->sa_family == AF_INET) {
        mapped_v4((const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr, out);
        return true;
    }
    if (sa && sa->sa_family == AF_INET6) {
        memcpy(out->b, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return true;
    }
    return false;
}

static bool in_net(const struct addr16 *a, const struct net *n)
{
    int full = n->bits / 8, rest = n->bits % 8;
    if (memcmp(a->b, n->a.b, (size_t)full) != 0)
        return false;
    if (!rest)
        return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (a->b[full] & mask) == (n->a.b[full] & mask);
}

static bool is_trusted(const struct addr16 *a)
{
    for (int i = 0; i < ntrusted; i++)
        if (in_net(a, &trusted[i]))
            return true;
    return false;
}

bool clients_set_trusted(const char *list, char *err, size_t errlen)
{
    ntrusted = 0;
    const char *p = list;
    while (p && *p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *end = p + strcspn(p, ", ");
        const char *slash = memchr(p, '/', (size_t)(end - p));
        size_t alen = (size_t)((slash ? slash : end) - p);
        struct net n;
        bool ok = ntrusted < MAX_TRUSTED && parse_addr(p, alen, &n.a);
        bool v4 = ok && is_mapped_v4(&n.a);
        n.bits = 128;
        if (ok && slash) {
            char *e;
            long bits = strtol(slash + 1, &e, 10);
            ok = e == end && e > slash + 1 && bits >= 0 && bits <= (v4 ? 32 : 128);
            n.bits = v4 ? 96 + (int)bits : (int)bits;
        }
        if (!ok) {
            snprintf(err, errlen, "\"%.*s\" is not an address or ADDR/PREFIX range%s",
                     (int)(end - p), p, ntrusted >= MAX_TRUSTED ? " (at most 32 entries)" : "");
            ntrusted = 0;
            return false;
        }
        trusted[ntrusted++] = n;
        p = end;
    }
    return true;
}

bool clients_peer_trusted(const struct sockaddr *sa)
{
    struct addr16 a;
    return ntrusted > 0 && from_sockaddr(sa, &a) && is_trusted(&a);
}

/* An IPv4 address is written by hand: it is every request's (inet_ntop formats it with
 * sprintf). */
static void addr_text(const struct addr16 *a, char *out, size_t outlen)
{
    char buf[INET6_ADDRSTRLEN];
    if (is_mapped_v4(a)) {
        char *p = buf;
        for (int i = 12; i < 16; i++) {
            unsigned v = a->b[i];
            if (v >= 100)
                *p++ = (char)('0' + v / 100);
            if (v >= 10)
                *p++ = (char)('0' + v / 10 % 10);
            *p++ = (char)('0' + v % 10);
            *p++ = i < 15 ? '.' : '\0';
        }
    } else if (!inet_ntop(AF_INET6, a->b, buf, sizeof buf)) {
        buf[0] = '\0';
    }
    size_t n = strlen(buf);
    if (outlen == 0)
        return;
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, buf, n);
    out[n] = '\0';
}

/* One X-Forwarded-For entry: an address, "[v6]" or "[v6]:port", or "v4:port". */
static bool parse_forwarded(const char *s, size_t len, struct addr16 *out)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len > 2 && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        return close && parse_addr(s + 1, (size_t)(close - s - 1), out);
    }
    if (parse_addr(s, len, out))
        return true;
    const char *colon = memchr(s, ':', len);
    return colon && !memchr(colon + 1, ':', len - (size_t)(colon - s) - 1) &&
           parse_addr(s, (size_t)(colon - s), out) && is_mapped_v4(out);
}

/* The X-Forwarded-For headers joined in order with commas; only their last XFF_KEEP bytes are
 * kept (whole entries), since the walk reads from the right and the proxies' entries are there:
 * a client cannot push them out with a long header of its own. */
#define XFF_KEEP 4096
struct xff {
    char text[XFF_KEEP + 1];
    size_t len;
};

static void xff_append(struct xff *x, const char *s, size_t n)
{
    if (n >= XFF_KEEP) { /* only its end can fit */
        s += n - (XFF_KEEP - 1);
        n = XFF_KEEP - 1;
        x->len = 0;
    }
    if (x->len + n > XFF_KEEP) { /* drop entries from the left until it fits */
        size_t drop = x->len + n - XFF_KEEP;
        memmove(x->text, x->text + drop, x->len - drop);
        x->len -= drop;
    }
    memcpy(x->text + x->len, s, n);
    x->len += n;
    x->text[x->len] = '\0';
}

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    struct xff *x = cls;
    if (strcasecmp(key, "X-Forwarded-For") != 0 || !value)
        return MHD_YES;
    if (x->len)
        xff_append(x, ",", 1);
    xff_append(x, value, strlen(value));
    return MHD_YES;
}

/* The joined length of the X-Forwarded-For headers (to know whether the left was cut). */
static enum MHD_Result count_xff(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    (void)kind;
    size_t *total = cls;
    if (strcasecmp(key, "X-Forwarded-For") == 0 && value)
        *total += strlen(value) + (*total ? 1 : 0);
    return MHD_YES;
}

/* After cutting from the left, the first entry may be a fragment: it is dropped. */
static const char *xff_text(struct xff *x, bool cut)
{
    if (!x->len)
        return NULL;
    if (!cut)
        return x->text;
    const char *comma = strchr(x->text, ',');
    return comma ? comma + 1 : NULL;
}

void clients_resolve(const struct sockaddr *peer, const char *xff, char *out, size_t outlen)
{
    out[0] = '\0';
    struct addr16 client;
    if (!from_sockaddr(peer, &client))
        return;
    if (ntrusted > 0 && is_trusted(&client) && xff) {
        /* From the right: past each trusted proxy, to the first address that is not one.
         * An entry that is not an address ends the walk at the last good one. */
        size_t end = strlen(xff);
        while (end > 0) {
            size_t start = end;
            while (start > 0 && xff[start - 1] != ',')
                start--;
            struct addr16 a;
            if (!parse_forwarded(xff + start, end - start, &a))
                break;
            client = a;
            if (!is_trusted(&a))
                break;
            end = start ? start - 1 : 0;
        }
    }
    addr_text(&client, out, outlen);
}

void clients_address(struct MHD_Connection *conn, char *out, size_t outlen)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *peer = ci ? ci->client_addr : NULL;
    struct xff x = {.len = 0};
    size_t total = 0;
    if (clients_peer_trusted(peer)) {
        MHD_get_connection_values(conn, MHD_HEADER_KIND, count_xff, &total);
        MHD_get_connection_values(conn, MHD_HEADER_KIND, collect, &x);
    }
    clients_resolve(peer, xff_text(&x, total > x.len), out, outlen);
}

static void key_of(const struct addr16 *a, struct client_key *k)
{
    memset(k, 0, sizeof *k);
    if (is_mapped_v4(a)) {
        k->b[0] = 4;
        memcpy(k->b + 1, a->b + 12, 4);
    } else {
        k->b[0] = 6;
        memcpy(k->b + 1, a->b, 8); /* the /64 */
    }
}

bool client_key_text(const char *text, struct client_key *k)
{
    struct addr16 a;
    if (!parse_addr(text, strlen(text), &a)) {
        memset(k, 0, sizeof *k);
        return false;
    }
    key_of(&a, k);
    return true;
}

bool client_key_sockaddr(const struct sockaddr *sa, struct client_key *k)
{
    struct addr16 a;
    if (!from_sockaddr(sa, &a)) {
        memset(k, 0, sizeof *k);
        return false;
    }
    key_of(&a, k);
    return true;
}

/* ---- counts per key ---- */

struct count_entry {
    struct client_key k;
    long n;
    struct count_entry *next;
};

#define COUNT_SLOTS 4096

static size_t slot_of(const struct client_key *k)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < sizeof k->b; i++)
        h = (h ^ k->b[i]) * 1099511628211ULL;
    return (size_t)(h % COUNT_SLOTS);
}

bool client_counts_add(struct client_counts *c, const struct client_key *k, int delta, long limit)
{
    bool added = false;
    pthread_mutex_lock(&c->lock);
    if (!c->slots) {
        c->slots = calloc(COUNT_SLOTS, sizeof *c->slots);
        c->nslots = c->slots ? COUNT_SLOTS : 0;
    }
    if (!c->slots)
        goto out;
    struct count_entry **p = &c->slots[slot_of(k)];
    while (*p && memcmp((*p)->k.b, k->b, sizeof k->b) != 0)
        p = &(*p)->next;
    long now = *p ? (*p)->n : 0;
    if (limit >= 0 && delta > 0 && now + delta > limit)
        goto out;
    if (!*p) {
        if (delta <= 0)
            goto out;
        struct count_entry *e = calloc(1, sizeof *e);
        if (!e)
            goto out;
        e->k = *k;
        *p = e;
    }
    (*p)->n += delta;
    added = true;
    if ((*p)->n <= 0) {
        struct count_entry *e = *p;
        *p = e->next;
        free(e);
    }
out:
    pthread_mutex_unlock(&c->lock);
    return added;
}

long client_counts_get(struct client_counts *c, const struct client_key *k)
{
    long n = 0;
    pthread_mutex_lock(&c->lock);
    for (struct count_entry *e = c->slots ? c->slots[slot_of(k)] : NULL; e; e = e->next)
        if (memcmp(e->k.b, k->b, sizeof k->b) == 0)
            n = e->n;
    pthread_mutex_unlock(&c->lock);
    return n;
}
