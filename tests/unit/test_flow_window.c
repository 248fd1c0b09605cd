/* Flows by time against a scan of every flow, on random flows between
 * random slices of a few tracks. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "index_fixture.h"
#include "trex/analysis/flow_window.h"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Four threads of 50 back-to-back slices of 100 ns; n flows (s on one
 * slice, f on another, either direction in time). */
static struct trex_index *flows(uint32_t n, uint64_t seed)
{
	struct trex_build_file file = fixture_file("f.json");
	struct trex_builder *b = trex_builder_new(0);
	static const char *const tids[] = {"1", "2", "3", "4"};
	uint32_t cat = fixture_str(b, "fwdbwd"), name = fixture_str(b, "fwdbwd");

	for (int t = 0; t < 4; t++)
		for (int i = 0; i < 50; i++)
			fixture_add(b, &file,
			            &(struct fixture_slice){"9", tids[t], "cpu_op", "op",
			                                    1000 + i * 100, 100, 0, 0, NULL});
	for (uint32_t k = 0; k < n; k++) {
		uint32_t t0 = trex_builder_track(b, fixture_str(b, "9"),
		                                 fixture_str(b, tids[next(&seed) % 4]));
		uint32_t t1 = trex_builder_track(b, fixture_str(b, "9"),
		                                 fixture_str(b, tids[next(&seed) % 4]));
		int64_t a = 1000 + (int64_t)(next(&seed) % 5000),
		        z = 1000 + (int64_t)(next(&seed) % 5000);

		struct trex_flow_point p = {{cat, 0, k + 1},     name, TREX_FLOW_START,
		                            TREX_HANDLE_NONE,    t0,   a,
		                            TREX_BIND_ENCLOSING, false};

		cr_assert_eq(trex_builder_flow(b, &p), 0);
		p.role = TREX_FLOW_END, p.track = t1, p.ts = z;
		cr_assert_eq(trex_builder_flow(b, &p), 0);
		file.events += 2;
	}
	return fixture_build(&file, &b, 1);
}

static void check(const struct trex_index *idx, const struct trex_flow_order *o, int64_t t0,
                  int64_t t1)
{
	uint32_t n = trex_index_flow_count(idx), want = 0, *got = calloc(n + 1, sizeof(*got));
	char *seen = calloc(n + 1, 1);
	size_t total = trex_flows_in_window(o, t0, t1, got, n);

	for (uint32_t i = 0; i < n; i++) {
		const struct trex_flow *f = trex_index_flow(idx, i);

		if ((f->from_ts >= t0 && f->from_ts < t1) || (f->to_ts >= t0 && f->to_ts < t1))
			want++;
	}
	cr_assert_eq(total, want, "[%lld, %lld): %zu flows, a scan finds %u", (long long)t0,
	             (long long)t1, total, want);
	for (size_t i = 0; i < total; i++) {
		const struct trex_flow *f = trex_index_flow(idx, got[i]);

		cr_assert_not(seen[got[i]], "flow %u listed twice", got[i]);
		seen[got[i]] = 1;
		cr_assert((f->from_ts >= t0 && f->from_ts < t1) ||
		          (f->to_ts >= t0 && f->to_ts < t1));
	}
	/* a short list is a prefix of the full one */
	if (total > 3) {
		uint32_t few[3];

		cr_assert_eq(trex_flows_in_window(o, t0, t1, few, 3), total);
		cr_assert_eq(memcmp(few, got, sizeof(few)), 0);
	}
	free(got);
	free(seen);
}

Test(flow_window, windows_match_a_scan)
{
	struct trex_index *idx = flows(300, 99);
	struct trex_flow_order o;
	struct trex_error err;
	uint64_t seed = 5;

	cr_assert_gt(trex_index_flow_count(idx), 100);
	cr_assert_eq(trex_flow_order_build(idx, &o, &err), TREX_OK);
	check(idx, &o, INT64_MIN, INT64_MAX);
	check(idx, &o, 0, 1000);
	check(idx, &o, 6000, 7000);
	for (int q = 0; q < 300; q++) {
		int64_t a = 900 + (int64_t)(next(&seed) % 5200), len = (int64_t)(next(&seed) % 800);

		check(idx, &o, a, a + len);
	}
	cr_assert_eq(trex_flows_in_window(&o, 5000, 5000, NULL, 0), 0, "an empty window");
	trex_flow_order_free(&o);
	trex_index_free(idx);
}

Test(flow_window, no_flows)
{
	struct trex_index *idx = flows(0, 1);
	struct trex_flow_order o;
	struct trex_error err;
	uint32_t out[4];

	cr_assert_eq(trex_flow_order_build(idx, &o, &err), TREX_OK);
	cr_assert_eq(trex_flows_in_window(&o, INT64_MIN, INT64_MAX, out, 4), 0);
	trex_flow_order_free(&o);
	trex_index_free(idx);
}
