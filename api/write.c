#include "api/write.h"
#include "api/common.h"
#include "api/chat_delivery.h"
#include "api/router.h"
#include "api/server.h"
#include "api/views.h"
#include "api/waiters.h"

#include "campaign/state_cache.h"
#include "db/listener.h"
#include "db/store.h"
#include "util/log.h"

#include <stdarg.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void etag_of(long long version, char *buf, size_t len)
{
    snprintf(buf, len, "\"%lld\"", version);
}

const char *bearer_key(const struct req *r, char *buf, size_t len)
{
    const char *h = req_header(r, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return NULL;
    h += 7;
    while (*h == ' ')
        h++;
    size_t n = strlen(h);
    while (n && h[n - 1] == ' ')
        n--;
    if (n == 0 || n >= len)
        return NULL;
    memcpy(buf, h, n);
    buf[n] = '\0';
    return buf;
}

bool check_campaign_id(struct req *r)
{
    /* The router's copy of the parameter, which this may rewrite. */
    char *id = r->param_buf + (r->params[0] - r->param_buf);
    char canonical[CAMPAIGN_ID_LEN + 1];
    if (!canonical_uuid(id, canonical)) {
        bool grand = r->route && strncmp(r->route->pattern, "/api/v1/grand-", 14) == 0;
        reply_problem(r, PROBLEM_NOT_FOUND, "There is no %s with that id.",
                      grand ? "grand campaign" : "campaign");
        return false;
    }
    memcpy(id, canonical, sizeof canonical);
    return true;
}

int path_battle(struct req *r, const char *text)
{
    char *end;
    long n = strtol(text, &end, 10);
    if (*end || end == text || n < 1 || n > MAX_BATTLES || text[0] == '+' || text[0] == '0') {
        reply_problem(r, PROBLEM_NOT_FOUND, "There is no battle with that number.");
        return -1;
    }
    return (int)n;
}

void reply_cerr(struct req *r, const struct cerr *e)
{
    json_t *extra = json_object();
    if (e->field[0])
        json_object_set_new(extra, "field", json_string(e->field));
    if (e->phase)
        json_object_set_new(extra, "phase", json_string(e->phase));
    reply_problem_extra(r, e->code, extra, "%s", e->detail);
}

/* SHA-256 over what makes two requests the same: method, path, role, the key that sent it,
 * body. The key is in it so that an answer is only ever given again to the key it was given to:
 * a key a re-issue replaced gets its own lost answers, never one given to the key that replaced
 * it (which may hold a new key for another role). */
static void request_hash(const struct req *r, enum role role, const char *key, char out[65])
{
    crypto_hash_sha256_state st;
    uint8_t h[32];
    crypto_hash_sha256_init(&st);
    const char *parts[] = {r->method,       "\n", r->path,        "\n",
                           role_name(role), "\n", key ? key : "", "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        crypto_hash_sha256_update(&st, (const unsigned char *)parts[i], strlen(parts[i]));
    if (r->body)
        crypto_hash_sha256_update(&st, (const unsigned char *)r->body, r->body_len);
    crypto_hash_sha256_final(&st, h);
    sodium_bin2hex(out, 65, h, sizeof h);
}

static bool if_match_ok(const char *header, const char *etag)
{
    if (!header)
        return true;
    if (strcmp(header, "*") == 0)
        return true;
    /* A list of entity tags: any may match. Weak ones compare by their opaque part, though
     * RFC 9110 13.1.1 asks for a strong comparison: a proxy that compresses the answer (nginx
     * with gzip, as deploy/nginx has it for JSON) hands the page W/"12" for "12", and the page
     * sends back what it was given. Our tags name a version, never bytes, so both mean it. */
    const char *p = header;
    size_t elen = strlen(etag);
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        if (strncmp(p, etag, elen) == 0 && (p[elen] == '\0' || p[elen] == ',' || p[elen] == ' '))
            return true;
        while (*p && *p != ',')
            p++;
    }
    return false;
}

static enum db_tx refuse_tx(struct write_ctx *w, enum problem_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum db_tx refuse_tx(struct write_ctx *w, enum problem_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    w->err.code = code;
    w->err.field[0] = '\0';
    w->err.phase = NULL;
    vsnprintf(w->err.detail, sizeof w->err.detail, fmt, ap);
    va_end(ap);
    return DB_TX_ABORT;
}

/* The version of what was written (the ETag of the reply), or 1 for a creation. */
static long long write_version(const struct write_ctx *w)
{
    return w->op->campaign ? w->c->version
           : w->op->grand  ? w->g->version
           : w->version    ? w->version
                           : 1;
}

/* After a commit: this daemon reads its own write at once, before its listener sees it
 * (what it changed without knowing the new version is read again), and the long polls on it
 * wake; on a campaign of a grand campaign, those on the grand one too. The campaigns of a grand
 * campaign that the action moved besides (a new key, a chat link: g->members_moved) are read
 * again and woken alike; a write that moved none of them (the next campaign started) leaves
 * them as they are. */
static void changed(const struct write_ctx *w, unsigned long ticket)
{
    if (w->op->campaign) {
        listener_wrote(ticket, w->c->id, VK_CAMPAIGN, w->c->version);
        waiters_changed(w->c->id);
        if (w->c->grand_id[0]) {
            listener_doubt(w->c->grand_id);
            waiters_changed(w->c->grand_id);
        }
    }
    if (w->op->grand) {
        listener_wrote(ticket, w->g->id, VK_GRAND, w->g->version);
        waiters_changed(w->g->id);
    }
    for (int i = 0; w->g && w->g->members_moved && i < w->g->nmembers; i++)
        if (!w->op->campaign || strcmp(w->g->members[i].id, w->c->id) != 0) {
            listener_doubt(w->g->members[i].id);
            waiters_changed(w->g->members[i].id);
        }
}

/* A key that a re-issue replaced: said so, for the person holding the old link. */
static enum db_tx refuse_replaced(struct write_ctx *w, enum role role)
{
    refuse_key(&w->err, NULL, role, NULL);
    return DB_TX_ABORT;
}

/* The campaign as the write starts from it: the one held in memory, at the versions the first
 * statement checks (on the first attempt), or loaded and locked. */
static enum cres start_from(struct db *db, struct write_ctx *w)
{
    const char *id = w->r->params[0];
    if (w->held) {
        /* The attempt that started from the held campaign failed: this one loads it, and so
         * does the next write, unless only the key was answered (the campaign held was
         * current: its version bump went first). */
        if (strcmp(db_last_sqlstate(db), DB_SQLSTATE_MOVED_ON) == 0)
            state_cache_note(STATE_STALE);
        if (strcmp(db_last_sqlstate(db), DB_SQLSTATE_KEY_ANSWERED) == 0)
            state_cache_note(STATE_HIT); /* found current: only the key sends it to a load */
        else
            state_cache_drop(id);
        w->held = false;
    }
    bool first = !w->first_done;
    w->first_done = true;
    if (!w->op->reloads && first && state_cache_get(id, w->c)) {
        char version[24], grand_version[24];
        snprintf(version, sizeof version, "%lld", w->c->version);
        snprintf(grand_version, sizeof grand_version, "%lld", w->c->grand_version);
        w->held = true;
        /* Without a grand campaign, a write that reads nothing more sends its version bump
         * first, in place of this check (campaign_save). */
        w->c->optimistic = !w->c->grand_id[0];
        return db_campaign_at(db, w->c->id, version, w->c->grand_id[0] ? grand_version : NULL)
                   ? C_OK
                   : C_DBERR;
    }
    if (!w->op->reloads && first)
        state_cache_note(STATE_MISS);
    return campaign_load(db, id, true, w->c, &w->err);
}

/* --check-state: the campaign as the write left it in memory against the same campaign loaded
 * now, in the transaction (which sees what it wrote). A difference fails the write. */
static enum db_tx check_state(struct db *db, struct write_ctx *w)
{
    return check_held_state(db, w->r, w->c, true) == C_OK ? DB_TX_OK : DB_TX_ERROR;
}

/* --idempotency-ttl, as the statements take it. */
static void idem_ttl(char ttl[16])
{
    snprintf(ttl, 16, "%u", http_options()->idempotency_ttl);
}

/* The lookup of the request's Idempotency-Key (derived into w->idem, its request's hash in
 * w->request_hash): DB_TX_OK for a key not seen (within its time to live); DB_TX_ABORT with the
 * stored answer to replay (w->replay), or with a refusal (a key used for another request, or a
 * key a re-issue replaced, `replaced`); DB_TX_ERROR. */
static enum db_tx key_lookup(struct db *db, struct write_ctx *w, enum role replaced)
{
    struct idem *ik = &w->idem;
    const char *hash = w->request_hash;
    char ttl[16];
    idem_ttl(ttl);
    PGresult *res = db_idem_get(db, ik->id_hex, ttl);
    if (!res)
        return DB_TX_ERROR;
    if (PQntuples(res) != 1) {
        PQclear(res);
        return DB_TX_OK;
    }
    bool same = strcmp(PQgetvalue(res, 0, 0), hash) == 0;
    if (same && replaced != ROLE_NONE && w->op->returns_keys &&
        !(w->op->reissues && *w->op->reissues == replaced)) {
        PQclear(res);
        return refuse_replaced(w, replaced);
    }
    if (same) {
        w->replay_body = idem_open(ik, PQgetvalue(res, 0, 2));
        w->replay_status = atoi(PQgetvalue(res, 0, 1));
        snprintf(w->replay_etag, sizeof w->replay_etag, "%s", PQgetvalue(res, 0, 3));
        snprintf(w->replay_location, sizeof w->replay_location, "%s", PQgetvalue(res, 0, 4));
    }
    PQclear(res);
    if (same && !w->replay_body) {
        log_msg(LOG_ERROR, "http", "a stored response for an Idempotency-Key does not open");
        return DB_TX_ERROR;
    }
    if (same) {
        w->replay = true;
        return DB_TX_ABORT; /* nothing new is written */
    }
    if (replaced != ROLE_NONE)
        return refuse_replaced(w, replaced);
    return refuse_tx(w, PROBLEM_IDEMPOTENCY_KEY_REUSED,
                     "This Idempotency-Key was used for a different request; use a new key for "
                     "a new request.");
}

/* A refusal, or an answer without a write, decided while the key's lookup waited
 * (w->key_later): an answer stored for the key goes before it, as when the key is looked up
 * first. */
static enum db_tx key_first(struct db *db, struct write_ctx *w)
{
    struct cerr kept = w->err;
    enum db_tx rc = key_lookup(db, w, w->replaced);
    if (rc == DB_TX_OK) {
        w->err = kept;
        return DB_TX_ABORT;
    }
    w->unchanged = false; /* the stored answer, or the key's refusal, is the answer */
    return rc;
}

static enum db_tx tx_body(struct db *db, struct write_ctx *w);

static enum db_tx tx(struct db *db, void *arg)
{
    struct write_ctx *w = arg;
    enum db_tx rc = tx_body(db, w);
    if (rc == DB_TX_ABORT && w->key_later)
        rc = key_first(db, w);
    /* A refusal or a replay decided on the campaign held in memory stands only once the
     * database has confirmed that campaign current: the version check is sent now. If it
     * fails, the transaction runs again from a fresh load. */
    if (rc == DB_TX_ABORT && w->held && !db_flush(db))
        return DB_TX_ERROR;
    return rc;
}

static enum db_tx tx_body(struct db *db, struct write_ctx *w)
{
    struct req *r = w->r;
    json_decref(w->body);
    w->body = NULL;
    free(w->replay_body);
    w->replay_body = NULL;
    w->replay = false;
    w->unchanged = false;
    w->status = 0;
    w->location[0] = '\0';
    w->role = ROLE_NONE;
    w->key_later = false;
    if (w->g) /* what an earlier attempt moved is not this one's */
        w->g->members_moved = false;
    const char *scope = "";
    enum role replaced = ROLE_NONE;
    char keybuf[KEY_TEXT_LEN + 8];
    const char *key = bearer_key(r, keybuf, sizeof keybuf);

    if (w->op->campaign) {
        if (w->op->battle > 0) {
            /* As the battle's number will be written when it is read. */
            char num[16];
            snprintf(num, sizeof num, "%d", w->op->battle);
            db_battle_detail_prefetch(db, r->params[0], num);
        }
        /* Its grand campaign's campaigns, this one among them, before this one alone. */
        if (w->op->grand_wide && !db_grand_lock_members_of(db, r->params[0]))
            return DB_TX_ERROR;
        enum cres rc = start_from(db, w);
        if (rc != C_OK)
            return rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
        scope = w->c->id;
        w->role = campaign_role(w->c, key);
        /* A key a re-issue replaced may only have its own earlier answers replayed (below). */
        replaced = w->role == ROLE_NONE ? campaign_replaced_role(w->c, key) : ROLE_NONE;
    } else if (w->op->grand) {
        enum cres rc = grand_load(db, r->params[0], true, w->g, &w->err);
        if (rc != C_OK)
            return rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
        scope = w->g->id;
        w->role = grand_role(w->g, key);
        replaced = w->role == ROLE_NONE ? grand_replaced_role(w->g, key) : ROLE_NONE;
    }
    if (w->op->campaign || w->op->grand) {
        if (w->op->need != NEED_NONE) {
            if (!req_header(r, "Authorization"))
                return refuse_tx(w, PROBLEM_UNAUTHORIZED,
                                 "Send this campaign's key: Authorization: Bearer <key>.");
            if (w->role == ROLE_NONE && replaced == ROLE_NONE) {
                refuse_key(&w->err, key ? key : "", ROLE_NONE,
                           w->op->campaign ? "campaign" : "grand campaign");
                return DB_TX_ABORT;
            }
            if (w->role != ROLE_NONE && w->op->need == NEED_ORGANIZER && w->role != ROLE_ORGANIZER)
                return refuse_tx(w, PROBLEM_FORBIDDEN,
                                 "Only the organizer may do this; this is the %s key.",
                                 side_title(role_side(w->role)));
            if (w->role != ROLE_NONE && w->op->need == NEED_SIDE && w->role == ROLE_ORGANIZER)
                return refuse_tx(w, PROBLEM_FORBIDDEN,
                                 "A side acts with its own key; this is the organizer's key.");
            if (w->role != ROLE_NONE && w->op->need == NEED_SIDE && w->op->names_side &&
                role_side(w->role) != w->op->side)
                return refuse_tx(w, PROBLEM_FORBIDDEN,
                                 "This is the %s key; it cannot act for the %s.",
                                 side_title(role_side(w->role)), side_title(w->op->side));
        }
    }
    const char *idem = req_header(r, "Idempotency-Key");
    struct idem *ik = &w->idem;
    if (idem) {
        /* A campaign's requests share its scope; creation and import are scoped by route and
         * client, so two clients' keys never meet by accident. */
        char scope_buf[200];
        bool scoped = w->op->campaign || w->op->grand;
        if (!scoped)
            snprintf(scope_buf, sizeof scope_buf, "%s %s|%s", r->method, r->route->pattern,
                     r->client);
        idem_derive(scoped ? scope : scope_buf, idem, ik);
        request_hash(r, w->role != ROLE_NONE ? w->role : replaced, key, w->request_hash);
        if (!scoped && db_idem_lock(db, ik->id_hex) < 0)
            return DB_TX_ERROR;
        /* On a campaign held in memory, the key is taken as new, and the write goes to the
         * database in one round trip: its lookup, a read, would be a round trip of its own
         * before the write. The answer is then stored only if none is for this key, else the
         * transaction fails (db_idem_insert_new), and runs again from a load with the key
         * looked up first; a refusal (a key a re-issue replaced among them), or an answer
         * without a write, looks it up before it is given (key_first, in tx). */
        w->key_later = w->held;
        w->replaced = replaced;
        if (!w->key_later) {
            enum db_tx rc = key_lookup(db, w, replaced);
            if (rc != DB_TX_OK)
                return rc;
        }
    }
    if (replaced != ROLE_NONE)
        return refuse_replaced(w, replaced);
    if (w->op->campaign || w->op->grand) {
        char etag[40];
        etag_of(w->op->campaign ? w->c->version : w->g->version, etag, sizeof etag);
        if (!if_match_ok(req_header(r, "If-Match"), etag))
            return refuse_tx(w, PROBLEM_PRECONDITION_FAILED,
                             "The campaign is now at version %s; read it again before writing.",
                             etag);
    }
    enum cres rc = w->op->action(db, w);
    if (rc != C_OK)
        return rc == C_REFUSED ? DB_TX_ABORT : DB_TX_ERROR;
    if (w->unchanged)
        return DB_TX_ABORT; /* answered as it is, nothing written */
    /* What the action wrote carries its log entry (for an undo); then the campaign's row. */
    if (w->op->campaign && (campaign_stamp(db, w->c) != C_OK || campaign_save(db, w->c) != C_OK))
        return DB_TX_ERROR;
    if (w->op->grand && grand_save(db, w->g) != C_OK)
        return DB_TX_ERROR;
    if (w->op->reply_standing) {
        json_t *standing = view_campaign(db, w->c);
        if (!standing)
            return DB_TX_ERROR;
        json_object_update(standing, w->body);
        json_decref(w->body);
        w->body = standing;
    }
    if (idem) {
        char *body = json_dumps(w->body, JSON_COMPACT);
        char *sealed = body ? idem_seal(ik, body, strlen(body)) : NULL;
        char status[8], etag[40];
        snprintf(status, sizeof status, "%d", w->status);
        etag_of(write_version(w), etag, sizeof etag);
        const char *p[] = {
            ik->id_hex, w->request_hash, status, sealed, etag, w->location[0] ? w->location : NULL};
        char ttl[16];
        idem_ttl(ttl);
        bool queued =
            sealed && (w->key_later ? db_idem_insert_new(db, p, ttl) : db_idem_insert(db, p));
        free(sealed);
        /* Keep the exact bytes for the reply too, so a replay is identical. */
        w->replay_body = body;
        if (!queued)
            return DB_TX_ERROR;
    }
    /* Last, so that its reads go with every write, the key's answer among them (which goes
     * right after the version check: see db_idem_insert_new). */
    if (w->op->campaign && !w->op->reloads && http_options()->check_state &&
        check_state(db, w) != DB_TX_OK)
        return DB_TX_ERROR;
    return DB_TX_OK;
}

void write_run(struct req *r, const struct write_op *op)
{
    const char *idem = req_header(r, "Idempotency-Key");
    if (idem) {
        size_t n = strlen(idem);
        bool ok = n >= 1 && n <= IDEM_KEY_MAX;
        for (size_t i = 0; ok && i < n; i++)
            ok = idem[i] >= 0x20 && idem[i] < 0x7f;
        if (!ok) {
            reply_problem_extra(
                r, PROBLEM_INVALID_PARAMETER, json_pack("{s:s}", "field", "Idempotency-Key"),
                "Idempotency-Key must be 1 to %d printable ASCII characters.", IDEM_KEY_MAX);
            return;
        }
        if (op->returns_keys && n < IDEM_KEY_MIN_SECRET) {
            reply_problem_extra(r, PROBLEM_INVALID_PARAMETER,
                                json_pack("{s:s}", "field", "Idempotency-Key"),
                                "This answer holds the campaign's keys, and the Idempotency-Key "
                                "can fetch it again: it must be at least %d characters (a UUID, "
                                "or 16 random bytes in hex), so that nobody can guess it.",
                                IDEM_KEY_MIN_SECRET);
            return;
        }
    }
    if ((op->campaign || op->grand) && !check_campaign_id(r))
        return;
    struct write_ctx w = {.r = r, .op = op};
    if ((op->campaign && !(w.c = campaign_new())) ||
        ((op->grand || op->grand_wide) && !(w.g = calloc(1, sizeof *w.g)))) {
        campaign_free(w.c);
        reply_problem(r, PROBLEM_INTERNAL, "Out of memory.");
        return;
    }
    unsigned long ticket = listener_ticket();
    enum db_result res = db_transaction(db_thread(), tx, &w);
    char etag[40];
    switch (res) {
    case DB_OK: {
        db_note_write_ok();
        /* Held before this thread wakes the readers of the new version, so that they usually
         * render from it (the listener may see the change and wake them first). */
        if (w.c)
            w.c->optimistic = false; /* the next write decides for itself */
        if (op->campaign && !op->reloads)
            state_cache_put(w.c);
        else if (op->campaign)
            state_cache_drop(w.c->id);
        changed(&w, ticket);
        if (op->campaign && w.held)
            state_cache_note(STATE_HIT);
        /* What it told the group's chat goes out now. */
        if ((op->campaign && w.c->webhook_url) || (op->grand && w.g->webhook_url[0]))
            chat_delivery_wake();
        etag_of(write_version(&w), etag, sizeof etag);
        const char *headers[] = {"ETag", etag, "Location", w.location[0] ? w.location : NULL, NULL};
        if (w.replay_body) {
            reply_bytes(r, w.status, "application/json", w.replay_body, strlen(w.replay_body),
                        headers);
        } else {
            reply_json_headers(r, w.status, w.body, headers);
            w.body = NULL;
        }
        break;
    }
    case DB_ABORTED:
        if (op->campaign && w.held)
            state_cache_note(STATE_HIT);
        if (w.replay) {
            const char *headers[] = {"ETag",
                                     w.replay_etag[0] ? w.replay_etag : NULL,
                                     "Location",
                                     w.replay_location[0] ? w.replay_location : NULL,
                                     "Idempotent-Replayed",
                                     "true",
                                     NULL};
            reply_bytes(r, w.replay_status, "application/json", w.replay_body,
                        strlen(w.replay_body), headers);
        } else if (w.unchanged) {
            etag_of(write_version(&w), etag, sizeof etag);
            const char *headers[] = {"ETag", etag, NULL};
            reply_json_headers(r, w.status, w.body, headers);
            w.body = NULL;
        } else {
            reply_cerr(r, &w.err);
        }
        break;
    case DB_UNAVAILABLE:
        reply_problem_retry(r, PROBLEM_UNAVAILABLE, 2,
                            "The database is unavailable; nothing was changed. Retry with the "
                            "same Idempotency-Key.");
        break;
    case DB_UNKNOWN:
        /* Never "nothing was changed": the COMMIT may have been carried out. The same request
         * with the same Idempotency-Key gets the stored answer if it was, or does it now. */
        if (idem)
            reply_problem_retry(r, PROBLEM_OUTCOME_UNKNOWN, 2,
                                "The connection to the database broke while this was being "
                                "saved: it may or may not have been done. Send the same "
                                "request again with the same Idempotency-Key to find out.");
        else
            reply_problem_retry(r, PROBLEM_OUTCOME_UNKNOWN, 2,
                                "The connection to the database broke while this was being "
                                "saved: it may or may not have been done. Read the campaign to "
                                "see; next time send an Idempotency-Key, and a retry will tell.");
        break;
    case DB_REFUSED:
        log_msg(LOG_WARN, "http", "%s %s: the database refuses writes [%s] %s", r->method, r->path,
                db_last_sqlstate(db_thread()), db_last_error(db_thread()));
        reply_problem_retry(r, PROBLEM_READ_ONLY, 30,
                            "The database refuses changes for now (read-only or full); nothing "
                            "was changed. Retry later with the same Idempotency-Key.");
        break;
    case DB_FAILED:
        log_msg(LOG_ERROR, "http", "%s %s: database error [%s] %s", r->method, r->path,
                db_last_sqlstate(db_thread()), db_last_error(db_thread()));
        reply_problem(r, PROBLEM_INTERNAL,
                      "A database error stopped the request; nothing was "
                      "changed.");
        break;
    }
    if (op->campaign && res != DB_OK && res != DB_ABORTED)
        state_cache_drop(r->params[0]); /* what the database holds is not known */
    json_decref(w.body);
    free(w.replay_body);
    campaign_free(w.c);
    free(w.g);
    idem_forget(&w.idem);
    sodium_memzero(w.request_hash, sizeof w.request_hash);
}
