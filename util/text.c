/* Texts players read (util/text.h). */
#include "util/text.h"

#include <string.h>

/* Code points that show nothing: control characters, Unicode's White_Space, and the
 * Default_Ignorable_Code_Point set (joiners, direction marks, variation selectors, tags),
 * with the fillers that render blank (Hangul fillers, the blank Braille pattern). */
static const unsigned long invisible[][2] = {
    {0x0000, 0x0020},   {0x007f, 0x00a0},   {0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x061c, 0x061c},
    {0x115f, 0x1160},   {0x1680, 0x1680},   {0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x2000, 0x200f},
    {0x2028, 0x202f},   {0x205f, 0x206f},   {0x2800, 0x2800}, {0x3000, 0x3000}, {0x3164, 0x3164},
    {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},   {0xffa0, 0xffa0}, {0xfff0, 0xfff8}, {0x1bca0, 0x1bca3},
    {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
};

static bool shows_nothing(unsigned long c)
{
    for (size_t i = 0; i < sizeof invisible / sizeof invisible[0]; i++)
        if (c >= invisible[i][0] && c <= invisible[i][1])
            return true;
    return false;
}

bool text_blank(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    if (len == 0)
        return false;
    while (p < end) {
        unsigned long c = *p;
        size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
        if ((size_t)(end - p) < n)
            return false; /* cut short: not a space */
        if (n > 1) {
            c &= n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07;
            for (size_t k = 1; k < n; k++)
                c = (c << 6) | (p[k] & 0x3f);
        }
        if (!shows_nothing(c))
            return false;
        p += n;
    }
    return true;
}

void text_cut_utf8(char *s)
{
    size_t len = strlen(s), i = len;
    /* Back over the continuation bytes (10xxxxxx) to the byte that starts the last character. */
    while (i > 0 && ((unsigned char)s[i - 1] & 0xc0) == 0x80 && len - i < 3)
        i--;
    if (i == 0)
        return;
    unsigned char lead = (unsigned char)s[i - 1];
    size_t need = lead < 0x80 ? 1 : (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : 4;
    if (lead >= 0x80 && len - (i - 1) < need)
        s[i - 1] = '\0';
}

/* The length of the well-formed UTF-8 character at `p` (with `avail` bytes left), or 0; `cut`
 * says whether it is 0 because the bytes end before the character does. */
static size_t utf8_char(const unsigned char *p, size_t avail, bool *cut)
{
    *cut = false;
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned long cp, min;
    if ((c & 0xe0) == 0xc0)
        n = 2, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        n = 3, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
        n = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    for (size_t k = 1; k < n; k++) {
        if (k == avail) {
            *cut = true;
            return 0;
        }
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void text_mend_utf8(char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        bool cut;
        size_t n = utf8_char((const unsigned char *)s + i, len - i, &cut);
        if (cut) {
            s[i] = '\0';
            break;
        }
        if (n == 0)
            s[i++] = '?';
        else
            i += n;
    }
}

void text_clean_line(const char *in, char *out, size_t n)
{
    size_t i = 0;
    for (; i < n - 1 && in[i]; i++)
        out[i] = ((unsigned char)in[i] < 0x20 || in[i] == 0x7f) ? '?' : in[i];
    out[i] = '\0';
    text_mend_utf8(out);
}
