/* Index files (core/index_file.h, load/index_cache.h): a loaded index and
 * the same index written and mapped back answer every query alike; damaged,
 * foreign and stale files are refused; gzip access points survive. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "index_fixture.h"
#include "trex/core/clock.h"
#include "trex/core/index.h"
#include "trex/core/index_file.h"
#include "trex/load/index_cache.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"
#include "../../src/core/index_file_internal.h"

/* Every kind of record: nesting, B/E, runtime -> kernel by correlation,
 * op links by External id, a flow, counters, instants, async slices,
 * metadata, and a damaged spot that leaves integrity examples. */
static const char trace_json[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"main\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":2,\"ts\":10,"
    "\"dur\":50,\"args\":{\"External id\":7,\"Input Dims\":[[2,3],[3,4]]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,"
    "\"ts\":20,\"dur\":5,\"args\":{\"External id\":7,\"correlation\":99}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,\"ts\":30,"
    "\"dur\":40,\"args\":{\"External id\":7,\"correlation\":99,\"grid\":[4,1,1],"
    "\"block\":[128,1,1],\"shared memory\":0,\"stream\":7,\"device\":0}},\n"
    "{\"ph\":\"s\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":3,\"pid\":1,\"tid\":2,\"ts\":12},"
    "\n"
    "{\"ph\":\"f\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":3,\"pid\":1,\"tid\":2,\"ts\":80,"
    "\"bp\":\"e\"},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce\",\"pid\":0,"
    "\"tid\":7,\"ts\":72,\"dur\":2},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm_backward\",\"pid\":1,\"tid\":2,"
    "\"ts\":75,\"dur\":10},\n"
    "{\"ph\":\"B\",\"name\":\"step\",\"pid\":1,\"tid\":3,\"ts\":5},\n"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":3,\"ts\":90},\n"
    "{\"ph\":\"C\",\"name\":\"memory\",\"pid\":1,\"ts\":10,\"args\":{\"bytes\":100}},\n"
    "{\"ph\":\"C\",\"name\":\"memory\",\"pid\":1,\"ts\":50,\"args\":{\"bytes\":300}},\n"
    "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":2,\"ts\":15,\"s\":\"t\","
    "\"args\":{\"why\":\"x\"}},\n"
    "{\"ph\":\"b\",\"cat\":\"io\",\"name\":\"read\",\"id\":5,\"pid\":1,\"ts\":11},\n"
    "{\"ph\":\"e\",\"cat\":\"io\",\"name\":\"read\",\"id\":5,\"pid\":1,\"ts\":33},\n"
    "{\"ph\":\"X\",\"name\":\"bad ts\",\"pid\":1,\"tid\":2,\"ts\":\"abc\",\"dur\":1},\n"
    "{\"ph\":\"X\",\"name\":\"cut\",\"pid\":1,\"tid\":2,\"ts\":1 \"dur\" 2},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"tail_kernel\",\"pid\":0,\"tid\":7,\"ts\":95,"
    "\"dur\":3,\"args\":{\"correlation\":100}}\n"
    "],\"deviceProperties\":[{\"id\":0,\"name\":\"GPU\"}]}\n";

static char tmpdir[64];

static void setup(void)
{
	fixture_cache_dir_make(tmpdir, "/tmp/trex-idxfile.XXXXXX");
}

static void teardown(void)
{
	fixture_cache_dir_remove(tmpdir);
}

TestSuite(index_file, .init = setup, .fini = teardown);

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f);
	cr_assert(fwrite(data, 1, len, f) == len);
	cr_assert(fclose(f) == 0);
}

