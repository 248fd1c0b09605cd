#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "index_fixture.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

/* Loads text as one file (1 or 2 threads); fails the test on error. */
static struct trex_index *load_text_threads(const char *text, size_t len, unsigned threads)
{
	struct trex_source *src;
	struct trex_error err;
	cr_assert_eq(trex_source_open_memory("mem.json", text, len, true, &src, &err), TREX_OK);
	struct trex_load_opts opts = {.threads = threads};
	struct trex_index *idx = NULL;
	enum trex_status s = trex_load_sources(&src, 1, &opts, &idx, &err);
	char msg[1024];
	trex_error_format(&err, msg, sizeof msg);
	cr_assert_eq(s, TREX_OK, "load failed: %s", msg);
	return idx;
}

static struct trex_index *load_text(const char *text)
{
	return load_text_threads(text, strlen(text), 1);
}

static enum trex_status load_error(const char *text, size_t len, struct trex_error *err)
{
	struct trex_source *src;
	cr_assert_eq(trex_source_open_memory("bad.json", text, len, true, &src, err), TREX_OK);
	struct trex_load_opts opts = {.threads = 1};
	struct trex_index *idx = NULL;
	enum trex_status s = trex_load_sources(&src, 1, &opts, &idx, err);
	if (idx)
		trex_index_free(idx);
	return s;
}

static const struct trex_file *file0(const struct trex_index *idx)
{
	return trex_index_file(idx, 0);
}

/* The first slice named name, or fails. */
static const struct trex_slice *slice_named(const struct trex_index *idx, const char *name)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		if (strcmp(trex_index_str(idx, s->name), name) == 0)
			return s;
	}
	cr_assert_fail("no slice named %s", name);
	return NULL;
}

Test(chrome_json, array_and_object_forms_agree)
{
	const char *arr = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5}]";
	const char *obj = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,"
	                  "\"ts\":10,\"dur\":5}],\"displayTimeUnit\":\"ms\"}";
	struct trex_index *a = load_text(arr), *o = load_text(obj);
	cr_assert_eq(trex_index_slice_count(a), 1);
	cr_assert_eq(trex_index_slice_count(o), 1);
	cr_assert_eq(slice_named(a, "a")->ts, 10000);
	cr_assert_eq(slice_named(o, "a")->dur, 5000);
	cr_assert_eq(file0(a)->truncated, 0);
	trex_index_free(a);
	trex_index_free(o);
}

Test(chrome_json, exact_times_and_base_time_after_events)
{
	const char *t = "{\"traceEvents\":[\n"
	                "{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,"
	                "\"ts\":4458676522690.655,\"dur\":156.777}\n"
	                "],\"baseTimeNanoseconds\":1711964646000000000}";
	struct trex_index *idx = load_text(t);
	const struct trex_slice *s = slice_named(idx, "k");
	cr_assert_eq(s->ts, 4458676522690655LL + 1711964646000000000LL);
	cr_assert_eq(s->dur, 156777);
	cr_assert_eq(file0(idx)->base_time_ns, 1711964646000000000LL);
	trex_index_free(idx);
}

Test(chrome_json, string_and_int_ids_share_a_track)
{
	const char *t =
	    "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":\"25\",\"tid\":\"7\",\"ts\":1,\"dur\":1},"
	    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":25,\"tid\":7,\"ts\":3,\"dur\":1}]";
	struct trex_index *idx = load_text(t);
	cr_assert_eq(slice_named(idx, "a")->track, slice_named(idx, "b")->track);
	trex_index_free(idx);
}

Test(chrome_json, begin_end_pairs_and_counts)
{
	const char *t = "[{\"ph\":\"B\",\"name\":\"outer\",\"pid\":0,\"tid\":1,\"ts\":1},"
	                "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":0,\"tid\":1,\"ts\":2},"
	                "{\"ph\":\"E\",\"pid\":0,\"tid\":1,\"ts\":3},"
	                "{\"ph\":\"E\",\"pid\":0,\"tid\":1,\"ts\":9},]";
	struct trex_index *idx = load_text(t);
	cr_assert_eq(slice_named(idx, "outer")->dur, 8000);
	cr_assert_eq(slice_named(idx, "inner")->dur, 1000);
	cr_assert_eq(slice_named(idx, "inner")->depth, 1);
	cr_assert_eq(trex_file_events_of_type(idx, 0, "B"), 2);
	cr_assert_eq(trex_file_events_of_type(idx, 0, "E"), 2);
	trex_index_free(idx);
}

