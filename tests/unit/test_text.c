#include "config.h"

#include <criterion/criterion.h>
#include <locale.h>
#include <string.h>

#include "trex/ui/text.h"

static void utf8(void)
{
	setlocale(LC_ALL, "C.UTF-8");
}

TestSuite(text, .init = utf8);

Test(text, columns_of_ascii_wide_and_invalid_text)
{
	cr_assert_eq(trex_text_cols("", 0), 0);
	cr_assert_eq(trex_text_cols("gemm", 4), 4);
	cr_assert_eq(trex_text_cols("gemm", 2), 2, "only the first len bytes");
	cr_assert_eq(trex_text_cols("\xc3\xa9t\xc3\xa9", 5), 3, "é is one column");
	cr_assert_eq(trex_text_cols("\xe4\xb8\xad\xe6\x96\x87", 6), 4, "CJK: two columns each");
	cr_assert_eq(trex_text_cols("a\xff"
	                            "b",
	                            3),
	             6, "an invalid byte shows as \\xff");
	cr_assert_eq(trex_text_cols("\xe4\xb8", 2), 8, "a cut character: \\xe4\\xb8");
}

Test(text, control_characters_take_the_columns_of_their_escapes)
{
	cr_assert_eq(trex_text_cols("a\x1b[31m", 6), 9, "a\\x1b[31m");
	cr_assert_eq(trex_text_cols("a\xc0\x80"
	                            "b",
	                            4),
	             4, "a\\0b: the string table's NUL");
	cr_assert_eq(trex_text_cols("\t\n", 2), 4);
	cr_assert_eq(trex_text_cols("\xc2\x9b", 2), 6, "C1 CSI: \\u009b");
	cr_assert_eq(trex_text_cols("a\\b", 3), 3, "the interface leaves backslashes alone");
}

Test(text, next_says_what_to_draw)
{
	mbstate_t ps;
	struct trex_text_char ch;

	memset(&ps, 0, sizeof(ps));
	cr_assert_eq(trex_text_next("\x1b[", 2, &ps, &ch), 1);
	cr_assert_str_eq(ch.esc, "\\x1b");
	cr_assert_eq(ch.cols, 4);
	cr_assert_eq(trex_text_next("\xc3\xa9", 2, &ps, &ch), 2);
	cr_assert_str_eq(ch.esc, "");
	cr_assert_eq(ch.wc, L'\xe9');
	cr_assert_eq(ch.cols, 1);
	/* a character the locale knows but cannot print: U+2028 LINE SEPARATOR */
	cr_assert_eq(trex_text_next("\xe2\x80\xa8", 3, &ps, &ch), 3);
	cr_assert_str_eq(ch.esc, "\\u2028");
	cr_assert_eq(ch.cols, 6);
}

Test(text, fit_never_splits_a_character_or_an_escape)
{
	const char *s = "ab\xe4\xb8\xad"
	                "cd";

	cr_assert_eq(trex_text_fit(s, strlen(s), 2), 2);
	cr_assert_eq(trex_text_fit(s, strlen(s), 3), 2, "the wide character does not fit in 1");
	cr_assert_eq(trex_text_fit(s, strlen(s), 4), 5);
	cr_assert_eq(trex_text_fit(s, strlen(s), 100), strlen(s));
	cr_assert_eq(trex_text_fit("one\ntwo", 7, 100), 7, "a newline shows as \\n");
	cr_assert_eq(trex_text_fit("one\ntwo", 7, 4), 3, "and is not split");
	cr_assert_eq(trex_text_fit("abc", 3, 0), 0);
}
