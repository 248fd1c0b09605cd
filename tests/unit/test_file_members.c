/* A file's top-level members and its flows' original ids: the store the
 * builder and the index keep (trex_builder_file_member, trex_index_file_member,
 * trex_index_flow_id), what the Chrome loader puts in it, and what the
 * Chrome exporter writes back from it. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index_fixture.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/export/trace_export.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

/* ---- the store ------------------------------------------------------------------------------ */

static void add_member(struct trex_builder *b, const char *key, const char *value, bool after)
{
	struct trex_file_member m = {key, strlen(key), value, strlen(value), after};

	cr_assert_eq(trex_builder_file_member(b, &m), 0);
}

/* Member i of file is key: value, after the events or not. */
static void expect_member(const struct trex_index *idx, uint32_t file, uint32_t i, const char *key,
                          const char *value, bool after)
{
	struct trex_file_member m;

	cr_assert(trex_index_file_member(idx, file, i, &m), "member %u of file %u", i, file);
	cr_assert_eq(m.key_len, strlen(key));
	cr_assert_eq(memcmp(m.key, key, m.key_len), 0, "key %.*s", (int)m.key_len, m.key);
	cr_assert_eq(m.value_len, strlen(value), "%.*s", (int)m.value_len, m.value);
	cr_assert_eq(memcmp(m.value, value, m.value_len), 0);
	cr_assert_eq(m.after_events, after);
}

Test(file_members, kept_per_file_in_the_order_of_the_parts)
{
	struct trex_build_file files[2] = {fixture_file("a.json"), fixture_file("b.json")};
	struct trex_builder *parts[3] = {trex_builder_new(0), trex_builder_new(0),
	                                 trex_builder_new(1)};
	struct trex_build_input in = {files, 2, parts, 3, 1, NULL, NULL};
	struct trex_index *idx = NULL;
	struct trex_error err;
	struct trex_file_member m;

	add_member(parts[0], "schemaVersion", "1", false);
	add_member(parts[0], "deviceProperties", "[\n  {\"id\": 0}\n]", false);
	add_member(parts[1], "traceName", "\"a.json\"", true);
	add_member(parts[1], "schemaVersion", "2", true); /* a repeated key stays */
	add_member(parts[2], "distributedInfo", "{\"rank\": 1}", false);
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(trex_index_file_member_count(idx, 0), 4);
	expect_member(idx, 0, 0, "schemaVersion", "1", false);
	expect_member(idx, 0, 1, "deviceProperties", "[\n  {\"id\": 0}\n]", false);
	expect_member(idx, 0, 2, "traceName", "\"a.json\"", true);
	expect_member(idx, 0, 3, "schemaVersion", "2", true);
	cr_assert_eq(trex_index_file_member_count(idx, 1), 1);
	expect_member(idx, 1, 0, "distributedInfo", "{\"rank\": 1}", false);
	cr_assert(trex_index_file_member_find(idx, 0, "schemaVersion", &m));
	cr_assert_eq(m.value[0], '2', "the last one of a key");
	cr_assert_not(trex_index_file_member_find(idx, 1, "schemaVersion", &m));
	cr_assert_not(trex_index_file_member(idx, 1, 1, &m));
	cr_assert_eq(trex_index_file_member_count(idx, 2), 0, "no such file");
	cr_assert_gt(trex_index_memory(idx), 0);
	trex_index_free(idx);
}

/* ---- flow ids through the builder ------------------------------------------------------------ */

static void flow_point(struct trex_builder *b, uint32_t track, const char *cat, uint64_t num,
                       const char *str, enum trex_flow_role role, int64_t ts)
{
	struct trex_flow_point p = {
	    .key = {fixture_str(b, cat), str ? fixture_str(b, str) : 0, num},
	    .name = fixture_str(b, "flow"),
	    .role = role,
	    .slice = TREX_HANDLE_NONE,
	    .track = track,
	    .ts = ts,
	    .bind = TREX_BIND_ENCLOSING,
	};

	cr_assert_eq(trex_builder_flow(b, &p), 0);
}