static char *in_tmp(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static struct trex_index *load_path(const char *path, enum trex_cache_mode mode,
                                    struct trex_cache_report *rep)
{
	struct trex_load_opts opts = {.threads = 2};
	struct trex_source *src;
	struct trex_index *idx;
	struct trex_error err;

	cr_assert(trex_source_open(path, &src, &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_cache_load(&src, 1, &opts, mode, rep, &idx, &err) == TREX_OK, "%s",
	          err.message);
	return idx;
}

/* The index written to file and loaded back (codecs reopened). */
static struct trex_index *round_trip(const struct trex_index *idx, const char *file)
{
	struct trex_index_file *f;
	struct trex_index *back;
	struct trex_error err;

	cr_assert(trex_index_file_write(idx, file, "id", 2, &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_index_file_map(file, &f, &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_index_file_load(f, trex_cache_reopen_codec, NULL, &back, &err) == TREX_OK,
	          "%s", err.message);
	return back;
}

/* ---- comparing two indexes, query by query -------------------------------------------------- */

static void same_str(const struct trex_index *a, const struct trex_index *b, uint32_t ia,
                     uint32_t ib)
{
	cr_assert_str_eq(trex_index_str(a, ia), trex_index_str(b, ib));
}

static void same_files(const struct trex_index *a, const struct trex_index *b)
{
	cr_assert_eq(trex_index_file_count(a), trex_index_file_count(b));
	for (uint32_t i = 0; i < trex_index_file_count(a); i++) {
		const struct trex_file *x = trex_index_file(a, i), *y = trex_index_file(b, i);

		same_str(a, b, x->path, y->path);
		same_str(a, b, x->dialect, y->dialect);
		cr_assert_eq(x->rank, y->rank);
		cr_assert_eq(x->events, y->events);
		cr_assert_eq(x->bytes_decoded, y->bytes_decoded);
		cr_assert(memcmp(&x->integrity, &y->integrity, sizeof(x->integrity)) == 0);
		cr_assert_str_eq(x->first_problem.message, y->first_problem.message);
		cr_assert_eq(x->event_type_count, y->event_type_count);
		for (int c = 0; c < TREX_INTEG_COUNT; c++) {
			enum trex_integrity_counter k = (enum trex_integrity_counter)c;

			cr_assert_eq(trex_index_problem_count(a, i, k),
			             trex_index_problem_count(b, i, k));
			for (uint32_t n = 0; n < trex_index_problem_count(a, i, k); n++)
				cr_assert_str_eq(trex_index_problem(a, i, k, n)->what,
				                 trex_index_problem(b, i, k, n)->what);
		}
		cr_assert_eq(!trex_index_damage(a, i, true), !trex_index_damage(b, i, true));
	}
}

static void same_tracks(const struct trex_index *a, const struct trex_index *b)
{
	cr_assert_eq(trex_index_process_count(a), trex_index_process_count(b));
	for (uint32_t i = 0; i < trex_index_process_count(a); i++)
		cr_assert(memcmp(trex_index_process(a, i), trex_index_process(b, i),
		                 offsetof(struct trex_process, pad)) == 0);
	cr_assert_eq(trex_index_track_count(a), trex_index_track_count(b));
	for (uint32_t i = 0; i < trex_index_track_count(a); i++) {
		const struct trex_track *x = trex_index_track(a, i), *y = trex_index_track(b, i);

		same_str(a, b, x->name, y->name);
		cr_assert_eq(x->first_slice, y->first_slice);
		cr_assert_eq(x->lane_count, y->lane_count);
		cr_assert_eq(x->sample_count, y->sample_count);
		cr_assert_eq(x->parent, y->parent);
	}
	cr_assert_eq(trex_index_lane_count(a), trex_index_lane_count(b));
	for (uint32_t i = 0; i < trex_index_lane_count(a); i++)
		cr_assert(memcmp(trex_index_lane(a, i), trex_index_lane(b, i),
		                 sizeof(struct trex_lane)) == 0);
}

static void same_args(const struct trex_index *a, const struct trex_index *b, uint32_t file,
                      trex_args_ref ref)
{
	char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	struct trex_error err;

	cr_assert(trex_index_args_json(a, file, ref, &x, &nx, &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_index_args_json(b, file, ref, &y, &ny, &err) == TREX_OK, "%s", err.message);
	cr_assert_eq(nx, ny);
	cr_assert(nx == 0 || memcmp(x, y, nx) == 0);
	free(x);
	free(y);
}

/* Links, flows and dependencies as the views ask for them. */
static void same_links(const struct trex_index *a, const struct trex_index *b, uint32_t s)
{
	uint32_t x[16], y[16];
	size_t n;

	n = trex_index_same_launch_link(a, s, x, 16);
	cr_assert_eq(n, trex_index_same_launch_link(b, s, y, 16));
	cr_assert(memcmp(x, y, (n < 16 ? n : 16) * sizeof(*x)) == 0);
	n = trex_index_same_op_link(a, s, x, 16);
	cr_assert_eq(n, trex_index_same_op_link(b, s, y, 16));
	cr_assert(memcmp(x, y, (n < 16 ? n : 16) * sizeof(*x)) == 0);
	n = trex_index_flows_of(a, s, x, 16);
	cr_assert_eq(n, trex_index_flows_of(b, s, y, 16));
	cr_assert(memcmp(x, y, (n < 16 ? n : 16) * sizeof(*x)) == 0);
	cr_assert_eq(trex_index_launch_of(a, s), trex_index_launch_of(b, s));
	cr_assert_eq(trex_index_parent(a, s), trex_index_parent(b, s));
	cr_assert_eq(trex_index_edges_of(a, s, true, x, 16),
	             trex_index_edges_of(b, s, true, y, 16));
}

static void same_events(const struct trex_index *a, const struct trex_index *b)
{
	cr_assert_eq(trex_index_slice_count(a), trex_index_slice_count(b));
	for (uint32_t i = 0; i < trex_index_slice_count(a); i++) {
		const struct trex_slice *x = trex_index_slice(a, i), *y = trex_index_slice(b, i);

		cr_assert(memcmp(x, y, sizeof(*x)) == 0, "slice %u", i);
		same_str(a, b, x->name, y->name);
		cr_assert_eq(trex_slice_launch_link(a, i), trex_slice_launch_link(b, i));
		cr_assert_eq(trex_slice_op_link(a, i), trex_slice_op_link(b, i));
		cr_assert_eq(trex_slice_comm(a, i), trex_slice_comm(b, i));
		if (trex_slice_shape(a, i))
			same_str(a, b, trex_slice_shape(a, i), trex_slice_shape(b, i));
		else
			cr_assert_eq(trex_slice_shape(b, i), 0);
		same_args(a, b, trex_index_track_file(a, x->track), x->args);
		same_links(a, b, i);
	}
	cr_assert_eq(trex_index_instant_count(a), trex_index_instant_count(b));
	for (uint32_t i = 0; i < trex_index_instant_count(a); i++) {
		const struct trex_instant *x = trex_index_instant(a, i),
		                          *y = trex_index_instant(b, i);

		cr_assert(x->ts == y->ts && x->track == y->track && x->args == y->args);
		same_str(a, b, x->name, y->name);
	}
	cr_assert_eq(trex_index_sample_count(a), trex_index_sample_count(b));
	for (uint32_t i = 0; i < trex_index_sample_count(a); i++)
		cr_assert(memcmp(trex_index_sample(a, i), trex_index_sample(b, i),
		                 sizeof(struct trex_counter_sample)) == 0);
	cr_assert_eq(trex_index_flow_count(a), trex_index_flow_count(b));
	for (uint32_t i = 0; i < trex_index_flow_count(a); i++)
		cr_assert(memcmp(trex_index_flow(a, i), trex_index_flow(b, i),
		                 sizeof(struct trex_flow)) == 0);
	cr_assert_eq(trex_index_edge_count(a), trex_index_edge_count(b));
}

/* Link lookups, flow ids and top-level members, which live beside the
 * event arrays (and once were not written). */
static void same_links_and_ids(const struct trex_index *a, const struct trex_index *b)
{
	uint32_t la[8], lb[8];

	for (uint32_t i = 0; i < trex_index_slice_count(a); i++) {
		size_t n = trex_index_same_launch_link(a, i, la, 8);

		cr_assert_eq(trex_index_launch_of(a, i), trex_index_launch_of(b, i), "slice %u", i);
		cr_assert_eq(n, trex_index_same_launch_link(b, i, lb, 8));
		cr_assert(memcmp(la, lb, (n < 8 ? n : 8) * sizeof(*la)) == 0);
		n = trex_index_same_op_link(a, i, la, 8);
		cr_assert_eq(n, trex_index_same_op_link(b, i, lb, 8));
		cr_assert(memcmp(la, lb, (n < 8 ? n : 8) * sizeof(*la)) == 0);
	}
	for (uint32_t f = 0; f < trex_index_flow_count(a); f++) {
		struct trex_flow_id x = trex_index_flow_id(a, f), y = trex_index_flow_id(b, f);

		cr_assert(x.kind == y.kind && x.num == y.num && x.str == y.str &&
		              x.chained == y.chained,
		          "flow %u", f);
	}
	for (uint32_t f = 0; f < trex_index_file_count(a); f++) {
		uint32_t n = trex_index_file_member_count(a, f);

		cr_assert_eq(n, trex_index_file_member_count(b, f));
		for (uint32_t i = 0; i < n; i++) {
			struct trex_file_member x, y;

			cr_assert(trex_index_file_member(a, f, i, &x) &&
			          trex_index_file_member(b, f, i, &y));
			cr_assert(x.key_len == y.key_len && memcmp(x.key, y.key, x.key_len) == 0);
			cr_assert(x.value_len == y.value_len &&
			          memcmp(x.value, y.value, x.value_len) == 0);
			cr_assert_eq(x.after_events, y.after_events);
		}
	}
}

static void same_index(const struct trex_index *a, const struct trex_index *b)
{
	struct trex_integrity ia = trex_index_integrity(a), ib = trex_index_integrity(b);

	cr_assert_eq(trex_index_start(a), trex_index_start(b));
	cr_assert_eq(trex_index_end(a), trex_index_end(b));
	cr_assert(memcmp(&ia, &ib, sizeof(ia)) == 0);
	cr_assert_eq(trex_strtab_count(trex_index_strings(a)),
	             trex_strtab_count(trex_index_strings(b)));
	for (uint32_t i = 0; i < trex_strtab_count(trex_index_strings(a)); i++) {
		const char *s = trex_index_str(a, i);

		cr_assert_str_eq(s, trex_index_str(b, i));
		cr_assert_eq(trex_strtab_find(trex_index_strings(b), s, strlen(s)), i);
	}
	same_files(a, b);
	same_tracks(a, b);
	same_events(a, b);
	same_links_and_ids(a, b);
	for (uint32_t t = 0; t < trex_index_track_count(a); t++)
		for (int64_t at = 0; at < 100000; at += 2500)
			cr_assert_eq(trex_index_slice_at(a, t, at), trex_index_slice_at(b, t, at));
}

/* ---- round trips ------------------------------------------------------------------------------
 */

Test(index_file, round_trip_answers_every_query_alike)
{
	char *trace = in_tmp("t.json");
	struct trex_index *idx, *back;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	idx = load_path(trace, TREX_CACHE_OFF, NULL);
	cr_assert_gt(trex_index_flow_count(idx), 0);
	cr_assert_gt(trex_index_sample_count(idx), 0);
	cr_assert_gt(trex_index_instant_count(idx), 0);
	cr_assert(trex_integrity_damaged(&trex_index_file(idx, 0)->integrity));
	cr_assert_eq(trex_index_file_member_count(idx, 0), 1, "deviceProperties");
	{
		uint32_t shaped = 0, comm = 0, op = 0;

		for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
			shaped += trex_slice_shape(idx, i) != 0;
			comm += trex_slice_comm(idx, i) != TREX_COMM_NONE;
			op += trex_slice_op_link(idx, i) == 7;
		}
		cr_assert_eq(shaped, 1, "gemm_kernel's shape");
		cr_assert_eq(comm, 1, "the NCCL kernel");
		cr_assert_eq(op, 3, "aten::mm, its launch and its kernel");
	}
	{
		uint32_t launched = 0;

		for (uint32_t i = 0; i < trex_index_slice_count(idx); i++)
			launched += trex_index_launch_of(idx, i) != TREX_NONE;
		cr_assert_eq(launched, 1, "gemm_kernel's launch");
	}
	back = round_trip(idx, in_tmp("t.trex"));
	cr_assert_eq(trex_index_file_bytes(idx), 0);
	cr_assert_gt(trex_index_file_bytes(back), 0);
	same_index(idx, back);
	trex_index_free(back);
	trex_index_free(idx);
}

/* A trace big enough for several gzip access points (one per 4 MiB). */
static char *big_trace(size_t *len)
{
	size_t cap = 12u << 20, n = 0;
	char *s = malloc(cap);

	cr_assert(s);
	n += (size_t)snprintf(s, cap, "{\"traceEvents\":[\n");
	for (int i = 0; n + 256 < cap - 64; i++)
		n += (size_t)snprintf(s + n, cap - n,
		                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,"
		                      "\"tid\":7,\"ts\":%d,\"dur\":1,\"args\":{\"n\":%d,\"pad\":"
		                      "\"%08d%08d%08d%08d\"}},\n",
		                      i % 50, i * 2, i, i, i, i, i);
	n += (size_t)snprintf(s + n, cap - n,
	                      "{\"ph\":\"X\",\"name\":\"last\",\"pid\":0,\"tid\":7,"
	                      "\"ts\":0,\"dur\":0}]}\n");
	*len = n;
	return s;
}

static void gzip_file(const char *path, const char *data, size_t len)
{
	gzFile gz = gzopen(path, "wb6");

	cr_assert(gz);
	cr_assert_eq(gzwrite(gz, data, (unsigned)len), (int)len);
	cr_assert_eq(gzclose(gz), Z_OK);
}

static bool collect(void *user, const void *bytes, size_t len)
{
	FILE *f = user;

	return fwrite(bytes, 1, len, f) == len;
}

/* What the json codec would save for file 0 (its access points). */
static char *saved_points(const struct trex_index *idx, size_t *len)
{
	const struct trex_file *f = trex_index_file(idx, 0);
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);
	struct trex_error err;

	cr_assert(mem);
	cr_assert(f->codec->save(f->codec_ctx, collect, mem, &err) == TREX_OK);
	cr_assert(fclose(mem) == 0);
	return buf;
}

Test(index_file, gzip_access_points_survive_the_round_trip)
{
	char *gz = in_tmp("big.json.gz");
	size_t len, na, nb;
	char *json = big_trace(&len), *pa, *pb;
	struct trex_index *idx, *back;

	gzip_file(gz, json, len);
	free(json);
	idx = load_path(gz, TREX_CACHE_OFF, NULL);
	back = round_trip(idx, in_tmp("big.trex"));
	pa = saved_points(idx, &na);
	pb = saved_points(back, &nb);
	cr_assert_gt(na, 64 * 2, "several access points (%zu bytes)", na);
	cr_assert_eq(na, nb);
	cr_assert(memcmp(pa, pb, na) == 0);
	/* args at the end of the file read through the restored points */
	same_args(idx, back, 0, trex_index_slice(idx, trex_index_slice_count(idx) - 2)->args);
	same_args(idx, back, 0, trex_index_slice(idx, trex_index_slice_count(idx) / 2)->args);
	free(pa);
	free(pb);
	trex_index_free(back);
	trex_index_free(idx);
}

/* Opening checks every section, which makes the whole file resident; the
 * pages go back when the interface has the index, so what stays is what
 * queries read after (a timeline of a large set maps only what it draws),
 * and the trace a codec reopened for lazy args keeps none of the head it
 * sniffed. */
Test(index_file, checked_pages_are_handed_back_and_read_again_alike)
{
	char *trace = in_tmp("big.json"), *file = in_tmp("big.trex");
	size_t len;
	char *json = big_trace(&len);
	struct trex_index *idx, *back;
	struct stat st;

	write_file(trace, json, len);
	free(json);
	idx = load_path(trace, TREX_CACHE_OFF, NULL);
	back = round_trip(idx, file);
	cr_assert(stat(file, &st) == 0);
	cr_assert_gt(st.st_size, 2 << 20, "an index of %lld bytes", (long long)st.st_size);
	const void *slices = trex_index_slice(back, 0);
	cr_assert_geq(fixture_mapping_rss_kb(slices), (long)(st.st_size >> 10) / 2,
	              "checked: resident (%ld kB)", fixture_mapping_rss_kb(slices));
	trex_index_hand_back(back);
	trex_index_hand_back(idx); /* a built index: nothing */
	cr_assert_leq(fixture_mapping_rss_kb(slices), 8, "checked, then handed back (%ld kB)",
	              fixture_mapping_rss_kb(slices));
	{
		const struct trex_file *tf = trex_index_file(back, 0);
		size_t n;
		const char *map = trex_source_map(tf->codec_ctx, &n);

		cr_assert_not_null(map);
		cr_assert_leq(fixture_mapping_rss_kb(map), 8, "the reopened trace (%ld kB)",
		              fixture_mapping_rss_kb(map));
	}
	same_index(idx, back);
	cr_assert_geq(fixture_mapping_rss_kb(slices), (long)(st.st_size >> 10) / 2,
	              "read again: resident (%ld kB)", fixture_mapping_rss_kb(slices));
	trex_index_free(back);
	trex_index_free(idx);
}

/* Clock fixes write private copies into the mapping: handing pages back
 * then would throw the corrected times away (trex --align's timeline
 * showed the recorded clocks), so such an index keeps them. */
Test(index_file, clock_fixed_pages_are_kept)
{
	char *trace = in_tmp("t.json");
	struct trex_index *idx, *back;
	struct trex_clock_fix *fix;
	struct trex_error err;
	uint32_t np;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	idx = load_path(trace, TREX_CACHE_OFF, NULL);
	back = round_trip(idx, in_tmp("t.trex"));
	np = trex_index_process_count(back);
	fix = calloc(np, sizeof(*fix));
	cr_assert_not_null(fix);
	for (uint32_t p = 0; p < np; p++)
		fix[p].offset_ns = 1000000;
	cr_assert_eq(trex_index_fix_clocks(back, fix, &err), TREX_OK, "%s", err.message);
	trex_index_hand_back(back);
	cr_assert_gt(trex_index_slice_count(back), 0);
	for (uint32_t i = 0; i < trex_index_slice_count(back); i++)
		cr_assert_eq(trex_index_slice(back, i)->ts, trex_index_slice(idx, i)->ts + 1000000,
		             "slice %u keeps its corrected time", i);
	free(fix);
	trex_index_free(back);
	trex_index_free(idx);
}

/* ---- damaged and foreign files ----------------------------------------------------------------
 */

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	cr_assert(f);
	cr_assert(fseek(f, 0, SEEK_END) == 0);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len ? *len : 1);
	cr_assert(buf && fread(buf, 1, *len, f) == *len);
	fclose(f);
	return buf;
}

/* The bytes as an index file: FORMAT with a message, or an index that
 * answers like the original (a flip in padding changes nothing read). */
static void refused_or_same(const struct trex_index *idx, const char *bytes, size_t len)
{
	struct trex_index_file *f;
	struct trex_index *back;
	struct trex_error err;
	enum trex_status st = trex_index_file_map_memory("x.trex", bytes, len, &f, &err);

	if (st == TREX_OK)
		st = trex_index_file_load(f, NULL, NULL, &back, &err);
	if (st != TREX_OK) {
		cr_assert_eq(st, TREX_FORMAT, "%s", err.message);
		cr_assert(err.message[0]);
		return;
	}
	cr_assert_eq(trex_index_slice_count(back), trex_index_slice_count(idx));
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++)
		cr_assert(memcmp(trex_index_slice(back, i), trex_index_slice(idx, i),
		                 sizeof(struct trex_slice)) == 0);
	trex_index_free(back);
}

