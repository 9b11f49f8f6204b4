/* m44 verify: recompute every server roll of an exported campaign from its revealed seed. */
#ifndef M44_VERIFY_H
#define M44_VERIFY_H

#include <stdio.h>

/*
 * Reads the export at `path` (GET /api/v1/campaigns/{id}/export, or a grand campaign's, whose
 * campaigns are each checked so, and their order against the grand ruleset) and checks: each
 * revealed seed against its published commitment, roll numbers 1..N with no gap, and every server
 * roll against the faces derived from its seed (RULES.md 1.2). Prints one line per roll on `out`,
 * then the verdict. Success means every server roll was recomputed and matched:
 * returns 0 then; 1 on any mismatch; 3 when nothing mismatched but some server roll could not
 * be recomputed (its seed is not revealed): "not verified"; 2 when the file is unreadable.
 */
#define VERIFY_OK         0
#define VERIFY_MISMATCH   1
#define VERIFY_UNREADABLE 2
#define VERIFY_INCOMPLETE 3
int verify_export(const char *path, FILE *out, FILE *err);

#endif