/* The flow that starts at ts. */
static uint32_t flow_from(const struct trex_index *idx, int64_t ts)
{
	for (uint32_t i = 0; i < trex_index_flow_count(idx); i++) {
		if (trex_index_flow(idx, i)->from_ts == ts)
			return i;
	}
	cr_assert_fail("no flow from %lld", (long long)ts);
	return TREX_NONE;
}

Test(file_members, flows_keep_their_ids)
{
	struct trex_build_file f = fixture_file("flows.json");
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, fixture_str(b, "1"), fixture_str(b, "1"));
	const struct fixture_slice a = {"1", "1", "cpu_op", "a", 0, 100, 0, 0, NULL};
	trex_handle h1, h2;
	struct trex_flow_id id;

	fixture_add(b, &f, &a);
	flow_point(b, t, "ac2g", 41, NULL, TREX_FLOW_START, 1);
	flow_point(b, t, "ac2g", 41, NULL, TREX_FLOW_END, 2);
	flow_point(b, t, "fwdbwd", (uint64_t)-7, NULL, TREX_FLOW_START, 3);
	flow_point(b, t, "fwdbwd", (uint64_t)-7, NULL, TREX_FLOW_END, 4);
	flow_point(b, t, "ac2g", 0, "0x1f", TREX_FLOW_START, 5);
	flow_point(b, t, "ac2g", 0, "0x1f", TREX_FLOW_END, 6);
	flow_point(b, t, "chain", 9, NULL, TREX_FLOW_START, 10);
	flow_point(b, t, "chain", 9, NULL, TREX_FLOW_STEP, 11);
	flow_point(b, t, "chain", 9, NULL, TREX_FLOW_END, 12);
	h1 = trex_builder_complete(b, t, &(struct trex_ev){.ts = 20, .dur = 1});
	h2 = trex_builder_complete(b, t, &(struct trex_ev){.ts = 30, .dur = 1});
	cr_assert_eq(trex_builder_edge(b, h1, h2, TREX_EDGE_FLOW), 0);
	struct trex_index *idx = fixture_build(&f, &b, 1);
	cr_assert_eq(trex_index_flow_count(idx), 6);
	id = trex_index_flow_id(idx, flow_from(idx, 1));
	cr_assert(id.kind == TREX_FLOW_ID_NUM && id.num == 41 && !id.chained);
	id = trex_index_flow_id(idx, flow_from(idx, 3));
	cr_assert(id.kind == TREX_FLOW_ID_NUM && id.num == -7);
	id = trex_index_flow_id(idx, flow_from(idx, 5));
	cr_assert_eq(id.kind, TREX_FLOW_ID_STR);
	cr_assert_str_eq(trex_index_str(idx, id.str), "0x1f");
	id = trex_index_flow_id(idx, flow_from(idx, 10));
	cr_assert(id.kind == TREX_FLOW_ID_NUM && id.num == 9 && id.chained, "a hop to a step");
	id = trex_index_flow_id(idx, flow_from(idx, 11));
	cr_assert(id.kind == TREX_FLOW_ID_NUM && id.num == 9 && id.chained, "a hop from a step");
	for (uint32_t i = 0; i < trex_index_flow_count(idx); i++) {
		if (trex_index_flow(idx, i)->from_slice == TREX_NONE ||
		    trex_index_slice(idx, trex_index_flow(idx, i)->from_slice)->ts != 20)
			continue;
		cr_assert_eq(trex_index_flow_id(idx, i).kind, TREX_FLOW_ID_NONE,
		             "an edge has none");
	}
	cr_assert_eq(trex_index_flow_id(idx, 99).kind, TREX_FLOW_ID_NONE);
	trex_index_free(idx);
}

/* ---- the Chrome loader ---------------------------------------------------------------------- */

/* Loads texts as files with threads and the gzip stream window (0: default). */
static struct trex_index *load_files(const char *const *texts, const size_t *lens, size_t n,
                                     unsigned threads, size_t window)
{
	struct trex_source *src[4];
	struct trex_error err;
	struct trex_load_opts opts = {.threads = threads, .stream_window = window};
	struct trex_index *idx = NULL;
	char name[32], msg[1024];

	cr_assert_leq(n, 4);
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "file%zu.json", i);
		cr_assert_eq(trex_source_open_memory(name, texts[i], lens[i], true, &src[i], &err),
		             TREX_OK);
	}
	enum trex_status s = trex_load_sources(src, n, &opts, &idx, &err);
	trex_error_format(&err, msg, sizeof(msg));
	cr_assert_eq(s, TREX_OK, "load failed: %s", msg);
	return idx;
}

