/*
 * Grand campaigns (RULES.md 8, API.md "Grand campaigns"): campaigns played in a fixed order by
 * one group, with one set of keys. Each campaign is an ordinary campaign that names its grand
 * campaign and shares its keys; What-if events are rolled before each one when on. Each
 * finished campaign is graded (grand ruleset data) and earns points; the grand campaign's
 * winner has more points (ties: battles won, then medals, over all its campaigns).
 */
#ifndef M44_CAMPAIGN_GRAND_H
#define M44_CAMPAIGN_GRAND_H

#include "campaign/campaign.h"
#include "campaign/chat.h"
#include "campaign/grand_rulesets.h"

struct grand_member {
    char id[CAMPAIGN_ID_LEN + 1];
    int index; /* from 1 */
    long long version;
};

struct grand {
    char id[CAMPAIGN_ID_LEN + 1];
    char name[NAME_MAX_BYTES + 1];
    char ruleset_id[RS_ID_MAX];
    const struct grand_ruleset *gr; /* NULL when not loaded here */
    bool what_if;
    enum dice_mode dice;
    char players[SIDE_COUNT][PLAYER_MAX_BYTES + 1];
    uint8_t key_hash[3][32], key_prev[3][32]; /* allies, axis, organizer */
    long long version;
    char created_at[40];
    char webhook_url[CHAT_URL_MAX + 1]; /* "" when it has no chat */
    enum chat_kind webhook_kind;
    int nmembers; /* the campaigns started so far, in order */
    struct grand_member members[GRAND_MAX_CAMPAIGNS];
    /* the write in progress moved its campaigns on a version (grand_members_touch; all but
     * the one given to it): after the commit, the daemon that made the write reads their
     * versions again and wakes their long polls. Cleared by grand_load, and by each attempt
     * of a write. */
    bool members_moved;
};

struct grand_input {
    const char *name;
    const struct grand_ruleset *gr;
    bool what_if;
    enum dice_mode dice;
    const char *players[SIDE_COUNT];
    const char *id;         /* NULL: a new one (import gives the exported one) */
    const char *created_at; /* import: when it was created; NULL: now */
};

struct grand_output {
    char id[CAMPAIGN_ID_LEN + 1];
    char keys[3][KEY_TEXT_LEN + 1]; /* allies, axis, organizer */
};

enum cres grand_create(struct db *db, const struct grand_input *in, struct grand_output *out,
                       struct cerr *e);
/* C_REFUSED (404) when there is no such grand campaign. With `lock`, until the transaction ends. */
enum cres grand_load(struct db *db, const char *id, bool lock, struct grand *g, struct cerr *e);

/* The role a key has (constant time), or the role whose replaced key it is; or ROLE_NONE. */
enum role grand_role(const struct grand *g, const char *key);
enum role grand_replaced_role(const struct grand *g, const char *key);

/* What a campaign at place `index` of `g` is created with. */
void grand_link_of(const struct grand *g, int index, struct grand_link *link);

/* How the organizer starts the next campaign: the Reserve Tokens each side starts it with, as
 * the book's page for that campaign says (its rules' defaults when not given). */
struct grand_next_input {
    bool tokens_given;
    int tokens[SIDE_COUNT];
};

/* Starts the next campaign of the list (the previous one finished): its id in new_id. */
enum cres grand_next(struct db *db, struct grand *g, const struct grand_next_input *in,
                     char new_id[CAMPAIGN_ID_LEN + 1], struct cerr *e);

/* A new key for `role`, for the grand campaign and every campaign of it (logged in each, and
 * each moved on a version but `saved`, the campaign the write saves itself; NULL: none). */
enum cres grand_reissue_key(struct db *db, struct grand *g, enum role role, const char *saved,
                            char key[KEY_TEXT_LEN + 1], struct cerr *e);

/* Every campaign of `g` but `except_id` (NULL: none) moves on a version, for what was written
 * beside them (a line in each one's log); g->members_moved says so. */
enum cres grand_members_touch(struct db *db, struct grand *g, const char *except_id);

/* Bumps the grand campaign's version (after a write to it). */
enum cres grand_save(struct db *db, struct grand *g);

/* Each campaign of the list as played so far (its own ruleset's winner, battles, medals, grade),
 * in order; `each`, when not NULL, is called with every started one, loaded. */
struct grand_played {
    const char *status;           /* "active", "finished", or "not started" */
    char id[CAMPAIGN_ID_LEN + 1]; /* "" when not started */
    struct grand_part part;
    const struct grand_grade *grade;
};
typedef enum cres (*grand_each_fn)(struct db *db, const struct campaign *c, int index, void *arg);
enum cres grand_parts(struct db *db, const struct grand *g, struct grand_played *out,
                      grand_each_fn each, void *arg, struct cerr *e);

/* The number of campaigns on the list (those started, when its grand ruleset is not loaded). */
int grand_size(const struct grand *g);

#endif
