/*
 * Every reason m44d refuses a request, in one enum. Each code has a fixed HTTP status, a stable
 * slug (the problem "type" is "urn:m44d:problem:<slug>", also returned as "code") and a title.
 * campaign/ refuses with these codes; api/ turns them into problem+json (api/problem.h).
 */
#ifndef M44_CAMPAIGN_PROBLEM_H
#define M44_CAMPAIGN_PROBLEM_H

enum problem_code {
    /* 400: the request itself is wrong */
    PROBLEM_MALFORMED_JSON,
    PROBLEM_INVALID_FIELD,
    PROBLEM_MISSING_FIELD,
    PROBLEM_UNKNOWN_FIELD,
    PROBLEM_INVALID_PARAMETER,
    PROBLEM_INVALID_FACES,
    PROBLEM_BAD_REQUEST, /* the HTTP request itself: framing, headers, query */
    /* 401 / 403 */
    PROBLEM_UNAUTHORIZED,
    PROBLEM_FORBIDDEN,
    /* 404 / 405 */
    PROBLEM_NOT_FOUND,
    PROBLEM_METHOD_NOT_ALLOWED,
    /* 409: not now */
    PROBLEM_WRONG_PHASE,
    PROBLEM_ALREADY_DONE,
    PROBLEM_CAMPAIGN_FINISHED,
    PROBLEM_CAMPAIGN_EXISTS,
    PROBLEM_RULESET_UNAVAILABLE,
    PROBLEM_SEED_NOT_SECRET,
    PROBLEM_NOT_UNDOABLE,
    /* 412 / 413 */
    PROBLEM_PRECONDITION_FAILED,
    PROBLEM_BODY_TOO_LARGE,
    /* 415 / 429 */
    PROBLEM_UNSUPPORTED_MEDIA_TYPE,
    PROBLEM_TOO_MANY_REQUESTS,
    /* 422: a rule forbids it */
    PROBLEM_NOT_ENOUGH_TOKENS,
    PROBLEM_DIE_USED_TWICE,
    PROBLEM_UNKNOWN_OPTION,
    PROBLEM_OPTION_CHOSEN_TWICE,
    PROBLEM_GRANT_REQUIRED,
    PROBLEM_INVALID_GRANT,
    PROBLEM_DICE_NOT_ALLOWED,
    PROBLEM_SCENARIO_NOT_NEXT,
    PROBLEM_RULE_VIOLATION,
    PROBLEM_RESULT_INCONSISTENT,
    PROBLEM_IDEMPOTENCY_KEY_REUSED,
    /* 5xx: our side */
    PROBLEM_UNAVAILABLE,
    PROBLEM_OUTCOME_UNKNOWN, /* the connection broke during COMMIT: done or not, nobody knows */
    PROBLEM_READ_ONLY,       /* the database refuses writes (read-only, disk full) */
    PROBLEM_BUSY,            /* exports and imports: every worker busy and the queue full */
    PROBLEM_SHUTTING_DOWN,
    PROBLEM_INTERNAL,
    PROBLEM_COUNT
};

struct problem_info {
    int status;
    const char *slug;
    const char *title;
};

/* Never NULL for a code below PROBLEM_COUNT. */
const struct problem_info *problem_info(enum problem_code code);

#endif