Test(index_file, damaged_files_are_refused_never_misread)
{
	char *trace = in_tmp("t.json"), *file = in_tmp("t.trex");
	struct trex_index *idx, *back;
	size_t len;
	char *bytes;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	idx = load_path(trace, TREX_CACHE_OFF, NULL);
	back = round_trip(idx, file);
	trex_index_free(back);
	bytes = read_all(file, &len);
	for (size_t cut = 0; cut < len; cut += 61)
		refused_or_same(idx, bytes, cut);
	for (size_t at = 0; at < len; at += 7) {
		bytes[at] ^= 0x21;
		refused_or_same(idx, bytes, len);
		bytes[at] ^= 0x21;
	}
	free(bytes);
	trex_index_free(idx);
}

static void expect_refusal(const char *bytes, size_t len, const char *what)
{
	struct trex_index_file *f;
	struct trex_error err;

	cr_assert_eq(trex_index_file_map_memory("x.trex", bytes, len, &f, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, what), "'%s' lacks '%s'", err.message, what);
}

/* A forged file (checksums recomputed after the edit) reaches the id and
 * range checks: each edit below read out of bounds before they covered it
 * (both found by tests/fuzz/fuzz_index_file.c). */
static void forge_and_expect_refusal(const char *file, void (*edit)(unsigned char *, size_t))
{
	struct trex_index_file *f;
	struct trex_index *back;
	struct trex_error err;
	size_t len;
	unsigned char *bytes = (unsigned char *)read_all(file, &len);

	trex_index_file_reseal(bytes, len); /* untouched: loads */
	cr_assert_eq(trex_index_file_map_memory("x.trex", bytes, len, &f, &err), TREX_OK);
	cr_assert_eq(trex_index_file_load(f, NULL, NULL, &back, &err), TREX_OK, "%s", err.message);
	trex_index_free(back);
	edit(bytes, len);
	trex_index_file_reseal(bytes, len);
	cr_assert_eq(trex_index_file_map_memory("x.trex", bytes, len, &f, &err), TREX_OK);
	cr_assert_eq(trex_index_file_load(f, NULL, NULL, &back, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, "damaged index file"), "%s", err.message);
	free(bytes);
}

