/* util/text.h: which names show nothing. The code points (Unicode's White_Space, controls,
 * Default_Ignorable_Code_Point, the blank fillers) are written out here in UTF-8 by hand. */
#include "util/text.h"

#include <CUnit/CUnit.h>
#include <string.h>

static bool blank(const char *s)
{
    return text_blank(s, strlen(s));
}

static void test_blank(void)
{
    CU_ASSERT_TRUE(blank(" "));
    CU_ASSERT_TRUE(blank(" \t\r\n\v\f"));
    CU_ASSERT_TRUE(blank("\xc2\xa0"));                 /* U+00A0 no-break space */
    CU_ASSERT_TRUE(blank("\xc2\x85"));                 /* U+0085 next line */
    CU_ASSERT_TRUE(blank("\xe3\x80\x80 "));            /* U+3000 ideographic space */
    CU_ASSERT_TRUE(blank("\xe2\x80\x8b"));             /* U+200B zero width space */
    CU_ASSERT_TRUE(blank("\xe2\x80\x83\xe2\x81\xa0")); /* U+2003 em space, U+2060 word joiner */
    CU_ASSERT_TRUE(blank("\xef\xbb\xbf"));             /* U+FEFF */
    CU_ASSERT_TRUE(blank("\xe1\x9a\x80"));             /* U+1680 ogham space mark */
    CU_ASSERT_TRUE(blank("\x01\x1f\x7f"));             /* control characters */
    CU_ASSERT_TRUE(blank("\xe2\x80\x8e\xe2\x80\xae")); /* U+200E, U+202E direction */
    CU_ASSERT_TRUE(blank("\xe3\x85\xa4"));             /* U+3164 Hangul filler */
    CU_ASSERT_TRUE(blank("\xe2\xa0\x80"));             /* U+2800 blank Braille */
    CU_ASSERT_TRUE(blank("\xc2\xad\xef\xb8\x8f"));     /* U+00AD soft hyphen, U+FE0F */
    CU_ASSERT_TRUE(blank("\xf3\xa0\x80\xa0"));         /* U+E0020 tag space */
    CU_ASSERT_TRUE(blank("\xf0\x9d\x85\xb3"));         /* U+1D173 musical symbol begin beam */
    CU_ASSERT_FALSE(blank("\xe3\x85\xa5"));            /* U+3165 Hangul letter */
    CU_ASSERT_FALSE(blank("\xe2\xa0\x81"));            /* U+2801 Braille dot 1 */
    CU_ASSERT_FALSE(blank("\x01"
                          "Bob"));
    CU_ASSERT_FALSE(blank("")); /* empty: no name, not a blank one */
    CU_ASSERT_FALSE(blank("a"));
    CU_ASSERT_FALSE(blank("  Ann  "));
    CU_ASSERT_FALSE(blank("\xc3\xa9")); /* é */
    CU_ASSERT_FALSE(blank("\xe2\x80\x8b"
                          "x"));
    CU_ASSERT_FALSE(blank("\xe2\x80\x90"));         /* U+2010 hyphen, just past the spaces */
    CU_ASSERT_FALSE(blank("\xe3\x80\x81"));         /* U+3001 ideographic comma */
    CU_ASSERT_FALSE(blank("\xf0\x9f\x8e\xb2"));     /* U+1F3B2 game die */
    CU_ASSERT_FALSE(text_blank("\xe3\x80\x80", 2)); /* cut short */
}

/* A text cut at a byte count: the character cut short goes, whole ones stay. */
static void cut(const char *in, const char *want)
{
    char buf[32];
    strcpy(buf, in);
    text_cut_utf8(buf);
    CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_cut(void)
{
    cut("", "");
    cut("abc", "abc");
    cut("caf\xc3\xa9", "caf\xc3\xa9");               /* é whole */
    cut("caf\xc3", "caf");                           /* é's first byte of 2 */
    cut("x\xe2\x82\xac", "x\xe2\x82\xac");           /* € whole */
    cut("x\xe2\x82", "x");                           /* €'s 2 bytes of 3 */
    cut("x\xe2", "x");                               /* €'s 1 byte of 3 */
    cut("\xf0\x9f\x8e\xb2", "\xf0\x9f\x8e\xb2");     /* U+1F3B2 whole */
    cut("d\xf0\x9f\x8e", "d");                       /* its 3 bytes of 4 */
    cut("\xc3\xa9\xc3\xa9\xc3", "\xc3\xa9\xc3\xa9"); /* two é and a cut one */
    cut("\xf0\x9f", "");                             /* nothing whole before it */
}

/* A text quoting a client's bytes: what is not UTF-8 (Unicode 15, table 3-7, "well-formed
 * UTF-8 byte sequences") becomes '?', byte by byte, but a character cut short at the very end
 * goes, as text_cut_utf8 drops it; what is UTF-8 stays. */
static void mend(const char *in, const char *want)
{
    char buf[32];
    strcpy(buf, in);
    text_mend_utf8(buf);
    CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_mend(void)
{
    mend("", "");
    mend("plain", "plain");
    mend("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb2", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb2");
    mend("a\xc3z", "a?z");                        /* é's first byte, then a letter */
    mend("a\xe2\x82z", "a??z");                   /* €'s two bytes of three */
    mend("\x80x", "?x");                          /* a continuation byte alone */
    mend("\xc0\xaf", "??");                       /* "/" written in two bytes (overlong) */
    mend("\xe0\x80\xaf", "???");                  /* and in three */
    mend("\xed\xa0\x80", "???");                  /* U+D800, a surrogate */
    mend("\xf4\x90\x80\x80", "????");             /* past U+10FFFF */
    mend("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"); /* U+10FFFF itself */
    mend("\xff\xfe", "??");
    mend("\xc3\xa9\xc3", "\xc3\xa9"); /* a whole é, then one cut short at the end: gone */
    mend("x\xf0\x9f\x8e", "x");       /* a die's 3 bytes of 4, at the end */
}

/* A log line's text: control characters and what is not UTF-8 as '?', cut to the buffer. */
static void test_clean_line(void)
{
    char out[12];
    text_clean_line("GET /a\nb\r\x7f", out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "GET /a?b??");
    text_clean_line("/\xff\xfe-probe", out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "/?\?-probe");
    text_clean_line("0123456789\xc3\xa9", out, sizeof out); /* é cut after its first byte */
    CU_ASSERT_STRING_EQUAL(out, "0123456789");
    text_clean_line("0123456789abc", out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "0123456789a");
}

void register_text_tests(void)
{
    CU_pSuite s = CU_add_suite("names that show nothing", NULL, NULL);
    CU_add_test(s, "spaces, Unicode spaces and invisible joiners; not letters", test_blank);
    CU_add_test(s, "a text cut at a byte count ends with a whole character", test_cut);
    CU_add_test(s, "what is not UTF-8 becomes '?', byte by byte", test_mend);
    CU_add_test(s, "a log line's text: no control character, nothing but UTF-8", test_clean_line);
}