/* More distinct shapes than the parser's shape cache holds, each seen
 * twice, some differing only in where one arg's text ends and the next
 * begins ("02" "31" against "0" "231") or in an arg that is absent:
 * every kernel keeps its own shape. */
Test(chrome_json, launch_shapes_through_the_cache)
{
	enum { SHAPES = 150, KERNELS = 2 * SHAPES };
	static char text[KERNELS * 200 + 64], want[SHAPES][96];
	size_t n = (size_t)snprintf(text, sizeof text, "{\"traceEvents\":[\n");
	for (int k = 0; k < KERNELS; k++) {
		int i = k % SHAPES, d = i % 12 / 2, split = i % 2, b = i / 12;
		char grid[16], block[16], smem[32] = "", smem_text[16] = "?";
		snprintf(grid, sizeof grid, split ? "%d2" : "%d", d);
		snprintf(block, sizeof block, split ? "3%d" : "23%d", b);
		if (i % 3) {
			snprintf(smem_text, sizeof smem_text, "%d", i % 3 == 1 ? 0 : 4 * i);
			snprintf(smem, sizeof smem, ",\"shared memory\":%s", smem_text);
		}
		n += (size_t)snprintf(
		    text + n, sizeof text - n,
		    "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,"
		    "\"tid\":7,\"ts\":%d,\"dur\":1,\"args\":{\"grid\":\"%s\","
		    "\"block\":\"%s\"%s}}",
		    k ? ",\n" : "", k, 2 * k, grid, block, smem);
		snprintf(want[i], sizeof want[i], "grid=%s block=%s smem=%s", grid, block,
		         smem_text);
	}
	snprintf(text + n, sizeof text - n, "\n]}");
	struct trex_index *idx = load_text(text);
	for (int k = 0; k < KERNELS; k++) {
		char name[16];
		snprintf(name, sizeof name, "k%d", k);
		const struct trex_slice *s = slice_named(idx, name);
		uint32_t id = (uint32_t)(s - trex_index_slice(idx, 0));
		cr_assert_str_eq(trex_index_str(idx, trex_slice_shape(idx, id)), want[k % SHAPES],
		                 "kernel %d", k);
	}
	trex_index_free(idx);
}

Test(chrome_json, kineto_links_and_shape_from_args)
{
	const char *t =
	    "{\"traceEvents\":[\n"
	    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":9,"
	    "\"tid\":9,\"ts\":1,\"dur\":2,\"args\":{\"External id\":5,\"cbid\":211,"
	    "\"correlation\":77}},\n"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":4,"
	    "\"dur\":3,\"args\":{\"External id\":5,\"device\":0,\"stream\":7,"
	    "\"correlation\":77,\"shared memory\":400,\"grid\":[512, 1, 1],"
	    "\"block\":[128,1,1]}},\n"
	    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":77,\"pid\":9,\"tid\":9,\"ts\":"
	    "1},\n"
	    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":77,\"pid\":0,\"tid\":7,"
	    "\"ts\":4,\"bp\":\"e\"}\n"
	    "]}";
	struct trex_index *idx = load_text(t);
	const struct trex_slice *k = slice_named(idx, "gemm");
	uint32_t gemm = (uint32_t)(k - trex_index_slice(idx, 0));
	cr_assert(k->flags & TREX_SLICE_HAS_LAUNCH_LINK);
	cr_assert_eq(trex_slice_launch_link(idx, gemm), 77);
	cr_assert_eq(trex_slice_op_link(idx, gemm), 5);
	cr_assert_str_eq(trex_index_str(idx, trex_slice_shape(idx, gemm)),
	                 "grid=[512,1,1] block=[128,1,1] smem=400");
	cr_assert_eq(trex_index_flow_count(idx), 1);
	const struct trex_flow *f = trex_index_flow(idx, 0);
	cr_assert_eq(trex_index_slice(idx, f->to_slice), k);
	uint32_t other[4];
	cr_assert_eq(trex_index_same_launch_link(idx, gemm, other, 4), 1);
	cr_assert_eq(trex_index_launch_of(idx, gemm), other[0], "the launch, by correlation");
	cr_assert_eq(trex_index_launch_of(idx, other[0]), TREX_NONE, "a launch has no launch");
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, other[0])->name),
	                 "cudaLaunchKernel");
	char *args;
	size_t len;
	struct trex_error err;
	cr_assert_eq(trex_index_args_json(idx, 0, k->args, &args, &len, &err), TREX_OK);
	cr_assert_not_null(strstr(args, "\"grid\":[512, 1, 1]"));
	cr_assert_eq(args[0], '{');
	cr_assert_eq(args[len - 1], '}');
	free(args);
	cr_assert_str_eq(trex_index_str(idx, file0(idx)->dialect), "kineto");
	trex_index_free(idx);
}