static void *section_of(unsigned char *bytes, int id)
{
	struct section s;

	memcpy(&s, bytes + sizeof(struct file_header) + id * sizeof(s), sizeof(s));
	return bytes + s.offset;
}

/* The first track names no lane, and its first lane starts two blocks
 * of slices past the last one. */
static void unnamed_lane_out_of_range(unsigned char *bytes, size_t len)
{
	struct trex_track *tr = section_of(bytes, SEC_TRACKS);
	struct trex_lane *lane = (struct trex_lane *)section_of(bytes, SEC_LANES) + tr->first_lane;

	(void)len;
	cr_assert_gt(tr->lane_count, 0);
	tr->lane_count = 0;
	lane->first = 1u << 16;
	lane->count = 1;
}

/* A string offset past the arena, the next one back inside it. */
static void string_offset_past_the_arena(unsigned char *bytes, size_t len)
{
	uint32_t *offs = section_of(bytes, SEC_STR_OFFS);

	offs[2] = (uint32_t)len * 4;
}

/* A side table's parts (index_internal.h) in a trace of fewer than 64
 * slices: one word of bits, one count, then the values. */
static uint64_t *side_bits(unsigned char *bytes, enum trex_side_field f)
{
	return section_of(bytes, SEC_SIDE_FIRST + f);
}

