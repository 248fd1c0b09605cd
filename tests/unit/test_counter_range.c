/* Counter peaks against brute force on random series: every window's
 * maximum must be exact, whatever the number of samples inside it. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/counter_range.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

/* A fixed xorshift, so a failure is reproducible. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One process with one counter series of n samples: times step by 0..9 ns
 * (repeats included), values mostly small with rare tall spikes. */
static struct trex_index *series(uint32_t n, uint64_t seed)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = {
	    .path = "c.json", .format = "chrome-json", .dialect = "kineto", .events = n};
	struct trex_build_input in = {
	    .files = &file, .file_count = 1, .parts = &b, .part_count = 1, .threads = 1};
	struct trex_index *idx = NULL;
	struct trex_error err;
	uint32_t name = trex_builder_intern(b, "mem", 3);
	int64_t ts = 1000;

	for (uint32_t i = 0; i < n; i++) {
		double v = (double)(next(&seed) % 100);

		if (next(&seed) % 500 == 0)
			v += 1000 + (double)(next(&seed) % 1000); /* a short spike */
		ts += (int64_t)(next(&seed) % 10);
		cr_assert_eq(trex_builder_counter(b, 1, name, ts, v), 0);
	}
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

static uint32_t counter_track(const struct trex_index *idx)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++)
		if (trex_index_track(idx, t)->kind == TREX_TRACK_COUNTER)
			return t;
	cr_assert_fail("no counter track");
	return 0;
}

/* What the cell holds, looking at every sample. */
static bool brute_cell(const struct trex_index *idx, uint32_t track, int64_t lo, int64_t hi,
                       double *v)
{
	const struct trex_track *t = trex_index_track(idx, track);
	bool have = false;

	for (uint32_t i = 0; i < t->sample_count; i++) {
		const struct trex_counter_sample *s = trex_index_sample(idx, t->first_sample + i);
		const struct trex_counter_sample *n =
		    i + 1 < t->sample_count ? trex_index_sample(idx, t->first_sample + i + 1)
		                            : NULL;
		/* in force at lo: the last sample at or before lo */
		bool in_force = s->ts <= lo && (!n || n->ts > lo);

		if (in_force || (s->ts > lo && s->ts < hi)) {
			if (!have || s->value > *v)
				*v = s->value;
			have = true;
		}
	}
	return have;
}

static void check_windows(uint32_t n, uint64_t seed, int queries)
{
	struct trex_index *idx = series(n, seed);
	uint32_t track = counter_track(idx);
	const struct trex_track *t = trex_index_track(idx, track);
	int64_t t0 = trex_index_sample(idx, t->first_sample)->ts;
	int64_t t1 = trex_index_sample(idx, t->first_sample + t->sample_count - 1)->ts;
	struct trex_counter_peaks p;
	struct trex_error err;

	cr_assert_eq(trex_counter_peaks_build(idx, track, &p, &err), TREX_OK);
	cr_assert_eq(p.count, n);
	for (int q = 0; q < queries; q++) {
		int64_t span = t1 - t0 + 40;
		int64_t lo = t0 - 20 + (int64_t)(next(&seed) % (uint64_t)span);
		int64_t w = 1 + (int64_t)(next(&seed) % (uint64_t)(q % 3 == 0 ? span : 300));
		double want = 0, got = 0;
		bool hw = brute_cell(idx, track, lo, lo + w, &want);
		bool hg = trex_counter_peaks_cell(&p, lo, lo + w, &got);

		cr_assert_eq(hg, hw, "n %u [%lld, %lld): have %d, want %d", n, (long long)lo,
		             (long long)(lo + w), hg, hw);
		if (hw)
			cr_assert_eq(got, want, "n %u [%lld, %lld): %g, want %g", n, (long long)lo,
			             (long long)(lo + w), got, want);
	}
	trex_counter_peaks_free(&p);
	trex_index_free(idx);
}

Test(counter_range, small_series_match_brute_force)
{
	for (uint32_t n = 1; n <= 70; n++)
		check_windows(n, 0x9e3779b97f4a7c15ull + n, 40);
}

Test(counter_range, block_edges_match_brute_force)
{
	static const uint32_t sizes[] = {63, 64, 65, 127, 128, 129, 192, 1000, 4097};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_windows(sizes[i], 12345 + i, 300);
}

