/* Texts players read (util/text.h). */
#include "util/text.h"

static bool blank_code_point(unsigned long c)
{
    return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200d) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
           c == 0x205f || c == 0x2060 || c == 0x3000 || c == 0xfeff;
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
        if (!blank_code_point(c))
            return false;
        p += n;
    }
    return true;
}
