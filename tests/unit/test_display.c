/* The one duration format, the escaping of trace text and counted nouns
 * (trex/core/display.h). Expected strings are written out by hand. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/display.h"

static const char *dur(double ns)
{
	static char buf[64];

	return trex_format_duration(ns, buf, sizeof(buf));
}

/* ---- durations ------------------------------------------------------------------- */

Test(duration, rounds_to_three_decimals_of_its_unit)
{
	/* the status line and details pane truncated these to "1.64 ms" and "577 ms" */
	cr_assert_str_eq(dur(1646897), "1.647 ms");
	cr_assert_str_eq(dur(577665000), "577.665 ms");
	cr_assert_str_eq(dur(1234567), "1.235 ms");
	cr_assert_str_eq(dur(56200000), "56.2 ms");
	cr_assert_str_eq(dur(123456789012.0), "123.457 s");
	cr_assert_str_eq(dur(1999.5), "2 us");
}

Test(duration, units_and_their_boundaries)
{
	cr_assert_str_eq(dur(0), "0 ns");
	cr_assert_str_eq(dur(15), "15 ns");
	cr_assert_str_eq(dur(12.5), "12.5 ns");
	cr_assert_str_eq(dur(999), "999 ns");
	cr_assert_str_eq(dur(999.9996), "1 us");
	cr_assert_str_eq(dur(1000), "1 us");
	cr_assert_str_eq(dur(412500), "412.5 us");
	cr_assert_str_eq(dur(999999), "999.999 us");
	cr_assert_str_eq(dur(999999.6), "1 ms");
	cr_assert_str_eq(dur(1234000), "1.234 ms");
	cr_assert_str_eq(dur(2.5e9), "2.5 s");
	cr_assert_str_eq(dur(3600e9), "3600 s");
	cr_assert_str_eq(dur(-1500), "-1.5 us");
	cr_assert_str_eq(dur(-0.0001), "0 ns");
	cr_assert_str_eq(dur(NAN), "-");
	cr_assert_str_eq(dur(INFINITY), "-");
}

Test(duration, decimals_trimmed_never_negative_zero)
{
	char buf[32];

	cr_assert_str_eq(trex_format_decimal(2.50, 3, buf, sizeof(buf)), "2.5");
	cr_assert_str_eq(trex_format_decimal(-0.0001, 3, buf, sizeof(buf)), "0");
	cr_assert_str_eq(trex_format_decimal(7, 6, buf, sizeof(buf)), "7");
	cr_assert_str_eq(trex_format_decimal(1.0 / 3.0, 6, buf, sizeof(buf)), "0.333333");
}

/* ---- escaping -------------------------------------------------------------------- */

static char *shown(const char *s, size_t len, enum trex_escape_mode mode)
{
	static char buf[256];

	trex_escape(s, len, mode, buf, sizeof(buf));
	return buf;
}