Test(counter_range, index_ranges_match_a_scan)
{
	struct trex_index *idx = series(3000, 77);
	uint32_t track = counter_track(idx);
	const struct trex_track *t = trex_index_track(idx, track);
	struct trex_counter_peaks p;
	uint64_t seed = 99;

	cr_assert_eq(trex_counter_peaks_build(idx, track, &p, NULL), TREX_OK);
	cr_assert_eq(p.nblocks, (3000 + TREX_COUNTER_BLOCK - 1) / TREX_COUNTER_BLOCK);
	for (int q = 0; q < 2000; q++) {
		uint32_t a = (uint32_t)(next(&seed) % 3000), b = (uint32_t)(next(&seed) % 3000);
		double want;

		if (a > b) {
			uint32_t x = a;

			a = b;
			b = x;
		}
		b++;
		want = trex_index_sample(idx, t->first_sample + a)->value;
		for (uint32_t i = a; i < b; i++)
			if (trex_index_sample(idx, t->first_sample + i)->value > want)
				want = trex_index_sample(idx, t->first_sample + i)->value;
		cr_assert_eq(trex_counter_peaks_max(&p, a, b), want, "[%u, %u)", a, b);
	}
	trex_counter_peaks_free(&p);
	trex_index_free(idx);
}

Test(counter_range, a_single_spike_among_many_samples_is_found)
{
	struct trex_index *idx = series(20000, 5);
	uint32_t track = counter_track(idx);
	const struct trex_track *t = trex_index_track(idx, track);
	struct trex_counter_peaks p;
	double all = 0, got = 0;

	cr_assert_eq(trex_counter_peaks_build(idx, track, &p, NULL), TREX_OK);
	for (uint32_t i = 0; i < t->sample_count; i++)
		if (trex_index_sample(idx, t->first_sample + i)->value > all)
			all = trex_index_sample(idx, t->first_sample + i)->value;
	/* one cell over the whole series: the tallest spike, not a sampled one */
	cr_assert(trex_counter_peaks_cell(&p, INT64_MIN / 2, INT64_MAX / 2, &got));
	cr_assert_eq(got, all);
	trex_counter_peaks_free(&p);
	trex_index_free(idx);
}

Test(counter_range, before_the_first_sample_there_is_nothing)
{
	struct trex_index *idx = series(10, 1);
	uint32_t track = counter_track(idx);
	int64_t first = trex_index_sample(idx, trex_index_track(idx, track)->first_sample)->ts;
	struct trex_counter_peaks p;
	double v;

	cr_assert_eq(trex_counter_peaks_build(idx, track, &p, NULL), TREX_OK);
	cr_assert_not(trex_counter_peaks_cell(&p, first - 100, first, &v));
	cr_assert(trex_counter_peaks_cell(&p, first - 100, first + 1, &v));
	trex_counter_peaks_free(&p);
	trex_index_free(idx);
}

/* The samples around a time: the one in force, and up to `around` either
 * side, against a scan of the series. */
Test(counter_around, the_sample_in_force_and_its_neighbours)
{
	struct trex_index *idx = series(500, 7);
	uint32_t track = counter_track(idx);
	const struct trex_track *t = trex_index_track(idx, track);
	const struct trex_counter_sample *first = trex_index_sample(idx, t->first_sample);
	const struct trex_counter_sample *last =
	    trex_index_sample(idx, t->first_sample + t->sample_count - 1);
	struct trex_counter_window w;

	for (int64_t q = first->ts - 5; q <= last->ts + 5; q += 3) {
		uint32_t in_force = t->first_sample;

		for (uint32_t i = 0; i < t->sample_count; i++)
			if (trex_index_sample(idx, t->first_sample + i)->ts <= q)
				in_force = t->first_sample + i;
		cr_assert(trex_counter_around(idx, track, q, 10, &w));
		cr_assert_eq(w.at, in_force, "t=%lld", (long long)q);
		cr_assert_eq(w.before_first, q < first->ts);
		cr_assert_eq(w.first,
		             in_force - t->first_sample >= 10 ? in_force - 10 : t->first_sample);
		cr_assert_eq(w.first + w.count - 1,
		             in_force + 10 < t->first_sample + t->sample_count
		                 ? in_force + 10
		                 : t->first_sample + t->sample_count - 1);
	}
	cr_assert(trex_counter_around(idx, track, last->ts + 1000, 0, &w));
	cr_assert_eq(w.count, 1, "around 0: the sample in force alone");
	cr_assert_eq(w.at, t->first_sample + t->sample_count - 1);
	trex_index_free(idx);
}

Test(counter_around, a_series_without_samples)
{
	struct trex_index *idx = series(0, 1);
	struct trex_counter_window w;

	for (uint32_t t = 0; t < trex_index_track_count(idx); t++)
		cr_assert_not(trex_counter_around(idx, t, 0, 5, &w));
	trex_index_free(idx);
}
