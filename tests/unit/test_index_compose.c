/* A set's index file composed from its traces' own index files
 * (trex_index_file_compose, and the cache's use of it): every query must
 * answer as a load of the set as one does. String ids differ between the
 * two (each pools the strings in its own order), so strings are compared
 * by their text and everything else as it is. */
#include "config.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "index_fixture.h"
#include "trex/core/index.h"
#include "trex/core/index_file.h"
#include "trex/load/index_cache.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

static char tmpdir[64];

static void setup(void)
{
	fixture_cache_dir_make(tmpdir, "/tmp/trex-compose.XXXXXX");
}

static void teardown(void)
{
	fixture_cache_dir_remove(tmpdir);
}

TestSuite(index_compose, .init = setup, .fini = teardown);

/* ---- traces ------------------------------------------------------------------------------------
 */

struct text {
	char *s;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = (t->len + (size_t)n + 1) * 2;
		cr_assert((t->s = realloc(t->s, t->cap)));
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* One rank: kernels launched by runtime calls under CPU ops (launch and
 * op links, shapes: side tables whose bits do not start on a word of the
 * set), NCCL kernels (communication rules), flows (one of whose points
 * lies on no slice), counters, instants, async slices, a top-level member,
 * a rank claimed or not (rank < 0), damage when asked. n: kernels. */
static char *rank_trace(int rank, int n, bool damaged, size_t *len)
{
	struct text t = {0};

	put(&t, "{");
	if (rank >= 0)
		put(&t, "\"distributedInfo\":{\"rank\":%d,\"world_size\":4},", rank);
	put(&t, "\"traceEvents\":[\n");
	put(&t,
	    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"py%d\"}},\n",
	    rank);
	put(&t, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,"
	        "\"args\":{\"name\":\"main\"}},\n");
	for (int i = 0; i < n; i++) {
		long ts = 1000 + 100L * i;

		put(&t,
		    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%d\",\"pid\":1,\"tid\":2,"
		    "\"ts\":%ld,\"dur\":60,\"args\":{\"External id\":%d}},\n",
		    i % 7, ts, i + 1);
		put(&t,
		    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
		    "\"pid\":1,\"tid\":2,\"ts\":%ld,\"dur\":5,"
		    "\"args\":{\"External id\":%d,\"correlation\":%d}},\n",
		    ts + 10, i + 1, 500 + i);
		put(&t,
		    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,"
		    "\"ts\":%ld,\"dur\":%d,\"args\":{\"External id\":%d,\"correlation\":%d,"
		    "\"grid\":[%d,1,1],\"block\":[128,1,1],\"shared memory\":0,\"stream\":7,"
		    "\"device\":0}},\n",
		    i % 5 == 0 ? "ncclDevKernel_AllReduce"
		    : i % 2    ? "gemm"
		               : "relu",
		    ts + 20, 30 + i % 11 + rank, i + 1, 500 + i, 1 + i % 3);
	}
	put(&t, "{\"ph\":\"s\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":3,\"pid\":1,\"tid\":2,"
	        "\"ts\":1005},\n");
	put(&t, "{\"ph\":\"f\",\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\",\"id\":3,\"pid\":1,\"tid\":2,"
	        "\"ts\":1210,\"bp\":\"e\"},\n");
	put(&t,
	    "{\"ph\":\"s\",\"cat\":\"loose\",\"name\":\"loose\",\"id\":\"k%d\",\"pid\":1,"
	    "\"tid\":9,\"ts\":3},\n",
	    rank);
	put(&t,
	    "{\"ph\":\"f\",\"cat\":\"loose\",\"name\":\"loose\",\"id\":\"k%d\",\"pid\":1,"
	    "\"tid\":2,\"ts\":1020,\"bp\":\"e\"},\n",
	    rank);
	put(&t, "{\"ph\":\"C\",\"name\":\"memory\",\"pid\":1,\"ts\":1010,\"args\":{\"b\":%d}},\n",
	    rank + 1);
	put(&t, "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":2,\"ts\":1015,\"s\":\"t\"},\n");
	put(&t,
	    "{\"ph\":\"b\",\"cat\":\"io\",\"name\":\"read\",\"id\":5,\"pid\":1,\"ts\":1011},\n");
	put(&t,
	    "{\"ph\":\"e\",\"cat\":\"io\",\"name\":\"read\",\"id\":5,\"pid\":1,\"ts\":1033},\n");
	if (damaged)
		put(&t,
		    "{\"ph\":\"X\",\"name\":\"bad\",\"pid\":1,\"tid\":2,\"ts\":\"abc\",\"dur\":1},"
		    "\n"
		    "{\"ph\":\"X\",\"name\":\"cut\",\"pid\":1,\"tid\":2,\"ts\":1 \"dur\" 2},\n");
	put(&t, "{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":2,\"ts\":%ld,\"dur\":1}\n",
	    1000 + 100L * n);
	put(&t, "],\"deviceProperties\":[{\"id\":0,\"name\":\"GPU%d\"}]}\n", rank);
	*len = t.len;
	return t.s;
}

static char *write_rank(const char *name, int rank, int n, bool damaged)
{
	static char paths[8][256];
	static int k;
	char *path = paths[k++ % 8];
	size_t len;
	char *text = rank_trace(rank, n, damaged, &len);
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s", tmpdir, name);
	cr_assert((f = fopen(path, "wb")));
	cr_assert(fwrite(text, 1, len, f) == len);
	cr_assert(fclose(f) == 0);
	free(text);
	return path;
}

static struct trex_index *load_set(char *const *paths, size_t n, enum trex_cache_mode mode,
                                   struct trex_cache_report *rep)
{
	struct trex_load_opts opts = {.threads = 2};
	struct trex_source *src[8];
	struct trex_index *idx;
	struct trex_error err;

