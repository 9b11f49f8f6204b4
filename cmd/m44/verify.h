/* m44 verify: recompute every server roll of an exported campaign from its revealed seed. */
#ifndef M44_VERIFY_H
#define M44_VERIFY_H

#include <stdio.h>

/*
 * Reads the export at `path` (GET /api/v1/campaigns/{id}/export) and checks: each revealed
 * seed against its published commitment, roll numbers 1..N with no gap, and every server roll
 * against the faces derived from its seed (RULES.md 1.2). Prints one line per roll on `out`.
 * Returns 0 when nothing mismatched, 1 on any mismatch, 2 when the file is unreadable.
 */
int verify_export(const char *path, FILE *out, FILE *err);

#endif
