/*
 * Texts players read (names): whether one shows nothing at all; texts quoting a client's bytes
 * made valid UTF-8, or safe for a log line.
 */
#ifndef M44_UTIL_TEXT_H
#define M44_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the `len` bytes of UTF-8 at `s` hold something and nothing that shows: spaces
 * (ASCII and Unicode's, U+00A0, U+2000-U+200A, U+3000 ...), control characters, and the
 * characters that are drawn as nothing (joiners, direction marks, variation selectors, tags,
 * U+3164 and the other fillers, the blank Braille pattern). An empty text is not blank. */
bool text_blank(const char *s, size_t len);

/* Takes off the end of the text at `s` a UTF-8 character cut short (snprintf stops at a byte
 * count, not at a character): what is left is valid UTF-8 if what came before the cut was. */
void text_cut_utf8(char *s);

/* Makes the text at `s` valid UTF-8 in place: a character cut short at its end goes (as
 * text_cut_utf8), and every other byte that does not belong to a well-formed character (a stray
 * continuation byte, a character cut short in the middle of a text by a quote's byte count, an
 * overlong form, a surrogate, a code point past U+10FFFF) becomes '?'. Texts quoting a client's
 * bytes stay whole enough to be read, and JSON can carry them. */
void text_mend_utf8(char *s);

/* `in` cut to fit the `n` bytes at `out` (n >= 1), with control characters and what is not
 * UTF-8 as '?': a client's text made safe for one line of a log. */
void text_clean_line(const char *in, char *out, size_t n);

#endif