static struct trex_index *load_text(const char *text)
{
	size_t len = strlen(text);

	return load_files(&text, &len, 1, 1, 0);
}

static const char kineto_head[] =
    "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, "
    "\"name\": \"NVIDIA H100\", \"numSms\": 132\n    }\n  ],\n  \"distributedInfo\": "
    "{\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},\n  \"with\\u0020escape\": "
    "[1,\n 2],\n  \"baseTimeNanoseconds\": 1000000000,\n  \"traceEvents\": [\n";
static const char kineto_tail[] = "\n],\n  \"traceName\": \"/tmp/x.json\",\n  \"displayTimeUnit\""
                                  ": \"ms\"\n}\n";

/* A Kineto-like trace: n kernels launched by runtime calls, their ac2g
 * flows, the members above around the events. */
static char *kineto_trace(size_t n, size_t *len)
{
	size_t cap = 512 + n * 420, at = 0;
	char *s = malloc(cap);

	cr_assert_not_null(s);
	at += (size_t)sprintf(s + at, "%s", kineto_head);
	for (size_t i = 0; i < n; i++)
		at += (size_t)sprintf(
		    s + at,
		    "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
		    "\"pid\":1,"
		    "\"tid\":1,\"ts\":%zu.250,\"dur\":2,\"args\":{\"correlation\":%zu}},\n"
		    "{\"ph\":\"s\",\"id\":%zu,\"pid\":1,\"tid\":1,\"ts\":%zu.250,\"cat\":\"ac2g\","
		    "\"name\":\"ac2g\"},\n"
		    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%"
		    "zu,"
		    "\"dur\":5,\"args\":{\"correlation\":%zu}},\n"
		    "{\"ph\":\"f\",\"id\":%zu,\"pid\":0,\"tid\":7,\"ts\":%zu,\"cat\":\"ac2g\","
		    "\"name\":\"ac2g\",\"bp\":\"e\"}",
		    i ? ",\n" : "", 10 * i, i + 1, i + 1, 10 * i, 10 * i + 3, i + 1, i + 1,
		    10 * i + 3);
	at += (size_t)sprintf(s + at, "%s", kineto_tail);
	*len = at;
	return s;
}

static void expect_kineto_members(const struct trex_index *idx, uint32_t file)
{
	cr_assert_eq(trex_index_file_member_count(idx, file), 7);
	expect_member(idx, file, 0, "schemaVersion", "1", false);
	expect_member(idx, file, 1, "deviceProperties",
	              "[\n    {\n      \"id\": 0, \"name\": \"NVIDIA H100\", \"numSms\": 132\n    "
	              "}\n  ]",
	              false);
	expect_member(idx, file, 2, "distributedInfo",
	              "{\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8}", false);
	expect_member(idx, file, 3, "with\\u0020escape", "[1,\n 2]", false);
	expect_member(idx, file, 4, "baseTimeNanoseconds", "1000000000", false);
	expect_member(idx, file, 5, "traceName", "\"/tmp/x.json\"", true);
	expect_member(idx, file, 6, "displayTimeUnit", "\"ms\"", true);
}

Test(file_members, chrome_members_byte_for_byte_in_file_order)
{
	size_t len;
	char *t = kineto_trace(3, &len);
	struct trex_index *idx = load_files((const char *const *)&t, &len, 1, 1, 0);

	expect_kineto_members(idx, 0);
	cr_assert_eq(trex_index_file(idx, 0)->rank, 3);
	trex_index_free(idx);
	free(t);
	idx = load_text("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]");
	cr_assert_eq(trex_index_file_member_count(idx, 0), 0, "a bare array has none");
	trex_index_free(idx);
}

/* gzip (tiny windows, so members straddle them; one thread and several)
 * and a mapped file parsed in parallel parts keep the same members. */