static uint32_t *side_counts(unsigned char *bytes, enum trex_side_field f)
{
	return (uint32_t *)(side_bits(bytes, f) + 1);
}

static uint32_t *side_values(unsigned char *bytes, enum trex_side_field f)
{
	return side_counts(bytes, f) + 1;
}

/* The op links' count per word disagrees with the bits: values would be
 * read from the wrong places, or past the table. */
static void side_count_off(unsigned char *bytes, size_t len)
{
	(void)len;
	cr_assert_eq(side_counts(bytes, TREX_SIDE_OP_LINK)[0], 0);
	side_counts(bytes, TREX_SIDE_OP_LINK)[0] = 1;
}

/* A launch link moved past the last slice (as many bits as before). */
static void side_bit_past_the_slices(unsigned char *bytes, size_t len)
{
	uint64_t *bits = side_bits(bytes, TREX_SIDE_LAUNCH_LINK);

	(void)len;
	cr_assert_neq(*bits, 0);
	*bits = (*bits & (*bits - 1)) | UINT64_C(1) << 63;
}

/* A shape that names no string. */
static void shape_past_the_strings(unsigned char *bytes, size_t len)
{
	side_values(bytes, TREX_SIDE_SHAPE)[0] = (uint32_t)len;
}

/* A communication rule that is none (TREX_COMM_NONE is never stored). */
static void comm_rule_none(unsigned char *bytes, size_t len)
{
	(void)len;
	side_values(bytes, TREX_SIDE_COMM)[0] = TREX_COMM_NONE;
}

