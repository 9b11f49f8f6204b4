/*
 * Texts players read (names): whether one shows nothing at all.
 */
#ifndef M44_UTIL_TEXT_H
#define M44_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the `len` bytes of UTF-8 at `s` hold something and nothing but spaces: ASCII and
 * Unicode white space (U+00A0, U+2000-U+200A, U+3000 ...) and the invisible characters that
 * join or separate words (U+200B-U+200D, U+2060, U+FEFF). An empty text is not blank. */
bool text_blank(const char *s, size_t len);

#endif
