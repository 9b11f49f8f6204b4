/*
 * Campaigns held in memory, so that a write need not load its campaign (api/write.c), nor a
 * read load it again. An entry is the campaign exactly as this daemon's last write left it, or
 * as a read loaded it from the primary (campaign_read: one statement, one snapshot), with its
 * version and its grand campaign's version. Nothing here is trusted on its own: a write
 * that starts from an entry sends m44_campaign_at (migration 0009) as its first statement,
 * which takes the row lock and fails the transaction unless the database is at those versions
 * (another daemon, or a hand-made change, moved it on); the write then runs again from a
 * fresh load. Every change to a campaign moves its version, or its grand campaign's (what a
 * grand campaign changes in its campaigns: their keys on a re-issue, its name, its chat): the
 * grand campaign's version is checked too. Bounded: the least recently used entry goes first,
 * except that a read's campaign only ever takes an empty slot or one a read filled (a client
 * reading every campaign never pushes out what writes hold).
 */
#ifndef M44_CAMPAIGN_STATE_CACHE_H
#define M44_CAMPAIGN_STATE_CACHE_H

#include "campaign/campaign.h"

#include <stdbool.h>

/* Sets the number of campaigns held (0: none, every write loads). Call once before serving. */
void state_cache_init(long entries);
void state_cache_shutdown(void);

/* A copy of the campaign held for `id` into *c (emptied first), or false. */
bool state_cache_get(const char *id, struct campaign *c);
/* Holds a copy of c as a write left it (replacing what was held for its id, unless that is
 * a later state), in an empty slot or the one used longest ago. */
void state_cache_put(const struct campaign *c);
/* The same for a campaign a read loaded, which never pushes out a campaign a write holds: it
 * takes an empty slot or one that a read filled. */
void state_cache_offer(const struct campaign *c);
void state_cache_drop(const char *id);

/* How a write found its campaign: held and current, not held, or held but moved on; how a read
 * did (campaign_read): held and current, or loaded. */
enum state_use {
    STATE_HIT,
    STATE_MISS,
    STATE_STALE,
    STATE_READ_HIT,
    STATE_READ_LOADED,
    STATE_USES
};
void state_cache_note(enum state_use use);
struct state_cache_stats {
    unsigned long uses[STATE_USES];
    unsigned long entries, capacity;
};
void state_cache_stats(struct state_cache_stats *out);

#endif