/* The last lane one slice shorter, so the lanes no longer cover every
 * slice, and that uncovered last slice named past the strings: the
 * check that walks the lanes must not be the only one. */
static void slice_outside_the_lanes(unsigned char *bytes, size_t len)
{
	struct file_header h;
	struct trex_lane *lanes = section_of(bytes, SEC_LANES);
	struct trex_slice *slices = section_of(bytes, SEC_SLICES);

	memcpy(&h, bytes, sizeof(h));
	cr_assert_gt(h.nlanes, 0);
	cr_assert_eq(lanes[h.nlanes - 1].first + lanes[h.nlanes - 1].count, h.nslices);
	lanes[h.nlanes - 1].count--;
	slices[h.nslices - 1].name = (uint32_t)len;
}

Test(index_file, forged_ids_are_refused)
{
	char *trace = in_tmp("t.json"), *file = in_tmp("t.trex");
	struct trex_index *idx;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	idx = load_path(trace, TREX_CACHE_OFF, NULL);
	trex_index_free(round_trip(idx, file));
	forge_and_expect_refusal(file, unnamed_lane_out_of_range);
	forge_and_expect_refusal(file, string_offset_past_the_arena);
	forge_and_expect_refusal(file, side_count_off);
	forge_and_expect_refusal(file, side_bit_past_the_slices);
	forge_and_expect_refusal(file, shape_past_the_strings);
	forge_and_expect_refusal(file, comm_rule_none);
	forge_and_expect_refusal(file, slice_outside_the_lanes);
	trex_index_free(idx);
}

Test(index_file, foreign_files_say_why)
{
	char *trace = in_tmp("t.json"), *file = in_tmp("t.trex");
	struct trex_index *idx;
	size_t len;
	char *bytes;
	uint32_t v = 99;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	idx = load_path(trace, TREX_CACHE_OFF, NULL);
	trex_index_free(round_trip(idx, file));
	bytes = read_all(file, &len);
	expect_refusal(trace_json, sizeof(trace_json) - 1, "not a trex index file");
	expect_refusal(bytes, len - 64, "truncated");
	memcpy(bytes + 8, &v, sizeof(v));
	expect_refusal(bytes, len, "index file version 99, this trex reads 4");
	v = 0x04030201; /* the other byte order */
	memcpy(bytes + 8, &(uint32_t){TREX_INDEX_FILE_VERSION}, 4);
	memcpy(bytes + 12, &v, sizeof(v));
	expect_refusal(bytes, len, "another kind of machine");
	free(bytes);
	trex_index_free(idx);
}