Test(chrome_json, metadata_names_and_rank)
{
	const char *t =
	    "{\"traceEvents\":[\n"
	    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"python3\"}},\n"
	    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU "
	    "0\"}},\n"
	    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":"
	    "\"stream 7 \"}},\n"
	    "{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":"
	    "1}\n"
	    "],\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,\"world_size\":8}}";
	struct trex_index *idx = load_text(t);
	const struct trex_slice *k = slice_named(idx, "k");
	const struct trex_track *tr = trex_index_track(idx, k->track);
	const struct trex_process *pr = trex_index_process(idx, tr->process);
	cr_assert_str_eq(trex_index_str(idx, tr->name), "stream 7 ");
	cr_assert_str_eq(trex_index_str(idx, pr->name), "python3");
	cr_assert_str_eq(trex_index_str(idx, pr->labels), "GPU 0");
	cr_assert_eq(tr->kind, TREX_TRACK_GPU);
	cr_assert_eq(file0(idx)->rank, 3);
	cr_assert(file0(idx)->has_rank);
	trex_index_free(idx);
}

Test(chrome_json, counters_instants_unknown_phases_and_keys)
{
	const char *t =
	    "[{\"ph\":\"C\",\"name\":\"ctr\",\"pid\":1,\"ts\":1,\"args\":{\"cats\":1,\"dogs\":2.5}}"
	    ","
	    "{\"ph\":\"C\",\"name\":\"GPU Utilization\",\"pid\":1,\"ts\":2,\"args\":{\"v\":0.5}},"
	    "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":3,\"s\":\"g\"},"
	    "{\"ph\":\"Z\",\"name\":\"weird\",\"pid\":1,\"tid\":1,\"ts\":3},"
	    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,\"comment\":"
	    "\"hi\"}]";
	struct trex_index *idx = load_text(t);
	cr_assert_eq(trex_index_sample_count(idx), 3);
	cr_assert_eq(trex_index_instant_count(idx), 1);
	cr_assert_eq(trex_index_instant(idx, 0)->scope, TREX_SCOPE_GLOBAL);
	const struct trex_file *f = file0(idx);
	cr_assert_eq(trex_file_events_of_type(idx, 0, "C"), 2);
	cr_assert_eq(trex_file_events_of_type(idx, 0, "other"), 1);
	cr_assert_eq(f->integrity.unknown_phase, 1);
	cr_assert_eq(f->integrity.unknown_keys, 1);
	bool found = false;
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++)
		found |=
		    strcmp(trex_index_str(idx, trex_index_track(idx, i)->name), "ctr dogs") == 0;
	cr_assert(found, "a series per counter member");
	trex_index_free(idx);
}

Test(chrome_json, invalid_utf8_and_huge_integers_are_repaired)
{
	const char t[] =
	    "[{\"ph\":\"X\",\"name\":\"bad\xff\",\"pid\":0,\"tid\":15514734831341844875,"
	    "\"ts\":5,\"dur\":1}]";
	struct trex_index *idx = load_text(t);
	const struct trex_slice *s = slice_named(idx, "bad\xef\xbf\xbd");
	cr_assert_eq(s->ts, 5000);
	cr_assert_eq(file0(idx)->integrity.invalid_utf8, 1);
	const struct trex_track *tr = trex_index_track(idx, s->track);
	cr_assert_str_eq(trex_index_str(idx, tr->tid), "15514734831341844875");
	cr_assert_eq(file0(idx)->integrity.bad_ids, 0, "a tid below 2^64 is an integer");
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_invalid_utf8, 0);
	cr_assert_not_null(p);
	cr_assert_eq(p->offset, (int64_t)(strstr(t, "bad") - t));
	cr_assert_eq(p->slice, (uint32_t)(s - trex_index_slice(idx, 0)),
	             "the example names the slice");
	trex_index_free(idx);
}