Test(file_members, chrome_members_from_every_load_path, .timeout = 120)
{
	size_t len, gz_len;
	char *t = kineto_trace(30000, &len);
	char *z = (char *)fixture_gzip(t, len, &gz_len);
	static const size_t windows[] = {7, 64, 4096};

	cr_assert_gt(len, 8u << 20, "big enough to be split");
	for (unsigned threads = 1; threads <= 4; threads += 3) {
		struct trex_index *plain = load_files((const char *const *)&t, &len, 1, threads, 0);

		expect_kineto_members(plain, 0);
		cr_assert_eq(trex_index_flow_count(plain), 30000);
		trex_index_free(plain);
	}
	for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		for (unsigned threads = 1; threads <= 2; threads++) {
			struct trex_index *gz =
			    load_files((const char *const *)&z, &gz_len, 1, threads, windows[w]);

			cr_assert(trex_index_file(gz, 0)->gzip);
			expect_kineto_members(gz, 0);
			trex_index_free(gz);
			if (windows[w] == 7) /* 30000 events through 7-byte windows: slow */
				break;
		}
	}
	free(t);
	free(z);
}

Test(file_members, chrome_member_over_the_cap_is_counted_not_kept, .timeout = 60)
{
	size_t big = TREX_FILE_MEMBER_MAX + 10, len;
	char *t = malloc(big + 256);

	len = (size_t)sprintf(t, "{\"schemaVersion\": 1, \"huge\": \"");
	memset(t + len, 'x', big);
	len += big;
	len +=
	    (size_t)sprintf(t + len, "\", \"traceEvents\": [{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,"
	                             "\"tid\":1,\"ts\":1,\"dur\":1}], \"after\": true}");
	struct trex_index *idx = load_files((const char *const *)&t, &len, 1, 1, 0);
	const struct trex_file *f = trex_index_file(idx, 0);

	cr_assert_eq(trex_index_file_member_count(idx, 0), 2);
	expect_member(idx, 0, 0, "schemaVersion", "1", false);
	expect_member(idx, 0, 1, "after", "true", true);
	cr_assert_eq(f->integrity.bad_values, 1);
	cr_assert_eq(trex_index_problem_count(idx, 0, TREX_INTEG_bad_values), 1);
	cr_assert(strstr(trex_index_problem(idx, 0, TREX_INTEG_bad_values, 0)->what, "\"huge\""));
	cr_assert_eq(trex_index_slice_count(idx), 1);
	trex_index_free(idx);
	free(t);
}

/* ---- the Chrome exporter -------------------------------------------------------------------- */

/* The Chrome export of idx (scope s, NULL: all) as a malloc'd string. */
static char *chrome_of(const struct trex_index *idx, const struct trex_export_scope *s);

/* Perfetto's flow ids are unsigned 64-bit numbers: one beyond INT64_MAX
 * is written as the same unsigned number, not as a negative one. */
Test(file_members, unsigned_ids_stay_unsigned)
{
	struct trex_build_file f = fixture_file("p.pftrace");
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, fixture_str(b, "1"), fixture_str(b, "1"));
	const struct fixture_slice a = {"1", "1", "cpu_op", "a", 0, 100, 0, 0, NULL};
	struct trex_flow_point p = {
	    .key = {fixture_str(b, "flow"), 0, UINT64_MAX - 1},
	    .name = fixture_str(b, "f"),
	    .role = TREX_FLOW_START,
	    .slice = TREX_HANDLE_NONE,
	    .track = t,
	    .ts = 1,
	    .id_unsigned = true,
	};

	fixture_add(b, &f, &a);
	cr_assert_eq(trex_builder_flow(b, &p), 0);
	p.role = TREX_FLOW_END, p.ts = 2;
	cr_assert_eq(trex_builder_flow(b, &p), 0);
	p.key.num = 12, p.role = TREX_FLOW_START, p.ts = 3;
	cr_assert_eq(trex_builder_flow(b, &p), 0);
	p.role = TREX_FLOW_END, p.ts = 4;
	cr_assert_eq(trex_builder_flow(b, &p), 0);
	struct trex_index *idx = fixture_build(&f, &b, 1);
	struct trex_flow_id id = trex_index_flow_id(idx, 0);
	char *out = chrome_of(idx, NULL);

	cr_assert(id.kind == TREX_FLOW_ID_U64 && (uint64_t)id.num == UINT64_MAX - 1);
	cr_assert(strstr(out, "{\"ph\":\"s\",\"id\":18446744073709551614,"), "%s", out);
	cr_assert(strstr(out, "{\"ph\":\"s\",\"id\":12,"), "%s", out);
	free(out);
	trex_index_free(idx);
}