	for (size_t i = 0; i < n; i++)
		cr_assert(trex_source_open(paths[i], &src[i], &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_cache_load(src, n, &opts, mode, rep, &idx, &err) == TREX_OK, "%s",
	          err.message);
	return idx;
}

/* ---- comparing, strings by their text ------------------------------------------------------ */

static void same_text(const struct trex_index *a, uint32_t x, const struct trex_index *b,
                      uint32_t y)
{
	if (x == TREX_NONE || y == TREX_NONE)
		cr_assert_eq(x, y);
	else
		cr_assert_str_eq(trex_index_str(a, x), trex_index_str(b, y));
}

static void same_files(const struct trex_index *a, const struct trex_index *b)
{
	cr_assert_eq(trex_index_file_count(a), trex_index_file_count(b));
	for (uint32_t i = 0; i < trex_index_file_count(a); i++) {
		const struct trex_file *x = trex_index_file(a, i), *y = trex_index_file(b, i);

		same_text(a, x->path, b, y->path);
		same_text(a, x->format, b, y->format);
		same_text(a, x->dialect, b, y->dialect);
		cr_assert(x->rank == y->rank && x->has_rank == y->has_rank, "file %u", i);
		cr_assert(x->events == y->events && x->bytes_decoded == y->bytes_decoded);
		cr_assert(memcmp(&x->integrity, &y->integrity, sizeof(x->integrity)) == 0);
		cr_assert_str_eq(x->first_problem.message, y->first_problem.message);
		cr_assert_eq(x->event_type_count, y->event_type_count);
		for (uint32_t k = 0; k < x->event_type_count; k++) {
			same_text(a, x->event_types[k].label, b, y->event_types[k].label);
			cr_assert_eq(x->event_types[k].events, y->event_types[k].events);
		}
		for (int c = 0; c < TREX_INTEG_COUNT; c++) {
			enum trex_integrity_counter k = (enum trex_integrity_counter)c;

			cr_assert_eq(trex_index_problem_count(a, i, k),
			             trex_index_problem_count(b, i, k));
			for (uint32_t n = 0; n < trex_index_problem_count(a, i, k); n++) {
				const struct trex_problem *p = trex_index_problem(a, i, k, n),
				                          *q = trex_index_problem(b, i, k, n);

				cr_assert_str_eq(p->what, q->what);
				cr_assert(p->track == q->track && p->slice == q->slice &&
				          p->offset == q->offset && p->ts == q->ts);
				same_text(a, p->name, b, q->name);
			}
		}
		cr_assert_eq(trex_index_file_member_count(a, i),
		             trex_index_file_member_count(b, i));
		for (uint32_t m = 0; m < trex_index_file_member_count(a, i); m++) {
			struct trex_file_member p, q;

			cr_assert(trex_index_file_member(a, i, m, &p) &&
			          trex_index_file_member(b, i, m, &q));
			cr_assert(p.value_len == q.value_len &&
			          !memcmp(p.value, q.value, p.value_len));
		}
	}
}

static void same_tracks(const struct trex_index *a, const struct trex_index *b)
{
	cr_assert_eq(trex_index_process_count(a), trex_index_process_count(b));
	for (uint32_t i = 0; i < trex_index_process_count(a); i++) {
		const struct trex_process *x = trex_index_process(a, i),
		                          *y = trex_index_process(b, i);

		cr_assert(x->file == y->file && x->pid_num == y->pid_num && x->rank == y->rank &&
		              x->has_rank == y->has_rank && x->is_gpu == y->is_gpu &&
		              x->sort_index == y->sort_index && x->first_track == y->first_track &&
		              x->track_count == y->track_count,
		          "process %u", i);
		same_text(a, x->pid, b, y->pid);
		same_text(a, x->name, b, y->name);
		same_text(a, x->labels, b, y->labels);
	}
	cr_assert_eq(trex_index_track_count(a), trex_index_track_count(b));
	for (uint32_t i = 0; i < trex_index_track_count(a); i++) {
		const struct trex_track *x = trex_index_track(a, i), *y = trex_index_track(b, i);

		same_text(a, x->tid, b, y->tid);
		same_text(a, x->name, b, y->name);
		cr_assert(
		    x->process == y->process && x->kind == y->kind &&
		        x->first_lane == y->first_lane && x->lane_count == y->lane_count &&
		        x->first_slice == y->first_slice && x->slice_count == y->slice_count &&
		        x->first_instant == y->first_instant &&
		        x->instant_count == y->instant_count &&
		        x->first_sample == y->first_sample && x->sample_count == y->sample_count &&
		        x->parent == y->parent && x->sort_index == y->sort_index,
		    "track %u: process %u/%u lanes %u+%u/%u+%u slices %u+%u/%u+%u inst %u+%u/%u+%u "
		    "samples %u+%u/%u+%u parent %u/%u sort %" PRId64 "/%" PRId64,
		    i, x->process, y->process, x->first_lane, x->lane_count, y->first_lane,
		    y->lane_count, x->first_slice, x->slice_count, y->first_slice, y->slice_count,
		    x->first_instant, x->instant_count, y->first_instant, y->instant_count,
		    x->first_sample, x->sample_count, y->first_sample, y->sample_count, x->parent,
		    y->parent, x->sort_index, y->sort_index);
	}
	cr_assert_eq(trex_index_lane_count(a), trex_index_lane_count(b));
	for (uint32_t i = 0; i < trex_index_lane_count(a); i++)
		cr_assert(!memcmp(trex_index_lane(a, i), trex_index_lane(b, i),
		                  sizeof(struct trex_lane)));
}

static void same_ids(const uint32_t *x, size_t nx, const uint32_t *y, size_t ny)
{
	cr_assert_eq(nx, ny);
	cr_assert(!memcmp(x, y, (nx < 16 ? nx : 16) * sizeof(*x)));
}

static void same_slice(const struct trex_index *a, const struct trex_index *b, uint32_t i)
{
	const struct trex_slice *x = trex_index_slice(a, i), *y = trex_index_slice(b, i);
	uint32_t p[16], q[16];
	char *ja = NULL, *jb = NULL;
	size_t na = 0, nb = 0;
	struct trex_error err;

	cr_assert(x->ts == y->ts && x->dur == y->dur && x->track == y->track &&
	              x->depth == y->depth && x->flags == y->flags && x->kind == y->kind &&
	              x->args == y->args,
	          "slice %u", i);
	same_text(a, x->name, b, y->name);
	same_text(a, x->cat, b, y->cat);
	cr_assert_eq(trex_slice_launch_link(a, i), trex_slice_launch_link(b, i), "slice %u", i);
	cr_assert_eq(trex_slice_op_link(a, i), trex_slice_op_link(b, i), "slice %u", i);
	cr_assert_eq(trex_slice_comm(a, i), trex_slice_comm(b, i), "slice %u", i);
	cr_assert_eq(!trex_slice_shape(a, i), !trex_slice_shape(b, i), "slice %u", i);
	if (trex_slice_shape(a, i))
		same_text(a, trex_slice_shape(a, i), b, trex_slice_shape(b, i));
	cr_assert_eq(trex_index_launch_of(a, i), trex_index_launch_of(b, i), "slice %u", i);
	cr_assert_eq(trex_index_parent(a, i), trex_index_parent(b, i));
	same_ids(p, trex_index_same_launch_link(a, i, p, 16), q,
	         trex_index_same_launch_link(b, i, q, 16));
	same_ids(p, trex_index_same_op_link(a, i, p, 16), q, trex_index_same_op_link(b, i, q, 16));
	same_ids(p, trex_index_flows_of(a, i, p, 16), q, trex_index_flows_of(b, i, q, 16));
	cr_assert(trex_index_args_json(a, trex_index_track_file(a, x->track), x->args, &ja, &na,
	                               &err) == TREX_OK,
	          "%s", err.message);
	cr_assert(trex_index_args_json(b, trex_index_track_file(b, y->track), y->args, &jb, &nb,
	                               &err) == TREX_OK,
	          "%s", err.message);
	cr_assert(na == nb && (!na || !memcmp(ja, jb, na)), "args of slice %u", i);
	free(ja);
	free(jb);
}

static void same_events(const struct trex_index *a, const struct trex_index *b)
{
	cr_assert_eq(trex_index_slice_count(a), trex_index_slice_count(b));
	for (uint32_t i = 0; i < trex_index_slice_count(a); i++)
		same_slice(a, b, i);
	cr_assert_eq(trex_index_instant_count(a), trex_index_instant_count(b));
	for (uint32_t i = 0; i < trex_index_instant_count(a); i++) {
		const struct trex_instant *x = trex_index_instant(a, i),
		                          *y = trex_index_instant(b, i);

		cr_assert(x->ts == y->ts && x->track == y->track && x->args == y->args &&
		          x->scope == y->scope && x->kind == y->kind);
		same_text(a, x->name, b, y->name);
		same_text(a, x->cat, b, y->cat);
	}
	cr_assert_eq(trex_index_sample_count(a), trex_index_sample_count(b));
	for (uint32_t i = 0; i < trex_index_sample_count(a); i++)
		cr_assert(!memcmp(trex_index_sample(a, i), trex_index_sample(b, i),
		                  sizeof(struct trex_counter_sample)));
	cr_assert_eq(trex_index_flow_count(a), trex_index_flow_count(b));
	for (uint32_t i = 0; i < trex_index_flow_count(a); i++) {
		const struct trex_flow *x = trex_index_flow(a, i), *y = trex_index_flow(b, i);
		struct trex_flow_id p = trex_index_flow_id(a, i), q = trex_index_flow_id(b, i);

		cr_assert(x->from_slice == y->from_slice && x->to_slice == y->to_slice &&
		              x->from_track == y->from_track && x->to_track == y->to_track &&
		              x->from_ts == y->from_ts && x->to_ts == y->to_ts,
		          "flow %u", i);
		same_text(a, x->cat, b, y->cat);
		same_text(a, x->name, b, y->name);
		cr_assert(p.kind == q.kind && p.chained == q.chained, "flow %u", i);
		if (p.kind == TREX_FLOW_ID_STR)
			same_text(a, p.str, b, q.str);
		else
			cr_assert_eq(p.num, q.num);
	}
}

static void same_set(const struct trex_index *a, const struct trex_index *b)
{
	struct trex_integrity ia = trex_index_integrity(a), ib = trex_index_integrity(b);

	cr_assert_eq(trex_index_start(a), trex_index_start(b));
	cr_assert_eq(trex_index_end(a), trex_index_end(b));
	cr_assert(!memcmp(&ia, &ib, sizeof(ia)));
	same_files(a, b);
	same_tracks(a, b);
	same_events(a, b);
	for (uint32_t t = 0; t < trex_index_track_count(a); t++)
		for (int64_t at = 900000; at < 12000000; at += 7919)
			cr_assert_eq(trex_index_slice_at(a, t, at), trex_index_slice_at(b, t, at));
}

/* ---- tests ----------------------------------------------------------------------------------- */

/* Four ranks given out of order: two claim ranks (3 and 1), two do not
 * and take 0 and 2; one is damaged; their kernel counts leave each
 * rank's first slice off a 64-slice word of the set. */
static size_t four_ranks(char **paths)
{
	paths[0] = write_rank("d.json", 3, 37, false);
	paths[1] = write_rank("c.json", -1, 50, true);
	paths[2] = write_rank("b.json", 1, 23, false);
	paths[3] = write_rank("a.json", -1, 41, false);
	return 4;
}

Test(index_compose, a_set_of_indexed_ranks_is_composed_and_answers_as_its_load)
{
	char *paths[4];
	size_t n = four_ranks(paths);
	struct trex_cache_report rep;
	struct trex_index *merged, *composed, *again;

	for (size_t i = 0; i < n; i++) { /* each rank's own index file, as `trex index` writes */
		struct trex_index *one = load_set(&paths[i], 1, TREX_CACHE_USE, &rep);

		cr_assert(rep.written);
		trex_index_free(one);
	}
	merged = load_set(paths, n, TREX_CACHE_OFF, NULL);
	cr_assert_gt(trex_index_flow_count(merged), 0);
	composed = load_set(paths, n, TREX_CACHE_USE, &rep);
	cr_assert(rep.composed && rep.written && !rep.hit, "the set was composed, not parsed");
	cr_assert_str_eq(rep.note, "");
	same_set(merged, composed);
	/* the next open maps the composed file as any set's */
	again = load_set(paths, n, TREX_CACHE_USE, &rep);
	cr_assert(rep.hit && !rep.composed);
	same_set(merged, again);
	trex_index_free(again);
	trex_index_free(composed);
	trex_index_free(merged);
}

Test(index_compose, a_rank_without_an_index_file_makes_the_set_parse)
{
	char *paths[4];
	size_t n = four_ranks(paths);
	struct trex_cache_report rep;
	struct trex_index *idx;

	for (size_t i = 0; i < n - 1; i++)
		trex_index_free(load_set(&paths[i], 1, TREX_CACHE_USE, NULL));
	idx = load_set(paths, n, TREX_CACHE_USE, &rep);
	cr_assert(!rep.composed && rep.written && !rep.hit);
	trex_index_free(idx);
}

/* Built indexes (codecs saved through their hooks, not copied from a
 * file) in the order and with the ranks a load of the set gives them. */
Test(index_compose, built_parts_compose_as_well)
{
	char *paths[4];
	size_t n = four_ranks(paths);
	const size_t order[4] = {1, 2, 3, 0}; /* c takes 0 (given first), b 1, a 2, d 3 */
	const int64_t ranks[4] = {0, 1, 2, 3};
	const struct trex_index *parts[4];
	struct trex_index *built[4], *merged, *back;
	struct trex_index_file *f;
	struct trex_error err;
	char out[300];

	for (size_t i = 0; i < n; i++)
		built[i] = load_set(&paths[i], 1, TREX_CACHE_OFF, NULL);
	for (size_t i = 0; i < n; i++)
		parts[i] = built[order[i]];
	snprintf(out, sizeof(out), "%s/set.trex", tmpdir);
	cr_assert(trex_index_file_compose(parts, n, ranks, out, "id", 2, &err) == TREX_OK, "%s",
	          err.message);
	cr_assert(trex_index_file_map(out, &f, &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_index_file_load(f, trex_cache_reopen_codec, NULL, &back, &err) == TREX_OK,
	          "%s", err.message);
	merged = load_set(paths, n, TREX_CACHE_OFF, NULL);
	same_set(merged, back);
	trex_index_free(back);
	trex_index_free(merged);
	for (size_t i = 0; i < n; i++)
		trex_index_free(built[i]);
}

Test(index_compose, an_empty_part_leaves_the_span_alone)
{
	char *paths[1];
	const struct trex_index *parts[2];
	struct trex_index *one, *empty, *back;
	struct trex_index_file *f;
	struct trex_error err;
	char out[300], empty_path[300];
	FILE *e;

	paths[0] = write_rank("a.json", 0, 5, false);
	snprintf(empty_path, sizeof(empty_path), "%s/empty.json", tmpdir);
	cr_assert((e = fopen(empty_path, "w")));
	fputs("{\"traceEvents\":[]}", e);
	cr_assert(fclose(e) == 0);
	one = load_set(paths, 1, TREX_CACHE_OFF, NULL);
	{
		char *ep = empty_path;

		empty = load_set(&ep, 1, TREX_CACHE_OFF, NULL);
	}
	cr_assert_eq(trex_index_start(empty), 0);
	cr_assert_gt(trex_index_start(one), 0);
	parts[0] = empty;
	parts[1] = one;
	snprintf(out, sizeof(out), "%s/set.trex", tmpdir);
	cr_assert(trex_index_file_compose(parts, 2, NULL, out, "id", 2, &err) == TREX_OK, "%s",
	          err.message);
	cr_assert(trex_index_file_map(out, &f, &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_index_file_load(f, NULL, NULL, &back, &err) == TREX_OK, "%s", err.message);
	cr_assert_eq(trex_index_start(back), trex_index_start(one));
	cr_assert_eq(trex_index_end(back), trex_index_end(one));
	cr_assert_eq(trex_index_slice_count(back), trex_index_slice_count(one));
	trex_index_free(back);
	trex_index_free(one);
	trex_index_free(empty);
}
