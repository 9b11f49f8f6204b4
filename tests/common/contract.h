/*
 * The API contract as a test oracle: every response the test HTTP client (http.h) gets from
 * m44d is checked against api/openapi.json by tests/contract/validate.mjs (Ajv), and one that
 * does not match fails the test that got it.
 */
#ifndef M44_TEST_CONTRACT_H
#define M44_TEST_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>

/* Starts the validator (node tests/contract/validate.mjs) and turns checking on. false: it
 * did not start (Node.js or tests/contract/node_modules missing; see tests/run.sh). */
bool contract_start(void);
void contract_stop(void);

/* Checks one response (called by http_do). A mismatch fails the current test; one found on
 * another thread is kept and fails it at contract_flush. Does nothing while checking is off. */
void contract_check(const char *method, const char *url, long status, const char *content_type,
                    const char *body, size_t len);

/* Fails the current test with any mismatch kept from other threads (tk_run calls it after
 * every test). */
void contract_flush(void);

/* Responses checked and mismatches found so far; mismatches found outside any test (a suite's
 * set-up, main), which the caller must fail the run for. */
long contract_checked(void);
long contract_mismatches(void);
long contract_outside(void);

#endif
