#include "campaign/problem.h"

static const struct problem_info infos[PROBLEM_COUNT] = {
    [PROBLEM_MALFORMED_JSON] = {400, "malformed-json", "The body is not valid JSON"},
    [PROBLEM_INVALID_FIELD] = {400, "invalid-field", "A field has an invalid value"},
    [PROBLEM_MISSING_FIELD] = {400, "missing-field", "A required field is missing"},
    [PROBLEM_UNKNOWN_FIELD] = {400, "unknown-field",
                               "The body has a field this endpoint does not take"},
    [PROBLEM_INVALID_PARAMETER] = {400, "invalid-parameter",
                                   "A path or query parameter is invalid"},
    [PROBLEM_INVALID_FACES] = {400, "invalid-faces",
                               "The dice faces entered are not valid for this roll"},
    [PROBLEM_UNAUTHORIZED] = {401, "unauthorized", "A valid key is required"},
    [PROBLEM_FORBIDDEN] = {403, "forbidden", "This key may not do that"},
    [PROBLEM_NOT_FOUND] = {404, "not-found", "Not found"},
    [PROBLEM_METHOD_NOT_ALLOWED] = {405, "method-not-allowed", "Method not allowed"},
    [PROBLEM_WRONG_PHASE] = {409, "wrong-phase", "Not possible in the current phase"},
    [PROBLEM_ALREADY_DONE] = {409, "already-done", "Already done"},
    [PROBLEM_CAMPAIGN_FINISHED] = {409, "campaign-finished", "The campaign is finished"},
    [PROBLEM_CAMPAIGN_EXISTS] = {409, "campaign-exists", "A campaign with this id already exists"},
    [PROBLEM_RULESET_UNAVAILABLE] = {409, "ruleset-unavailable",
                                     "The campaign's ruleset is not loaded on this server"},
    [PROBLEM_SEED_NOT_SECRET] = {409, "seed-not-secret",
                                 "The server's seed is not a secret it holds; rotate it first"},
    [PROBLEM_NOT_UNDOABLE] = {409, "not-undoable", "The last action cannot be undone"},
    [PROBLEM_PRECONDITION_FAILED] = {412, "precondition-failed",
                                     "The campaign changed since you read it"},
    [PROBLEM_BODY_TOO_LARGE] = {413, "body-too-large", "The request body is too large"},
    [PROBLEM_NOT_ENOUGH_TOKENS] = {422, "not-enough-tokens", "Not enough Reserve Tokens"},
    [PROBLEM_DIE_USED_TWICE] = {422, "die-used-twice", "A die is used by two options"},
    [PROBLEM_UNKNOWN_OPTION] = {422, "unknown-option", "No such option for this roll"},
    [PROBLEM_OPTION_CHOSEN_TWICE] = {422, "option-chosen-twice", "The same option is chosen twice"},
    [PROBLEM_GRANT_REQUIRED] = {422, "grant-required",
                                "This option needs a grant chosen among its alternatives"},
    [PROBLEM_INVALID_GRANT] = {422, "invalid-grant",
                               "The grant is not one of the option's alternatives"},
    [PROBLEM_DICE_NOT_ALLOWED] = {422, "dice-not-allowed",
                                  "This campaign does not take dice from that source"},
    [PROBLEM_SCENARIO_NOT_NEXT] = {422, "scenario-not-next",
                                   "The campaign's scenario list names another scenario next"},
    [PROBLEM_RULE_VIOLATION] = {422, "rule-violation", "The rules forbid this"},
    [PROBLEM_RESULT_INCONSISTENT] = {422, "result-inconsistent",
                                     "These medals cannot go with that winner"},
    [PROBLEM_IDEMPOTENCY_KEY_REUSED] = {422, "idempotency-key-reused",
                                        "The Idempotency-Key was used for a different request"},
    [PROBLEM_UNAVAILABLE] = {503, "database-unavailable",
                             "The database is unavailable; retry shortly"},
    [PROBLEM_SHUTTING_DOWN] = {503, "shutting-down", "The server is shutting down"},
    [PROBLEM_INTERNAL] = {500, "internal-error", "Internal error"},
};

const struct problem_info *problem_info(enum problem_code code)
{
    if ((unsigned)code >= PROBLEM_COUNT)
        code = PROBLEM_INTERNAL;
    return &infos[code];
}