/* A ts or dur beyond int64 ns is dropped with its position, not kept as a
 * slice saturated to 292 years (issue 10). */
Test(chrome_json, times_beyond_int64_are_dropped_with_their_position)
{
	const char t[] =
	    "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":99999999999999999999,"
	    "\"dur\":1},\n{\"ph\":\"X\",\"name\":\"b\",\"pid\":0,\"tid\":0,\"ts\":1,"
	    "\"dur\":1e308},\n{\"ph\":\"X\",\"name\":\"c\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":2}"
	    "]";
	struct trex_index *idx = load_text(t);
	const struct trex_file *f = file0(idx);
	cr_assert_eq(trex_index_slice_count(idx), 1);
	slice_named(idx, "c");
	cr_assert_eq(f->integrity.ts_out_of_range, 1);
	cr_assert_eq(f->integrity.dur_out_of_range, 1);
	cr_assert_eq(f->integrity.saturated_numbers, 0);
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_dur_out_of_range, 0);
	cr_assert_not_null(p);
	cr_assert_eq(p->offset, (int64_t)(strstr(t, "1e308") - t));
	cr_assert_eq(p->line, 2);
	cr_assert_str_eq(p->what, "dur 1e308 us is beyond int64 ns");
	p = trex_index_problem(idx, 0, TREX_INTEG_ts_out_of_range, 0);
	cr_assert_eq(p->line, 1);
	cr_assert_eq(trex_index_end(idx), 3000, "nothing stretches the span");
	trex_index_free(idx);
}

Test(chrome_json, acelyzer_attr_dialect)
{
	const char *t =
	    "[{\"attr\":{\"TS1\":\"1\"},\"name\":\"add Cmpt Exec\",\"ph\":\"B\",\"pid\":0,"
	    "\"tid\":1,\"ts\":1.5},{\"attr\":{},\"name\":\"add Cmpt Exec\",\"ph\":\"E\","
	    "\"pid\":0,\"tid\":1,\"ts\":2.5}]";
	struct trex_index *idx = load_text(t);
	cr_assert_str_eq(trex_index_str(idx, file0(idx)->dialect), "acelyzer-flex");
	cr_assert_eq(slice_named(idx, "add Cmpt Exec")->dur, 1000);
	trex_index_free(idx);
}

Test(chrome_json, truncated_inside_an_event_keeps_the_rest)
{
	const char *t =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,"
	    "\"dur\":1},{\"ph\":\"X\",\"name\":\"b\",\"pid\":0,\"tid\":0,\"ts\":5,\"du";
	struct trex_index *idx = load_text(t);
	const struct trex_file *f = file0(idx);
	cr_assert_eq(trex_index_slice_count(idx), 1);
	cr_assert(f->truncated);
	size_t cut = strlen(strstr(t, "{\"ph\":\"X\",\"name\":\"b\""));
	cr_assert_eq(f->integrity.bytes_ignored, cut);
	cr_assert_eq(f->first_problem.offset, (int64_t)(strlen(t) - cut));
	cr_assert_eq(f->first_problem.line, 1);
	trex_index_free(idx);
}

Test(chrome_json, missing_closing_brackets_lose_nothing)
{
	const char *t =
	    "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,"
	    "\"dur\":1}\n";
	struct trex_index *idx = load_text(t);
	cr_assert_eq(trex_index_slice_count(idx), 1);
	cr_assert(file0(idx)->truncated);
	cr_assert_eq(file0(idx)->integrity.bytes_ignored, 0, "trailing whitespace is no loss");
	cr_assert_not_null(strstr(file0(idx)->first_problem.message, "']'"));
	trex_index_free(idx);
}

