/*
 * The group's chat (README, "The group's chat"): a campaign or grand campaign may have a webhook
 * URL, set by the organizer. When a side rolls, chooses, or a result is recorded (and at every
 * other step of play), a short message in players' words is written to the outbox in the same
 * transaction as the action; a background worker delivers it (api/chat_delivery.c). An action
 * never waits for the chat, and never fails because of it.
 *
 * The URL is a secret (whoever has it can post to the group's chat): it is stored, and used to
 * deliver, but never shown back, logged, or exported; the campaign's log says only its host.
 */
#ifndef M44_CAMPAIGN_CHAT_H
#define M44_CAMPAIGN_CHAT_H

#include "campaign/campaign.h"

#include <stdarg.h>

#define CHAT_URL_MAX  2000
#define CHAT_HOST_MAX 256
#define CHAT_TEXT_MAX 600

/* Checks a webhook URL: http or https, a host, no spaces or control characters, at most
 * CHAT_URL_MAX bytes. Its host (lowercase) in `host`; false with the reason in `why`. */
bool chat_url_check(const char *url, char host[CHAT_HOST_MAX], char *why, size_t whylen);

/* The kind a host's webhooks take: Discord's and Slack's own, otherwise generic JSON. */
enum chat_kind chat_kind_guess(const char *host);

/*
 * Tells the campaign's chat, if it has one: `event` (reserve_roll, result...) and the text
 * (players' words) are written to the outbox in the caller's transaction. Without a chat,
 * nothing happens. C_DBERR only when the write fails.
 */
enum cres chat_tell(struct db *db, const struct campaign *c, const char *event, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));

/* The same in a grand campaign's chat, about one of its campaigns (campaign_id NULL: about the
 * grand campaign itself). */
struct grand;
enum cres chat_tell_grand(struct db *db, const struct grand *g, const char *campaign_id,
                          const char *campaign_name, const char *event, const char *text);

/*
 * Sets the chat of a campaign (`grand` NULL) or of a grand campaign (`c` NULL), or removes it
 * (url NULL). Messages not yet delivered go to the new URL, or, when it is removed, are not
 * sent. A new chat is greeted with a first message, so the group sees it works. Logged as
 * chat_set with the host only.
 */
enum cres chat_set(struct db *db, struct campaign *c, struct grand *g, const char *url,
                   enum chat_kind kind, struct cerr *e);

/* "armor, star" */
void chat_faces(const enum face *f, int n, char *out, size_t len);

#endif
