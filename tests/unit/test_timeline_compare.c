/* --compare's two runs on one screen: how the body is split between
 * them (a header row each, then their rows). */
#include "config.h"

#include <criterion/criterion.h>

#include "timeline_compare.h"

/* 20 lines from line 3: 18 for rows. */
Test(timeline_compare, few_rows_of_a_leave_the_rest_to_b)
{
	struct tl_compare_split s = tl_compare_split(3, 20, 4, 100);

	cr_assert_eq(s.a_y, 4); /* A's header on line 3 */
	cr_assert_eq(s.a_h, 4);
	cr_assert_eq(s.b_y, 9); /* B's header on line 8 */
	cr_assert_eq(s.b_h, 14);
}

Test(timeline_compare, few_rows_of_b_leave_the_rest_to_a)
{
	struct tl_compare_split s = tl_compare_split(3, 20, 100, 5);

	cr_assert_eq(s.a_h, 13);
	cr_assert_eq(s.b_y, 4 + 13 + 1);
	cr_assert_eq(s.b_h, 5);
}

Test(timeline_compare, many_rows_each_get_half_a_the_odd_line)
{
	struct tl_compare_split s = tl_compare_split(0, 21, 50, 50);

	cr_assert_eq(s.a_h, 10);
	cr_assert_eq(s.b_h, 9);
	cr_assert_eq(s.b_y, 1 + 10 + 1);
}

Test(timeline_compare, an_empty_run_keeps_one_line)
{
	struct tl_compare_split s = tl_compare_split(0, 12, 0, 0);

	cr_assert_eq(s.a_h, 1);
	cr_assert_eq(s.b_h, 9);
}

Test(timeline_compare, a_body_too_small_for_rows_has_none)
{
	for (int h = 0; h <= 2; h++) {
		struct tl_compare_split s = tl_compare_split(5, h, 10, 10);

		cr_assert_eq(s.a_h, 0);
		cr_assert_eq(s.b_h, 0);
		cr_assert_eq(s.a_y, 6);
	}
}
