/* The go-to-time parser: units, decimals, relative times, errors. */
#include "config.h"

#include <criterion/criterion.h>

#include "trex/ui/timespec.h"

static int64_t parse(const char *text, bool want_relative)
{
	int64_t ns = -12345;
	bool rel = !want_relative;

	cr_assert(trex_timespec_parse(text, &ns, &rel), "'%s' should parse", text);
	cr_assert_eq(rel, want_relative, "'%s': relative", text);
	return ns;
}

static void bad(const char *text)
{
	int64_t ns;
	bool rel;

	cr_assert_not(trex_timespec_parse(text, &ns, &rel), "'%s' should not parse", text);
}

Test(timespec, units)
{
	cr_assert_eq(parse("12.5ms", false), 12500000);
	cr_assert_eq(parse("300us", false), 300000);
	cr_assert_eq(parse("300\xc2\xb5s", false), 300000);
	cr_assert_eq(parse("2s", false), 2000000000);
	cr_assert_eq(parse("1500", false), 1500);
	cr_assert_eq(parse("7ns", false), 7);
	cr_assert_eq(parse(" 1.5 ms ", false), 1500000);
	cr_assert_eq(parse("0", false), 0);
	cr_assert_eq(parse(".5us", false), 500);
}

Test(timespec, decimals_are_exact_and_truncated)
{
	/* 0.1 + 0.2 style errors of double never show */
	cr_assert_eq(parse("0.3s", false), 300000000);
	cr_assert_eq(parse("1.0000001ms", false), 1000000);
	cr_assert_eq(parse("1.2345678us", false), 1234);
	cr_assert_eq(parse("9.223372036s", false), 9223372036);
}

Test(timespec, relative)
{
	cr_assert_eq(parse("+2ms", true), 2000000);
	cr_assert_eq(parse("-2ms", true), -2000000);
	cr_assert_eq(parse("-1.5", true), -1);
	cr_assert_eq(trex_timespec_resolve(-2000000, true, 100, 5000000), 3000000);
	cr_assert_eq(trex_timespec_resolve(2000, false, 100, 5000000), 2100);
	cr_assert_eq(trex_timespec_resolve(INT64_MAX, true, 0, 10), INT64_MAX);
}

Test(timespec, errors)
{
	bad("");
	bad("ms");
	bad("12.5 parsecs");
	bad("12m");
	bad("1e3ms");
	bad("1,5ms");
	bad("+");
	bad(".");
	bad("12 ms x");
	bad("99999999999999999999");
	bad("10000000000s"); /* 1e19 ns: beyond int64 */
}
