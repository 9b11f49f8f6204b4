/* Fuzz target: every request-body parser. The first byte picks the parser, the rest is the
 * body as a client would send it. */
#include "api/bodies.h"
#include "campaign/grand.h"
#include "campaign/rulesets.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char err[512];
    if (rulesets_init(NULL, err, sizeof err))
        abort();
    return 0;
}

/* A side named in a body is one of the two. */
static void check_side(json_t *body)
{
    enum side s;
    if (body_side(body, &s) && s != SIDE_ALLIES && s != SIDE_AXIS)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct jerr e;
    json_t *body = json_body((const char *)data + 1, size - 1, &e);
    if (!body)
        return 0;
    static struct scenario_list list;
    struct create_input ci;
    struct roll_input ri;
    struct battle_input bi;
    struct choice_item items[RULES_MAX_OFFERED];
    int n;
    struct result_input res;
    struct grand_next_input gn;
    struct undo_target ut;
    switch (data[0] % 8) {
    case 0:
        if (parse_create(body, "", &ci, &list, &e) && (!ci.name || !ci.rse))
            abort(); /* accepted without the required fields */
        break;
    case 1:
        if (parse_roll(body, &ri, &e) && (ri.nfaces < 0 || ri.nfaces > RULES_MAX_DICE))
            abort();
        check_side(body);
        break;
    case 2:
        parse_battle(body, &bi, &e);
        break;
    case 3:
        if (parse_choice(body, items, &n, &e))
            for (int i = 0; i < n; i++)
                if (!items[i].id)
                    abort();
        check_side(body);
        break;
    case 4:
        if (parse_result(body, &res, &e) && (res.medals[0] < 0 || res.medals[1] < 0))
            abort();
        break;
    case 5:
        if (parse_grand_next(body, &gn, &e) && gn.tokens_given)
            for (int s = 0; s < SIDE_COUNT; s++)
                if (gn.tokens[s] < 0 || gn.tokens[s] > 99)
                    abort(); /* a campaign started with tokens a creation refuses */
        break;
    case 6:
        if (parse_undo(body, &ut, &e) && ut.kind != UNDO_LAST &&
            (ut.n < 1 || (ut.kind == UNDO_CHOICE && ut.n > MAX_BATTLES)))
            abort(); /* an action no campaign can have */
        break;
    default:
        parse_empty(body, &e);
        break;
    }
    json_decref(body);
    return 0;
}