Test(escape, control_characters_and_the_string_tables_nul)
{
	/* a NUL as the string table stores it (C0 80) and as a raw byte */
	cr_assert_str_eq(shown("a\xc0\x80"
	                       "b",
	                       4, TREX_ESCAPE_TEXT),
	                 "a\\0b");
	cr_assert_str_eq(shown("a\0b", 3, TREX_ESCAPE_TEXT), "a\\0b");
	cr_assert_str_eq(shown("\x1b[31mred", 8, TREX_ESCAPE_TEXT), "\\x1b[31mred");
	cr_assert_str_eq(shown("t\tn\nr\r", 6, TREX_ESCAPE_TEXT), "t\\tn\\nr\\r");
	cr_assert_str_eq(shown("\x01\x1f\x7f", 3, TREX_ESCAPE_TEXT), "\\x01\\x1f\\x7f");
	/* C1 controls: U+0080 and U+009B (CSI), not U+00A0 */
	cr_assert_str_eq(shown("\xc2\x80\xc2\x9b\xc2\xa0", 6, TREX_ESCAPE_TEXT),
	                 "\\u0080\\u009b\xc2\xa0");
	/* bytes that are not UTF-8, and a C0 not followed by 80 */
	cr_assert_str_eq(shown("\xff"
	                       "a\xc0\xaf",
	                       4, TREX_ESCAPE_TEXT),
	                 "\\xffa\\xc0\\xaf");
	cr_assert_str_eq(shown("\xe4\xb8", 2, TREX_ESCAPE_TEXT), "\\xe4\\xb8");
	/* valid UTF-8 is left alone */
	cr_assert_str_eq(shown("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 9, TREX_ESCAPE_TEXT),
	                 "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
}

Test(escape, a_literal_backslash_never_reads_as_an_escape)
{
	/* "\x1b" written out in the name vs the ESC character */
	char *lit = strdup(shown("a\\x1bb", 6, TREX_ESCAPE_TEXT));
	char *esc = strdup(shown("a\x1b"
	                         "b",
	                         3, TREX_ESCAPE_TEXT));

	cr_assert_str_eq(lit, "a\\\\x1bb");
	cr_assert_str_eq(esc, "a\\x1bb");
	cr_assert_str_neq(lit, esc);
	free(lit);
	free(esc);
	cr_assert_str_eq(shown("\\0", 2, TREX_ESCAPE_TEXT), "\\\\0");
	cr_assert_str_eq(shown("\\\xc0\x80", 3, TREX_ESCAPE_TEXT), "\\\\\\0");
	/* messages and the interface keep backslashes (regexes stay readable) */
	cr_assert_str_eq(shown("\\d+\x1b", 4, TREX_ESCAPE_CONTROLS), "\\d+\\x1b");
}

/* Reads the text form back: the inverse of TREX_ESCAPE_TEXT, for the
 * round-trip property below. */
static size_t unescape(const char *s, char *out)
{
	size_t o = 0;

	while (*s) {
		unsigned v;

		if (*s != '\\') {
			out[o++] = *s++;
			continue;
		}
		s++;
		if (*s == '0' || *s == 't' || *s == 'n' || *s == 'r' || *s == '\\') {
			out[o++] = *s == '0'   ? '\0'
			           : *s == 't' ? '\t'
			           : *s == 'n' ? '\n'
			           : *s == 'r' ? '\r'
			                       : '\\';
			s++;
		} else if (*s == 'x' && sscanf(s + 1, "%2x", &v) == 1) {
			out[o++] = (char)v;
			s += 3;
		} else {
			cr_assert_eq(*s, 'u', "unknown escape \\%c", *s);
			cr_assert_eq(sscanf(s + 1, "%4x", &v), 1);
			out[o++] = (char)0xc2;
			out[o++] = (char)v;
			s += 5;
		}
	}
	return o;
}

Test(escape, text_form_reads_back_to_the_original_bytes)
{
	static const char *const cases[] = {
	    "plain", "a\\x1bb",        "a\033b",     "\\\\",        "\\",     "x\\",
	    "\\n\n", "C:\\Users\\new", "\x7f\\\x01", "\xc2\x9b[2J", "tail\\",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char back[256];
		const char *s = cases[i];
		size_t n = unescape(shown(s, strlen(s), TREX_ESCAPE_TEXT), back);

		cr_assert_eq(n, strlen(s), "case %zu", i);
		cr_assert(memcmp(back, s, n) == 0, "case %zu reads back", i);
	}
}

Test(escape, escaped_text_holds_no_control_byte)
{
	char in[256], out[2048];

	for (int i = 0; i < 256; i++)
		in[i] = (char)i;
	trex_escape(in, sizeof(in), TREX_ESCAPE_CONTROLS, out, sizeof(out));
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		cr_assert(*p >= 0x20 && *p != 0x7f && *p < 0x80, "byte %#x left raw", *p);
}

Test(escape, buffer_too_small_cuts_between_escapes_and_returns_full_length)
{
	char buf[6];

	cr_assert_eq(trex_escape("ab\x1b"
	                         "cd",
	                         5, TREX_ESCAPE_TEXT, buf, sizeof(buf)),
	             8);
	cr_assert_str_eq(buf, "ab", "the escape does not fit whole");
	cr_assert_eq(trex_escape("abc", 3, TREX_ESCAPE_TEXT, buf, 0), 3);
}

Test(escape, write_counts_characters)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cr_assert_eq(trex_escape_write(f, "\xc3\xa9\x1b\\", 4, TREX_ESCAPE_TEXT), 7);
	fclose(f);
	cr_assert_str_eq(text, "\xc3\xa9\\x1b\\\\");
	free(text);
	cr_assert_eq(trex_escape_write(NULL, "ab\n", 3, TREX_ESCAPE_TEXT), 4, "NULL measures");
}

Test(escape, utf8_lengths)
{
	cr_assert_eq(trex_utf8_len((const unsigned char *)"a", 1), 1);
	cr_assert_eq(trex_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
	cr_assert_eq(trex_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	cr_assert_eq(trex_utf8_len((const unsigned char *)"\xc0\x80", 2), 0, "overlong");
	cr_assert_eq(trex_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0, "surrogate");
	cr_assert_eq(trex_utf8_len((const unsigned char *)"\xe4\xb8", 2), 0, "cut short");
}

/* ---- counted nouns ---------------------------------------------------------------- */

Test(plural, one_is_singular)
{
	cr_assert_str_eq(trex_plural(1, "child", "children"), "child");
	cr_assert_str_eq(trex_plural(0, "child", "children"), "children");
	cr_assert_str_eq(trex_plural(2, "slice", "slices"), "slices");
}
