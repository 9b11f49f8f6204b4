#include "campaign/rulesets.h"

static struct ruleset_set loaded;

int rulesets_init(const char *dir, char *err, size_t errlen)
{
    return rulesets_load(&loaded, dir, err, errlen);
}

void rulesets_shutdown(void)
{
    rulesets_free(&loaded);
}

const struct ruleset_set *rulesets(void)
{
    return &loaded;
}

const struct ruleset_entry *ruleset_entry(const char *id)
{
    return rulesets_find(&loaded, id);
}
