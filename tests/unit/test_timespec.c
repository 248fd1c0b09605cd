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

/* The details pane prints absolute times ("absolute 1695835542481129000
 * ns"): typed back, they must land where they were printed. */
Test(timespec, absolute_times_and_the_trace)
{
	const int64_t start = 1695835542481129000, end = 1695835585940062000;
	struct trex_timespec_target to;

	cr_assert(trex_timespec_locate("12.5ms", start, end, start, &to));
	cr_assert_eq(to.t, start + 12500000);
	cr_assert_eq(to.base, TREX_TIMESPEC_FROM_START);
	cr_assert_eq(to.where, TREX_TIMESPEC_INSIDE);

	cr_assert(trex_timespec_locate("1695835545000000000", start, end, start, &to));
	cr_assert_eq(to.t, 1695835545000000000, "a plain absolute time is read as one");
	cr_assert_eq(to.base, TREX_TIMESPEC_ABSOLUTE);
	cr_assert_eq(to.where, TREX_TIMESPEC_INSIDE);

	cr_assert(trex_timespec_locate("absolute 1695835545000000000 ns", start, end, start, &to));
	cr_assert_eq(to.t, 1695835545000000000);
	cr_assert_eq(to.base, TREX_TIMESPEC_ABSOLUTE);
	cr_assert(trex_timespec_locate("@1695835545s", start, end, start, &to));
	cr_assert_eq(to.t, 1695835545000000000);
	cr_assert(trex_timespec_locate("abs 1ms", start, end, start, &to));
	cr_assert_eq(to.t, 1000000);
	cr_assert_eq(to.where, TREX_TIMESPEC_BEFORE, "forced absolute, and before the trace");
	cr_assert_not(trex_timespec_locate("absolute +2ms", start, end, start, &to));
	cr_assert_not(trex_timespec_locate("absolute", start, end, start, &to));

	cr_assert(trex_timespec_locate("99s", start, end, start, &to));
	cr_assert_eq(to.base, TREX_TIMESPEC_FROM_START);
	cr_assert_eq(to.where, TREX_TIMESPEC_AFTER);
	cr_assert(trex_timespec_locate("-1s", start, end, start + 500000000, &to));
	cr_assert_eq(to.base, TREX_TIMESPEC_FROM_CURSOR);
	cr_assert_eq(to.where, TREX_TIMESPEC_BEFORE);
	cr_assert(trex_timespec_locate("+1s", start, end, start + 500000000, &to));
	cr_assert_eq(to.t, start + 1500000000);
	cr_assert_eq(to.where, TREX_TIMESPEC_INSIDE);
	cr_assert_not(trex_timespec_locate("12 parsecs", start, end, start, &to));
	/* outside either way: the nearer reading, here the absolute one */
	cr_assert(trex_timespec_locate("1695835542481128000", start, end, start, &to));
	cr_assert_eq(to.t, start - 1000);
	cr_assert_eq(to.base, TREX_TIMESPEC_ABSOLUTE);
	cr_assert_eq(to.where, TREX_TIMESPEC_BEFORE);

	/* a trace that starts at 0: both readings agree, and it is from the start */
	cr_assert(trex_timespec_locate("5ms", 0, 56000000, 0, &to));
	cr_assert_eq(to.t, 5000000);
	cr_assert_eq(to.base, TREX_TIMESPEC_FROM_START);
	cr_assert_eq(to.where, TREX_TIMESPEC_INSIDE);
}