Test(chrome_json, corruption_in_the_middle_is_skipped_and_reported)
{
	const char *t = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1},\n"
	                "{\"ph\":\"X\",\"name\":\"b\",\"pid\":0,\"tid\":0,\"ts\"=3,\"dur\":1},\n"
	                "{\"ph\":\"X\",\"name\":\"c\",\"pid\":0,\"tid\":0,\"ts\":5,\"dur\":1}]";
	struct trex_index *idx = load_text(t);
	const struct trex_file *f = file0(idx);
	cr_assert_eq(trex_index_slice_count(idx), 2);
	slice_named(idx, "c");
	cr_assert_eq(f->integrity.syntax_errors, 1);
	cr_assert_gt(f->integrity.bytes_skipped, 0);
	cr_assert_eq(f->first_problem.line, 2);
	cr_assert_eq(f->first_problem.offset, (int64_t)(strchr(t, '=') - t));
	cr_assert_not_null(strstr(f->first_problem.message, "':'"));
	trex_index_free(idx);
}

Test(chrome_json, not_a_trace_is_an_error_with_position)
{
	struct trex_error err;
	cr_assert_eq(load_error("", 0, &err), TREX_FORMAT);
	cr_assert_not_null(strstr(err.message, "empty"));
	cr_assert_str_eq(err.path, "bad.json");
	cr_assert_eq(load_error("\n\n  hello", 9, &err), TREX_FORMAT);
	cr_assert_eq(err.offset, 4);
	cr_assert_eq(err.line, 3);
	cr_assert_eq(err.col, 3);
	cr_assert_eq(load_error("{\"foo\": 1}", 10, &err), TREX_FORMAT);
	cr_assert_not_null(strstr(err.message, "traceEvents"));
	cr_assert_eq(load_error("[\x01\x02\x03 junk", 9, &err), TREX_FORMAT, "nothing but errors");
	const char bin[] = {'\x1f', '\x00', '\xff', '\xfe'};
	cr_assert_eq(load_error(bin, sizeof bin, &err), TREX_FORMAT);
}

/* A big trace whose names contain "}, {" so that guessed chunk boundaries
 * fall inside strings: the parallel parse must still equal the serial one. */
static char *big_trace(size_t events, size_t *len)
{
	size_t cap = events * 160 + 64, n = 0;
	char *s = malloc(cap);
	n += (size_t)sprintf(s + n, "{\"traceEvents\":[\n");
	for (size_t i = 0; i < events; i++)
		n += (size_t)sprintf(s + n,
		                     "%s{\"ph\":\"X\",\"name\":\"op %zu\\\"}, {\\\"\",\"pid\":%zu,"
		                     "\"tid\":%zu,\"ts\":%zu.%03zu,\"dur\":1.5}",
		                     i ? ",\n" : "", i % 97, i % 3, i % 5, i * 2, i % 1000);
	n += (size_t)sprintf(s + n, "\n]}\n");
	*len = n;
	return s;
}

Test(chrome_json, parallel_parse_equals_serial, .timeout = 60)
{
	size_t len;
	char *t = big_trace(120000, &len);
	cr_assert_gt(len, 8u << 20, "big enough to be split");
	struct trex_index *one = load_text_threads(t, len, 1);
	struct trex_index *two = load_text_threads(t, len, 4);
	cr_assert_eq(trex_index_slice_count(one), 120000);
	cr_assert_eq(trex_index_slice_count(two), 120000);
	for (uint32_t i = 0; i < 120000; i++) {
		const struct trex_slice *a = trex_index_slice(one, i),
		                        *b = trex_index_slice(two, i);
		cr_assert_eq(a->ts, b->ts);
		cr_assert_eq(a->dur, b->dur);
		cr_assert_str_eq(trex_index_str(one, a->name), trex_index_str(two, b->name));
	}
	cr_assert_eq(file0(two)->events, 120000);
	free(t);
	trex_index_free(one);
	trex_index_free(two);
}

