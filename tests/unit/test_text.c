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
	cr_assert_eq(trex_text_cols("a\xff" "b", 3), 3, "an invalid byte takes one");
	cr_assert_eq(trex_text_cols("\xe4\xb8", 2), 2, "a cut character: one per byte");
}

Test(text, fit_never_splits_a_character_and_stops_at_newlines)
{
	const char *s = "ab\xe4\xb8\xad" "cd";

	cr_assert_eq(trex_text_fit(s, strlen(s), 2), 2);
	cr_assert_eq(trex_text_fit(s, strlen(s), 3), 2, "the wide character does not fit in 1");
	cr_assert_eq(trex_text_fit(s, strlen(s), 4), 5);
	cr_assert_eq(trex_text_fit(s, strlen(s), 100), strlen(s));
	cr_assert_eq(trex_text_fit("one\ntwo", 7, 100), 3);
	cr_assert_eq(trex_text_fit("abc", 3, 0), 0);
}
