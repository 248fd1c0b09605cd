/* The ASTRA-sim simulator timeline: its line parser (visualizer layout,
 * the simulator's own log prefix, names with commas, positioned errors)
 * and the loader over memory sources (cycles to ns by the NPU clock,
 * tracks per NPU and kind, unmatched issues and callbacks, args read back
 * from the issue line). tests/e2e/astrasim.sh checks real logs against an
 * independent reading. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "astrasim_log.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

static bool parse(const char *line, struct asl_record *r, const char **why, size_t *col)
{
	*why = NULL;
	*col = 0;
	return asl_parse_line(line, strlen(line), r, why, col);
}

Test(astrasim_log, visualizer_layout)
{
	struct asl_record r;
	const char *why;
	size_t col;

	cr_assert(parse("callback,a=3,b=120,c=7,d=COMP_NODE_x,extra", &r, &why, &col));
	cr_assert_eq(r.kind, ASL_CALLBACK);
	cr_assert_eq(r.npu, 3);
	cr_assert_eq(r.tick, 120);
	cr_assert_eq(r.node_id, 7);
	cr_assert_eq(r.name_len, strlen("COMP_NODE_x"));
	cr_assert(strncmp(r.name, "COMP_NODE_x", r.name_len) == 0);
	cr_assert_eq(r.node_type, -1);
	cr_assert_eq(r.at, 0);
}

Test(astrasim_log, simulator_prefix_and_comma_names)
{
	static const char line[] =
	    "[2026-11-24 02:03:34.349] [workload] [debug] issue,sys->id=1, "
	    "tick=18446744073709551615, "
	    "node->id=42, node->name=void k<int, float>(int, float), node->type=4";
	struct asl_record r;
	const char *why;
	size_t col;

	cr_assert(parse(line, &r, &why, &col));
	cr_assert_eq(r.kind, ASL_ISSUE);
	cr_assert_eq(r.tick, UINT64_MAX);
	cr_assert_eq(r.node_type, 4);
	cr_assert_eq(r.at, strlen("[2026-11-24 02:03:34.349] [workload] [debug] "));
	cr_assert_eq(r.name_len, strlen("void k<int, float>(int, float)"));
}

Test(astrasim_log, other_lines_and_errors)
{
	struct asl_record r;
	const char *why;
	size_t col;

	/* another log line: no record */
	cr_assert(parse("[x] [system] [info] CallbackTracker issued,3", &r, &why, &col));
	cr_assert_eq(r.kind, ASL_NONE);
	cr_assert_not(
	    parse("issue,sys->id=1, tick=soon, node->id=1, node->name=a", &r, &why, &col));
	cr_assert_str_eq(why, "expected the cycle column (tick=N)");
	cr_assert_eq(col, strlen("issue,sys->id=1, tick="));
	cr_assert_not(parse("issue,sys->id=1, tick=5", &r, &why, &col));
	cr_assert_str_eq(why, "expected ',' after the number");
	cr_assert_not(parse("issue,1,2,3,name", &r, &why, &col));
	cr_assert_str_eq(why, "expected the NPU column (sys->id=N)");
	cr_assert_not(parse("issue,a=1,b=2,c=3,d=n, node->type=x", &r, &why, &col));
	cr_assert_str_eq(why, "expected a node type number (0-255) after node->type=");
	/* 2^64 cycles do not fit */
	cr_assert_not(parse("issue,a=1,b=18446744073709551616,c=3,d=n", &r, &why, &col));
}

static const char small_log[] =
    "issue,sys->id=0, tick=0, node->id=5, node->name=COMP_NODE_a\n"
    "issue,sys->id=1, tick=3, node->id=9, node->name=x, node->type=7\n"
    "callback,sys->id=0, tick=3000, node->id=5, node->name=COMP_NODE_a\n"
    "callback,sys->id=1, tick=10, node->id=8, node->name=y\n"
    "callback,sys->id=1, tick=4500, node->id=9, node->name=x\n"
    "issue,sys->id=0, tick=3000, node->id=6, node->name=COMP_NODE_b\n";