Test(index_file, execution_graphs_are_not_written)
{
	const char *corpus = getenv("TREX_CORPUS");
	char et[PATH_MAX];
	struct trex_cache_report rep;
	struct trex_index *idx;
	struct trex_error err;
	const char *why = NULL;

	if (!corpus)
		cr_skip_test("TREX_CORPUS not set (run through make check)");
	snprintf(et, sizeof(et), "%s/chakra/custom-ring-allreduce-8npus/custom_allreduce.0.et",
	         corpus);
	if (access(et, R_OK) != 0)
		cr_skip_test("%s missing", et);
	idx = load_path(et, TREX_CACHE_USE, &rep);
	cr_assert(trex_index_graph(idx));
	cr_assert(!trex_index_file_supported(idx, &why));
	cr_assert(strstr(why, "execution graphs"), "%s", why);
	cr_assert(!rep.hit && !rep.written && !rep.note[0], "%s", rep.note);
	cr_assert_eq(trex_index_file_write(idx, in_tmp("g.trex"), "", 0, &err), TREX_USAGE);
	cr_assert_eq(access(in_tmp("g.trex"), F_OK), -1);
	trex_index_free(idx);
	/* a plain trace is */
	write_file(in_tmp("t.json"), trace_json, sizeof(trace_json) - 1);
	idx = load_path(in_tmp("t.json"), TREX_CACHE_OFF, NULL);
	cr_assert(trex_index_file_supported(idx, &why));
	trex_index_free(idx);
}

/* ---- the cache ----------------------------------------------------------------------------------
 */

Test(index_file, cache_hits_when_fresh_and_rebuilds_when_stale)
{
	char *trace = in_tmp("t.json");
	struct trex_cache_report rep;
	struct trex_index *a, *b;
	struct timespec times[2] = {{0, UTIME_OMIT}, {0, 0}};
	char *changed = strdup(trace_json);
	struct stat st;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	a = load_path(trace, TREX_CACHE_USE, &rep);
	cr_assert(!rep.hit && rep.written && !rep.note[0], "%s", rep.note);
	b = load_path(trace, TREX_CACHE_USE, &rep);
	cr_assert(rep.hit && !rep.written, "%s", rep.note);
	same_index(a, b);
	trex_index_free(b);
	/* the same size and modification time, other bytes: the sampled hash tells */
	cr_assert(stat(trace, &st) == 0);
	*strstr(changed, "gemm_kernel") = 'G';
	write_file(trace, changed, sizeof(trace_json) - 1);
	times[1] = st.st_mtim;
	cr_assert(utimensat(AT_FDCWD, trace, times, 0) == 0);
	b = load_path(trace, TREX_CACHE_USE, &rep);
	cr_assert(!rep.hit && rep.written);
	cr_assert(strstr(rep.note, "stale"), "%s", rep.note);
	cr_assert(strstr(rep.note, rep.path), "%s", rep.note);
	cr_assert_eq(trex_strtab_find(trex_index_strings(b), "Gemm_kernel", 11) != TREX_STR_ERROR,
	             true);
	trex_index_free(b);
	b = load_path(trace, TREX_CACHE_REBUILD, &rep);
	cr_assert(!rep.hit && rep.written);
	trex_index_free(b);
	trex_index_free(a);
	free(changed);
}

/* A change between the sampled blocks, same size, same mtime: a trace
 * written just before its load (racy) has its whole content checked. */
Test(index_file, racy_trace_is_checked_whole)
{
	char *trace = in_tmp("racy.json");
	struct timespec times[2] = {{0, UTIME_OMIT}, {0, 0}};
	struct trex_cache_report rep;
	size_t cap = 200000, n = 0;
	char *json = malloc(cap), *at;
	struct trex_index *idx;
	struct stat st;

	cr_assert(json);
	n += (size_t)snprintf(json, cap, "{\"traceEvents\":[\n");
	for (int i = 0; n + 200 < cap; i++)
		n += (size_t)snprintf(json + n, cap - n,
		                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%06d\","
		                      "\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1},\n",
		                      i, i * 2);
	n += (size_t)snprintf(json + n, cap - n,
	                      "{\"ph\":\"i\",\"name\":\"end\",\"pid\":0,"
	                      "\"tid\":7,\"ts\":0,\"s\":\"t\"}]}\n");
	write_file(trace, json, n);
	trex_index_free(load_path(trace, TREX_CACHE_USE, &rep));
	cr_assert(rep.written);
	/* 18 blocks of 4 KiB are sampled: 5000..11000 lies between the first two */
	at = strstr(json + 5000, "\"k0");
	cr_assert(at && at - json < 11000 - 8);
	at[2] = '9';
	cr_assert(stat(trace, &st) == 0);
	write_file(trace, json, n);
	times[1] = st.st_mtim;
	cr_assert(utimensat(AT_FDCWD, trace, times, 0) == 0);
	idx = load_path(trace, TREX_CACHE_USE, &rep);
	cr_assert(!rep.hit && rep.written, "%s", rep.note);
	cr_assert(strstr(rep.note, "stale"), "%s", rep.note);
	cr_assert_neq(trex_strtab_find(trex_index_strings(idx), at + 1, 7), TREX_STR_ERROR);
	trex_index_free(idx);
	free(json);
}

/* An index file written while its trace was racy is written again by the
 * first open after the racy window, so later opens stop hashing the whole
 * trace: the file is replaced once (a new inode), then left alone. */