static char *chrome_of(const struct trex_index *idx, const struct trex_export_scope *s)
{
	char path[] = "/tmp/trex-members-test-XXXXXX";
	int fd = mkstemp(path);
	struct trex_export_opts o = {.force = true};
	struct trex_error err;
	char *buf = calloc(1, 1 << 20);
	FILE *f;

	cr_assert_geq(fd, 0);
	close(fd);
	if (s)
		o.scope = *s;
	cr_assert_eq(trex_chrome_export(idx, path, &o, NULL, &err), TREX_OK, "%s", err.message);
	f = fopen(path, "rb");
	cr_assert_not_null(f);
	cr_assert_lt(fread(buf, 1, (1 << 20) - 1, f), (size_t)(1 << 20) - 1);
	fclose(f);
	unlink(path);
	return buf;
}

Test(file_members, chrome_export_writes_members_and_ids_back)
{
	size_t len;
	char *t = kineto_trace(2, &len);
	struct trex_index *idx = load_files((const char *const *)&t, &len, 1, 1, 0);
	char *out = chrome_of(idx, NULL);

	cr_assert(
	    strncmp(out,
	            "{\"schemaVersion\": 1,\n\"deviceProperties\": [\n    {\n      \"id\": 0, "
	            "\"name\": \"NVIDIA H100\", \"numSms\": 132\n    }\n  ],\n"
	            "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": "
	            "8},\n\"with\\u0020escape\": [1,\n 2],\n\"baseTimeNanoseconds\": "
	            "1000000000,\n\"traceEvents\": [",
	            strlen("{\"schemaVersion\": 1,\n\"deviceProperties\": [\n")) == 0,
	    "%s", out);
	cr_assert(strstr(out, "\"baseTimeNanoseconds\": 1000000000,\n\"traceEvents\": [\n"), "%s",
	          out);
	cr_assert(strstr(out, "\n],\n\"traceName\": \"/tmp/x.json\",\n\"displayTimeUnit\": "
	                      "\"ms\"\n}\n"),
	          "%s", out);
	/* times relative to the base, as in the file; ids as the file had them */
	cr_assert(strstr(out, "\"ts\":10.25,\"dur\":2,\"cat\":\"cuda_runtime\""), "%s", out);
	cr_assert(strstr(out, "{\"ph\":\"s\",\"id\":2,\"pid\":1,\"tid\":1,\"ts\":10.25,"), "%s",
	          out);
	cr_assert(strstr(out, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":2,\"pid\":0,\"tid\":7,\"ts\":13,"),
	          "%s", out);
	cr_assert_null(strstr(out, "{\"rank\": 3}"), "no second distributedInfo: %s", out);
	free(out);
	trex_index_free(idx);
	free(t);
}

