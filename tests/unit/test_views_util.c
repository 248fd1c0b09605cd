/* The analyses' shared helpers (src/analysis/views_util.h): the merge of
 * sorted runs against qsort, and the union of spans sorted by it against
 * the union of spans qsort sorted. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/views_util.h"

/* A key and where the element stood, to see that equal keys keep their order. */
struct elem {
	int64_t key;
	uint32_t at;
};

static int cmp_key(const void *x, const void *y)
{
	const struct elem *a = x, *b = y;

	return (a->key > b->key) - (a->key < b->key);
}

/* Keys first, then the original position: what a stable sort yields. */
static int cmp_key_at(const void *x, const void *y)
{
	const struct elem *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* n elements in runs ascending runs of random lengths, keys below range. */
static void fill_runs(struct elem *v, size_t n, size_t runs, int64_t range, unsigned *seed)
{
	size_t at = 0;

	for (size_t r = 0; r < runs && at < n; r++) {
		size_t len = r + 1 == runs ? n - at : (size_t)rand_r(seed) % (2 * n / runs + 1);
		int64_t key = rand_r(seed) % range;

		for (size_t i = 0; i < len && at < n; i++, at++) {
			key += rand_r(seed) % 3; /* ties included */
			v[at] = (struct elem){key % range, (uint32_t)at};
		}
	}
	for (; at < n; at++)
		v[at] = (struct elem){rand_r(seed) % range, (uint32_t)at};
}

static void check_against_qsort(size_t n, size_t runs, int64_t range, unsigned seed)
{
	struct elem *v = malloc((n ? n : 1) * sizeof(*v)), *want = malloc((n ? n : 1) * sizeof(*v));

	cr_assert(v && want);
	fill_runs(v, n, runs, range, &seed);
	memcpy(want, v, n * sizeof(*v));
	qsort(want, n, sizeof(*want), cmp_key_at);
	cr_assert(views_sort_runs(v, n, sizeof(*v), cmp_key));
	for (size_t i = 0; i < n; i++)
		cr_assert(v[i].key == want[i].key && v[i].at == want[i].at,
		          "n %zu runs %zu seed %u: element %zu is (%lld, %u), want (%lld, %u)", n,
		          runs, seed, i, (long long)v[i].key, v[i].at, (long long)want[i].key,
		          want[i].at);
	free(v);
	free(want);
}

Test(views_sort_runs, sorts_stably_whatever_the_runs)
{
	static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 4099};

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t runs = 1; runs <= 9; runs++)
			for (unsigned seed = 1; seed <= 5; seed++) {
				check_against_qsort(sizes[s], runs, 50, seed);
				check_against_qsort(sizes[s], runs, 1000000, seed);
			}
}

Test(views_sort_runs, random_order_is_many_runs)
{
	for (unsigned seed = 1; seed <= 20; seed++)
		check_against_qsort(3000, 3000, 100, seed); /* every run of length 0-2: random */
}

Test(views_sort_runs, reversed_and_equal_keys)
{
	struct elem v[257];

	for (size_t i = 0; i < 257; i++)
		v[i] = (struct elem){256 - (int64_t)i, (uint32_t)i};
	cr_assert(views_sort_runs(v, 257, sizeof(*v), cmp_key));
	for (size_t i = 0; i < 257; i++)
		cr_assert_eq(v[i].key, (int64_t)i);
	for (size_t i = 0; i < 257; i++)
		v[i] = (struct elem){7, (uint32_t)i};
	cr_assert(views_sort_runs(v, 257, sizeof(*v), cmp_key));
	for (size_t i = 0; i < 257; i++)
		cr_assert_eq(v[i].at, (uint32_t)i, "equal keys keep their order");
}

static int cmp_span_ts(const void *x, const void *y)
{
	const struct views_span *a = x, *b = y;

	return (a->ts > b->ts) - (a->ts < b->ts);
}

/* Spans as the lanes of a few streams give them: each lane's spans
 * disjoint and in start order, lanes one after another. The union after
 * the merge of runs is the union after qsort, and the length of the
 * union is the number of covered unit steps counted by brute force. */
Test(views_sort_runs, union_of_lanes_matches_a_sort_of_every_span)
{
	enum { N = 600, T = 5000 };

	for (unsigned seed = 1; seed <= 40; seed++) {
		struct views_span a[N], b[N];
		static unsigned char covered[T + 200];
		size_t n = 0, merged_a, merged_b;
		int64_t want = 0;
		unsigned lanes = 1 + seed % 6, s = seed;

		memset(covered, 0, sizeof(covered));
		for (unsigned l = 0; l < lanes; l++) {
			int64_t t = rand_r(&s) % 100;

			while (n < N && t < T) {
				int64_t len = rand_r(&s) % 60;

				a[n++] = (struct views_span){t, t + len};
				for (int64_t u = t; u < t + len; u++)
					covered[u] = 1;
				t += len +
				     rand_r(&s) % 40; /* touching or apart: a lane never overlaps */
			}
		}
		for (size_t u = 0; u < sizeof(covered); u++)
			want += covered[u];
		memcpy(b, a, n * sizeof(*a));
		qsort(b, n, sizeof(*b), cmp_span_ts);
		cr_assert(views_sort_runs(a, n, sizeof(*a), cmp_span_ts));
		cr_assert_eq(views_union(a, n, &merged_a), want, "seed %u", seed);
		cr_assert_eq(views_union(b, n, &merged_b), want, "seed %u", seed);
		cr_assert_eq(merged_a, merged_b);
		for (size_t i = 0; i < merged_a; i++)
			cr_assert(a[i].ts == b[i].ts && a[i].end == b[i].end);
	}
}