static struct trex_index *load(const char *text, double ghz)
{
	struct trex_source *src;
	struct trex_index *idx = NULL;
	struct trex_error err;
	struct trex_load_opts opts = {.threads = 1, .npu_frequency_ghz = ghz};

	cr_assert_eq(trex_source_open_memory("t.log", text, strlen(text), true, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

static const struct trex_slice *named(const struct trex_index *idx, const char *name)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		if (strcmp(trex_index_str(idx, s->name), name) == 0)
			return s;
	}
	cr_assert_fail("no slice %s", name);
	return NULL;
}

Test(astrasim_timeline, cycles_at_the_npu_clock)
{
	struct trex_index *idx = load(small_log, 1.5);
	const struct trex_slice *a = named(idx, "COMP_NODE_a"), *x = named(idx, "x");

	cr_assert_eq(trex_index_slice_count(idx), 3);
	cr_assert_eq(a->ts, 0);
	cr_assert_eq(a->dur, 2000); /* 3000 cycles at 1.5 GHz */
	cr_assert_eq(x->ts, 2);     /* 3 cycles: 2 ns, rounded */
	cr_assert_eq(x->dur, 3000 - 2);
	cr_assert_str_eq(trex_index_str(idx, trex_index_track(idx, a->track)->name), "compute");
	cr_assert_str_eq(trex_index_str(idx, trex_index_track(idx, x->track)->name),
	                 "communication");
	trex_index_free(idx);
}

Test(astrasim_timeline, unmatched_lines)
{
	struct trex_index *idx = load(small_log, 0);
	const struct trex_file *f = trex_index_file(idx, 0);
	const struct trex_slice *b = named(idx, "COMP_NODE_b");

	/* the issue never called back runs to the log's last cycle */
	cr_assert_eq(b->ts, 3000);
	cr_assert_eq(b->dur, 1500);
	cr_assert_eq(f->integrity.unmatched_begin, 1);
	cr_assert_eq(f->integrity.unmatched_end, 1);
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_unmatched_end, 0);
	cr_assert_not_null(p);
	cr_assert_eq(p->line, 4);
	cr_assert(strstr(p->what, "callback of node 8 of NPU 1 without its issue"));
	p = trex_index_problem(idx, 0, TREX_INTEG_unmatched_begin, 0);
	cr_assert_eq(p->line, 6);
	trex_index_free(idx);
}

Test(astrasim_timeline, args_from_the_issue_line)
{
	struct trex_index *idx = load(small_log, 0);
	const struct trex_slice *x = named(idx, "x");
	char *json = NULL;
	size_t len = 0;
	struct trex_error err;

	cr_assert_eq(trex_index_args_json(idx, 0, x->args, &json, &len, &err), TREX_OK);
	cr_assert_str_eq(json, "{\"npu\":\"1\",\"node id\":\"9\",\"node type\":\"7\","
	                       "\"issue cycle\":\"3\",\"log\":\"issue,sys->id=1, tick=3, "
	                       "node->id=9, node->name=x, node->type=7\"}");
	free(json);
	trex_index_free(idx);
}

Test(astrasim_timeline, bad_clock_is_a_usage_error)
{
	struct trex_source *src;
	struct trex_index *idx = NULL;
	struct trex_error err;
	struct trex_load_opts opts = {.threads = 1, .npu_frequency_ghz = -2};

	cr_assert_eq(
	    trex_source_open_memory("t.log", small_log, strlen(small_log), true, &src, &err),
	    TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "--npu-frequency"));
}

Test(astrasim_timeline, empty_log_says_how_to_get_lines)
{
	struct trex_source *src;
	struct trex_index *idx = NULL;
	struct trex_error err;
	struct trex_load_opts opts = {.threads = 1, .format = "astrasim-timeline"};

	cr_assert_eq(trex_source_open_memory("t.log", "", 0, true, &src, &err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, "trace-enabled"), "%s", err.message);
}