Test(file_members, chrome_export_string_ids_and_chains)
{
	const char *t =
	    "{\"traceEvents\": "
	    "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},"
	    "{\"ph\":\"s\",\"id\":\"x\\\"1\",\"cat\":\"c\",\"name\":\"n\",\"pid\":1,\"tid\":1,"
	    "\"ts\":1},"
	    "{\"ph\":\"f\",\"bp\":\"e\",\"id\":\"x\\\"1\",\"cat\":\"c\",\"name\":\"n\",\"pid\":1,"
	    "\"tid\":1,\"ts\":2},"
	    "{\"ph\":\"s\",\"id\":-5,\"cat\":\"c\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":3},"
	    "{\"ph\":\"f\",\"bp\":\"e\",\"id\":-5,\"cat\":\"c\",\"name\":\"n\",\"pid\":1,\"tid\":1,"
	    "\"ts\":4},"
	    "{\"ph\":\"s\",\"id\":5,\"cat\":\"c\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":10},"
	    "{\"ph\":\"t\",\"id\":5,\"cat\":\"c\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":11},"
	    "{\"ph\":\"f\",\"bp\":\"e\",\"id\":5,\"cat\":\"c\",\"name\":\"n\",\"pid\":1,\"tid\":1,"
	    "\"ts\":12}], \"distributedInfo\": {\"rank\": 2}}";
	struct trex_index *idx = load_text(t);
	char *out = chrome_of(idx, NULL);

	cr_assert_eq(trex_index_flow_count(idx), 4);
	cr_assert(strstr(out, "{\"ph\":\"s\",\"id\":\"x\\\"1\",\"pid\":1,\"tid\":1,\"ts\":1,"),
	          "%s", out);
	/* (an end is written at the start of the slice it is bound to) */
	cr_assert(strstr(out, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":-5,\"pid\":1,\"tid\":1,\"ts\":0,"),
	          "%s", out);
	/* the hops of a chain with a step cannot share its id when written as
	 * pairs: each gets its own */
	cr_assert_null(strstr(out, "\"id\":5,"), "%s", out);
	cr_assert(strstr(out, "\"id\":4294967296,") && strstr(out, "\"id\":4294967297,"), "%s",
	          out);
	cr_assert(strstr(out, "\n],\n\"distributedInfo\": {\"rank\": 2}\n}\n"), "%s", out);
	free(out);
	trex_index_free(idx);
}

/* One output from two files: the first file's members without its rank,
 * the second file's flows keep their ids unless the first has them. */
Test(file_members, chrome_export_of_two_files)
{
	const char *texts[2] = {
	    "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0}, \"traceEvents\": ["
	    "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},"
	    "{\"ph\":\"s\",\"id\":7,\"cat\":\"ac2g\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":1},"
	    "{\"ph\":\"f\",\"bp\":\"e\",\"id\":7,\"cat\":\"ac2g\",\"name\":\"n\",\"pid\":1,"
	    "\"tid\":1,\"ts\":2}]}",
	    "{\"schemaVersion\": 9, \"distributedInfo\": {\"rank\": 1}, \"traceEvents\": ["
	    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":2,\"tid\":1,\"ts\":0,\"dur\":50},"
	    "{\"ph\":\"s\",\"id\":7,\"cat\":\"ac2g\",\"name\":\"n\",\"pid\":2,\"tid\":1,\"ts\":3},"
	    "{\"ph\":\"f\",\"bp\":\"e\",\"id\":7,\"cat\":\"ac2g\",\"name\":\"n\",\"pid\":2,"
	    "\"tid\":1,\"ts\":4},"
	    "{\"ph\":\"s\",\"id\":7,\"cat\":\"fwdbwd\",\"name\":\"n\",\"pid\":2,\"tid\":1,\"ts\":5}"
	    ","
	    "{\"ph\":\"f\",\"bp\":\"e\",\"id\":7,\"cat\":\"fwdbwd\",\"name\":\"n\",\"pid\":2,"
	    "\"tid\":1,\"ts\":6}]}"};
	size_t lens[2] = {strlen(texts[0]), strlen(texts[1])};
	struct trex_index *idx = load_files(texts, lens, 2, 1, 0);
	struct trex_rank_range one = {1, 1};
	struct trex_export_scope s = {.ranks = &one, .nranks = 1};
	char *out = chrome_of(idx, NULL);

	cr_assert(strncmp(out, "{\"schemaVersion\": 1,\n\"traceEvents\": [", 37) == 0, "%s", out);
	cr_assert_null(strstr(out, "distributedInfo"), "%s", out);
	cr_assert(strstr(out, "\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":1,"), "%s", out);
	cr_assert(strstr(out, "\"ph\":\"s\",\"id\":4294967296,\"pid\":2,\"tid\":1,\"ts\":3,"), "%s",
	          out);
	cr_assert(
	    strstr(out, "\"ph\":\"s\",\"id\":7,\"pid\":2,\"tid\":1,\"ts\":5,\"cat\":\"fwdbwd\""),
	    "another category, the same id: %s", out);
	free(out);
	/* one file of the two in scope: that file's members, its rank */
	out = chrome_of(idx, &s);
	cr_assert(
	    strncmp(out, "{\"schemaVersion\": 9,\n\"distributedInfo\": {\"rank\": 1},\n", 52) == 0,
	    "%s", out);
	free(out);
	trex_index_free(idx);
}
