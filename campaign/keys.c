/* Key re-issue (API.md, "Correcting mistakes at the table"): the organizer gives a role a new
 * key, for a lost or leaked link; the old key stops working at once. */
#include "campaign/grand.h"

#include "db/store.h"

#include <sodium.h>
#include <stdio.h>

enum cres campaign_reissue_key(struct db *db, struct campaign *c, struct grand *g, enum role role,
                               char key[KEY_TEXT_LEN + 1], struct cerr *e)
{
    if (c->grand_id[0]) {
        /* One set of keys for a whole grand campaign: changed there, for all its campaigns. */
        enum cres rc = grand_load(db, c->grand_id, true, g, e);
        if (rc == C_OK)
            rc = grand_reissue_key(db, g, role, c->id, key, e);
        return rc == C_OK ? grand_save(db, g) : rc;
    }
    char hash[65];
    campaign_new_key(key, hash);
    if (!db_key_set(db, c->id, role_name(role), hash))
        return C_DBERR;
    sodium_hex2bin(c->key_hash[role], sizeof c->key_hash[role], hash, 64, NULL, NULL, NULL);
    sodium_memzero(hash, sizeof hash);
    return campaign_log(db, c, "organizer", "key_reissued",
                        json_pack("{s:s}", "role", role_name(role)));
}