Test(index_file, racy_index_file_is_written_again_once_settled)
{
	char *trace = in_tmp("t.json");
	struct timespec now, times[2] = {{0, UTIME_OMIT}, {0, 0}};
	struct trex_cache_report rep;
	struct stat a, b, c;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	clock_gettime(CLOCK_REALTIME, &now);
	times[1] = now;
	times[1].tv_sec -= 1; /* modified 1 s ago: racy for 1 s more */
	cr_assert(utimensat(AT_FDCWD, trace, times, 0) == 0);
	trex_index_free(load_path(trace, TREX_CACHE_USE, &rep));
	cr_assert(rep.written);
	cr_assert(stat(rep.path, &a) == 0);
	trex_index_free(load_path(trace, TREX_CACHE_USE, &rep));
	cr_assert(rep.hit);
	cr_assert(stat(rep.path, &b) == 0);
	if (b.st_ino == a.st_ino) /* still racy: wait the window out */
		cr_assert(usleep(1200000) == 0);
	trex_index_free(load_path(trace, TREX_CACHE_USE, &rep));
	cr_assert(rep.hit && !rep.note[0], "%s", rep.note);
	cr_assert(stat(rep.path, &b) == 0);
	cr_assert_neq(b.st_ino, a.st_ino, "written again once settled");
	trex_index_free(load_path(trace, TREX_CACHE_USE, &rep));
	cr_assert(rep.hit);
	cr_assert(stat(rep.path, &c) == 0);
	cr_assert_eq(c.st_ino, b.st_ino, "then left alone");
}

Test(index_file, corrupt_index_file_is_rebuilt_with_a_note)
{
	char *trace = in_tmp("t.json");
	struct trex_cache_report rep;
	struct trex_index *a, *b;
	char path[PATH_MAX];
	FILE *f;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	a = load_path(trace, TREX_CACHE_USE, &rep);
	snprintf(path, sizeof(path), "%s", rep.path);
	f = fopen(path, "r+b");
	cr_assert(f && fseek(f, 4096, SEEK_SET) == 0 && fputc(0x55, f) != EOF && fclose(f) == 0);
	b = load_path(trace, TREX_CACHE_USE, &rep);
	cr_assert(!rep.hit && rep.written);
	cr_assert(strstr(rep.note, "damaged index file"), "%s", rep.note);
	same_index(a, b);
	trex_index_free(b);
	b = load_path(trace, TREX_CACHE_USE, &rep);
	cr_assert(rep.hit && !rep.note[0], "%s", rep.note);
	trex_index_free(b);
	trex_index_free(a);
}

Test(index_file, a_hit_shows_the_path_as_given_now)
{
	char *trace = in_tmp("t.json"), other[PATH_MAX + 8];
	struct trex_cache_report rep;
	struct trex_index *a, *b;

	write_file(trace, trace_json, sizeof(trace_json) - 1);
	trex_index_free(load_path(trace, TREX_CACHE_USE, &rep));
	snprintf(other, sizeof(other), "%s/./t.json", tmpdir);
	a = load_path(other, TREX_CACHE_OFF, NULL);
	b = load_path(other, TREX_CACHE_USE, &rep);
	cr_assert(rep.hit);
	cr_assert_str_eq(trex_index_str(b, trex_index_file(b, 0)->path), other);
	/* the path recorded first stays in the strings, unused: all else is alike */
	same_files(a, b);
	same_tracks(a, b);
	same_events(a, b);
	trex_index_free(a);
	trex_index_free(b);
}

/* Perfetto's args store reopened from an index file is read within its
 * bounds: a record that claims more entries than the store holds is
 * damage, not a read past its end (ASan saw one before). */
Test(index_file, perfetto_store_from_a_file_is_read_within_bounds)
{
	const struct trex_format *fmt = trex_format_named("perfetto");
	static const unsigned char rec[] = {5, 0, 0, 0, 0, 'k', 0, 'v', 0};
	unsigned char *store = malloc(sizeof(rec)); /* exactly: ASan sees a byte beyond */
	char *path = in_tmp("p.pftrace");
	struct trex_args a;
	struct trex_error err;
	void *ctx = NULL;

	cr_assert(fmt && store);
	memcpy(store, rec, sizeof(rec));
	write_file(path, "x", 1);
	cr_assert_eq(fmt->codec->reopen(path, store, sizeof(rec), &ctx, &err), TREX_OK);
	cr_assert_eq(fmt->codec->decode(ctx, 1, &a, NULL, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, "damaged annotations"), "%s", err.message);
	cr_assert_eq(fmt->codec->decode(ctx, 1000, &a, NULL, &err), TREX_FORMAT);
	store[0] = 1; /* one entry: read whole */
	cr_assert_eq(fmt->codec->decode(ctx, 1, &a, NULL, &err), TREX_OK, "%s", err.message);
	cr_assert(a.n == 1 && strcmp(a.v[0].key, "k") == 0 && strcmp(a.v[0].value, "v") == 0);
	trex_args_free(&a);
	fmt->codec->close(ctx);
	free(store);
}

Test(index_file, memory_sources_are_not_cached)
{
	struct trex_source *src;
	struct trex_index *idx;
	struct trex_cache_report rep;
	struct trex_error err;

	cr_assert(trex_source_open_memory("mem.json", trace_json, sizeof(trace_json) - 1, false,
	                                  &src, &err) == TREX_OK);
	cr_assert(trex_cache_load(&src, 1, NULL, TREX_CACHE_USE, &rep, &idx, &err) == TREX_OK);
	cr_assert(!rep.hit && !rep.written);
	trex_index_free(idx);
}