Test(chrome_json, gzip_equals_plain, .timeout = 60)
{
	size_t len;
	char *t = big_trace(20000, &len);
	size_t gz_len;
	unsigned char *z = fixture_gzip(t, len, &gz_len);
	struct trex_index *plain = load_text_threads(t, len, 1);
	struct trex_index *gz = load_text_threads((const char *)z, gz_len, 2);
	cr_assert(file0(gz)->gzip);
	cr_assert_eq(trex_index_slice_count(gz), trex_index_slice_count(plain));
	for (uint32_t i = 0; i < trex_index_slice_count(gz); i += 97)
		cr_assert_eq(trex_index_slice(gz, i)->ts, trex_index_slice(plain, i)->ts);
	/* a gzip stream cut in half still loads its first part */
	struct trex_index *cut = load_text_threads((const char *)z, gz_len / 2, 1);
	cr_assert(file0(cut)->truncated);
	cr_assert_gt(trex_index_slice_count(cut), 0);
	cr_assert_lt(trex_index_slice_count(cut), 20000);
	trex_index_free(cut);
	free(t);
	free(z);
	trex_index_free(plain);
	trex_index_free(gz);
}

/* gz loaded in stream windows of `window` bytes (0: the loader's own). */
static struct trex_index *load_gz_window(const unsigned char *gz, size_t len, unsigned threads,
                                         size_t window)
{
	struct trex_source *src;
	struct trex_error err;
	struct trex_index *idx = NULL;
	struct trex_load_opts opts = {.threads = threads, .stream_window = window};
	cr_assert_eq(trex_source_open_memory("c.json.gz", (const char *)gz, len, true, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

/* Whether zlib stops with an error a few KB into gz, events after it. */
static bool breaks_early(const unsigned char *gz, size_t len, size_t text_len)
{
	z_stream zs;
	unsigned char *out = malloc(text_len + 1);
	memset(&zs, 0, sizeof zs);
	cr_assert_eq(inflateInit2(&zs, 31), Z_OK);
	zs.next_in = (unsigned char *)(uintptr_t)gz;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)text_len + 1;
	int ret = inflate(&zs, Z_FINISH);
	size_t n = zs.total_out;
	inflateEnd(&zs);
	free(out);
	return ret != Z_STREAM_END && n >= 4096 && n + 4096 <= text_len;
}

/* A trace whose gzip data breaks a few KB in loads the same events, damage
 * and counts in windows of any size, on one thread or two (found by
 * fuzz_json: small windows lost every event but the last window's, since
 * ISA-L reported the break before the good bytes that precede it). */
Test(chrome_json, a_broken_gzip_trace_loads_the_same_in_any_window, .timeout = 120)
{
	size_t len, gz_len;
	char *t = big_trace(400, &len);
	unsigned char *gz = fixture_gzip(t, len, &gz_len);
	unsigned seed = 5, tried = 0;
	for (int c = 0; c < 300 && tried < 4; c++) {
		unsigned char *bad = malloc(gz_len);
		memcpy(bad, gz, gz_len);
		seed = seed * 1103515245u + 12345u;
		bad[200 + (seed >> 8) % 800] ^= 0xa5;
		if (!breaks_early(bad, gz_len, len)) {
			free(bad);
			continue;
		}
		tried++;
		struct trex_index *ref = load_gz_window(bad, gz_len, 1, 0);
		const struct trex_file *rf = file0(ref);
		cr_assert_gt(rf->events, 20);
		for (size_t window = 64; window < 40000; window = window * 3 / 2)
			for (unsigned threads = 1; threads <= 2; threads++) {
				struct trex_index *idx =
				    load_gz_window(bad, gz_len, threads, window);
				const struct trex_file *f = file0(idx);
				cr_assert_eq(f->events, rf->events, "window %zu, %u threads",
				             window, threads);
				cr_assert_eq(trex_index_slice_count(idx),
				             trex_index_slice_count(ref));
				cr_assert_eq(
				    memcmp(&f->integrity, &rf->integrity, sizeof f->integrity), 0,
				    "window %zu, %u threads", window, threads);
				trex_index_free(idx);
			}
		trex_index_free(ref);
		free(bad);
	}
	cr_assert_eq(tried, 4);
	free(gz);
	free(t);
}

/* Kineto writes the kernel (with its 'f') before the launch (with its 's'):
 * flows pair in time order, not file order. */
Test(chrome_json, flow_end_written_before_its_start)
{
	const char *t = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
	                "\"ts\":10,\"dur\":5},"
	                "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":3,\"pid\":0,"
	                "\"tid\":7,\"ts\":10,\"bp\":\"e\"},"
	                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"launch\",\"pid\":1,"
	                "\"tid\":1,\"ts\":2,\"dur\":3},"
	                "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":3,\"pid\":1,"
	                "\"tid\":1,\"ts\":2}]";
	struct trex_index *idx = load_text(t);
	cr_assert_eq(trex_index_flow_count(idx), 1);
	const struct trex_flow *f = trex_index_flow(idx, 0);
	cr_assert_eq(trex_index_slice(idx, f->from_slice), slice_named(idx, "launch"));
	cr_assert_eq(trex_index_slice(idx, f->to_slice), slice_named(idx, "k"));
	cr_assert_eq(file0(idx)->integrity.orphan_flow_end, 0);
	cr_assert_eq(file0(idx)->integrity.orphan_flow_start, 0);
	trex_index_free(idx);
}

/* Thousands of flows written in a shuffled order, each id used twice
 * (two launches, one after the other): every point is sorted into its
 * chain by time before pairing, so each launch still meets its kernel. */
Test(chrome_json, shuffled_flows_pair_in_time_order, .timeout = 60)
{
	enum { FLOWS = 3000 };
	size_t cap = FLOWS * 4 * 160 + 64, n = 0;
	char *t = malloc(cap);
	unsigned *order = malloc(FLOWS * sizeof *order), seed = 12345;
	for (unsigned i = 0; i < FLOWS; i++)
		order[i] = i;
	for (unsigned i = FLOWS - 1; i > 0; i--) {
		seed = seed * 1103515245u + 12345u;
		unsigned j = (seed >> 8) % (i + 1), x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	n += (size_t)sprintf(t + n, "[");
	for (unsigned k = 0; k < FLOWS; k++) {
		unsigned i = order[k], id = i % (FLOWS / 2), ts = 100 + i * 20;
		n += (size_t)sprintf(
		    t + n,
		    "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%u\",\"pid\":0,\"tid\":7,"
		    "\"ts\":%u,\"dur\":5},"
		    "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%u,\"pid\":0,"
		    "\"tid\":7,\"ts\":%u,\"bp\":\"e\"},"
		    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"l%u\",\"pid\":1,"
		    "\"tid\":1,\"ts\":%u,\"dur\":3},"
		    "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%u,\"pid\":1,"
		    "\"tid\":1,\"ts\":%u}",
		    k ? "," : "", i, ts + 10, id, ts + 10, i, ts, id, ts);
	}
	n += (size_t)sprintf(t + n, "]");
	struct trex_index *idx = load_text_threads(t, n, 1);
	cr_assert_eq(trex_index_flow_count(idx), FLOWS);
	for (uint32_t f = 0; f < FLOWS; f++) {
		const struct trex_flow *fl = trex_index_flow(idx, f);
		const char *from = trex_index_str(idx, trex_index_slice(idx, fl->from_slice)->name);
		const char *to = trex_index_str(idx, trex_index_slice(idx, fl->to_slice)->name);
		cr_assert_eq(from[0], 'l');
		cr_assert_str_eq(from + 1, to + 1, "flow %u: %s -> %s", f, from, to);
	}
	cr_assert_eq(file0(idx)->integrity.orphan_flow_end, 0);
	cr_assert_eq(file0(idx)->integrity.orphan_flow_start, 0);
	free(order);
	free(t);
	trex_index_free(idx);
}

/* A duration that would carry the end past int64 is clamped, so every
 * consumer can compute ts + dur (found by UBSan in trex info), and the
 * clamp is counted with the slice it changed. */
Test(chrome_json, end_time_never_overflows)
{
	const char *t =
	    "[{\"ph\":\"X\",\"name\":\"big\",\"pid\":1,\"tid\":1,\"ts\":9223372036854775,"
	    "\"dur\":1000000}]";
	struct trex_index *idx = load_text(t);
	const struct trex_slice *s = slice_named(idx, "big");
	cr_assert_eq(s->ts, 9223372036854775000LL);
	cr_assert_eq(s->ts + s->dur, INT64_MAX);
	cr_assert(s->flags & TREX_SLICE_TS_SATURATED);
	cr_assert_eq(file0(idx)->integrity.saturated_numbers, 1);
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_saturated_numbers, 0);
	cr_assert_not_null(p);
	cr_assert_eq(p->slice, 0);
	trex_index_free(idx);
}
