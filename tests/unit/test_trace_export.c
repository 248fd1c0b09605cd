/* The trace exporters: their table, number formatting and string
 * escapes, the scope's range rule, and Chrome/Perfetto/csv output of a
 * hand-built index. */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index_fixture.h"
#include "trex/export/chakra_write.h"
#include "trex/export/json_write.h"
#include "trex/export/trace_export.h"

static void assert_us(int64_t ns, const char *expect)
{
	char buf[32];
	char *end = trex_fmt_ns_as_us(buf, ns);

	*end = '\0';
	cr_assert_str_eq(buf, expect, "%lld ns", (long long)ns);
}

Test(trace_export, ns_as_exact_microseconds)
{
	assert_us(0, "0");
	assert_us(1, "0.001");
	assert_us(10, "0.01");
	assert_us(120, "0.12");
	assert_us(999, "0.999");
	assert_us(1000, "1");
	assert_us(1001, "1.001");
	assert_us(1500, "1.5");
	assert_us(1695835542481129001LL, "1695835542481129.001");
	assert_us(-1, "-0.001");
	assert_us(-1500, "-1.5");
	assert_us(INT64_MAX, "9223372036854775.807");
	assert_us(INT64_MIN, "-9223372036854775.808");
}

Test(trace_export, integers)
{
	char buf[32];

	*trex_fmt_u64(buf, UINT64_MAX) = '\0';
	cr_assert_str_eq(buf, "18446744073709551615");
	*trex_fmt_i64(buf, INT64_MIN) = '\0';
	cr_assert_str_eq(buf, "-9223372036854775808");
	*trex_fmt_i64(buf, 0) = '\0';
	cr_assert_str_eq(buf, "0");
}

static void assert_escaped(const char *in, size_t n, const char *expect)
{
	char out[256];
	size_t len = trex_json_escape_into(in, n, out);

	cr_assert_lt(len, sizeof(out));
	out[len] = '\0';
	cr_assert_str_eq(out, expect);
}

Test(trace_export, escapes_as_the_json_writer)
{
	assert_escaped("plain kernel<float>", 19, "plain kernel<float>");
	assert_escaped("a\"b\\c", 5, "a\\\"b\\\\c");
	assert_escaped("t\tn\nr\r", 6, "t\\tn\\nr\\r");
	assert_escaped("\x1b[31m", 5, "\\u001b[31m");
	assert_escaped("nul\xc0\x80!", 6, "nul\\u0000!");
	assert_escaped("bad \xff byte", 10, "bad \\ufffd byte");
	assert_escaped("\xc2\x85 C1", 5, "\\u0085 C1");
	assert_escaped("é ok", 5, "é ok");
	assert_escaped("\x7f", 1, "\\u007f");
}

Test(trace_export, exporters_by_name_and_extension)
{
	cr_assert_str_eq(trex_trace_exporter_for_path("a/b.json")->name, "chrome");
	cr_assert_str_eq(trex_trace_exporter_for_path("b.JSON.GZ")->name, "chrome");
	cr_assert_str_eq(trex_trace_exporter_for_path("b.pftrace")->name, "perfetto");
	cr_assert_str_eq(trex_trace_exporter_for_path("b.perfetto-trace")->name, "perfetto");
	cr_assert_str_eq(trex_trace_exporter_for_path("b.pb")->name, "perfetto");
	cr_assert_str_eq(trex_trace_exporter_for_path("b.csv")->name, "csv");
	cr_assert_null(trex_trace_exporter_for_path("b.txt"));
	cr_assert_null(trex_trace_exporter_for_path("json"));
	cr_assert_str_eq(trex_trace_exporter_named("perfetto")->extensions,
	                 ".pftrace .perfetto-trace .pb");
	cr_assert_null(trex_trace_exporter_named("Chrome"));
	cr_assert_eq(trex_trace_exporter_count(), 5);
	/* chakra sets are files per rank under a prefix: named only by --to */
	cr_assert_str_eq(trex_trace_exporter_named("chakra")->extensions, "");
	cr_assert_null(trex_trace_exporter_for_path("run.et"));
	cr_assert_str_eq(trex_trace_exporter_named("chakra-json")->name, "chakra-json");
}

Test(trace_export, range_keeps_touching_slices_cut)
{
	struct trex_export_scope s = {.has_range = true, .start = 100, .end = 200};
	int64_t ts, dur;
	enum trex_clip clip;

	cr_assert(trex_export_clip(&s, 50, 100, &ts, &dur, &clip));
	cr_assert(ts == 100 && dur == 50 && clip == TREX_CLIP_START);
	cr_assert(trex_export_clip(&s, 150, 100, &ts, &dur, &clip));
	cr_assert(ts == 150 && dur == 50 && clip == TREX_CLIP_END);
	cr_assert(trex_export_clip(&s, 0, 1000, &ts, &dur, &clip));
	cr_assert(ts == 100 && dur == 100 && clip == TREX_CLIP_BOTH);
	cr_assert(trex_export_clip(&s, 120, 10, &ts, &dur, &clip));
	cr_assert(ts == 120 && dur == 10 && clip == TREX_CLIP_NONE);
	cr_assert_not(trex_export_clip(&s, 50, 50, &ts, &dur, &clip), "ends at the start");
	cr_assert_not(trex_export_clip(&s, 200, 5, &ts, &dur, &clip), "starts at the end");
	cr_assert(trex_export_clip(&s, 200, 0, &ts, &dur, &clip), "an instant at the end");
	cr_assert_not(trex_export_clip(&s, 201, 0, &ts, &dur, &clip));
	cr_assert_str_eq(trex_clip_name(TREX_CLIP_BOTH), "both");
}

/* A one-file index: a thread with a quoted, controlled name and a GPU
 * stream with a kernel. */
static struct trex_index *small_index(void)
{
	struct trex_build_file f = fixture_file("small.json");
	struct trex_builder *b = trex_builder_new(0);
	const struct fixture_slice slices[] = {
	    {"7", "7", "cpu_op", "op \"x\"\n\x1b", 1000, 2500, 0, 0, NULL},
	    {"7", "7", "cuda_runtime", "cudaLaunchKernel", 1200, 100, 5, 0, NULL},
	    {"0", "stream 7", "kernel", "gemm", 1500, 1001, 5, 0, NULL},
	};

	for (size_t i = 0; i < sizeof(slices) / sizeof(slices[0]); i++)
		fixture_add(b, &f, &slices[i]);
	return fixture_build(&f, &b, 1);
}

/* What exporter name writes of idx with scope s, as a malloc'd string. */
static char *exported(const char *name, const struct trex_index *idx,
                      const struct trex_export_scope *s, size_t *len)
{
	char path[] = "/tmp/trex-export-test-XXXXXX";
	int fd = mkstemp(path);
	struct trex_export_opts o = {.force = true};
	struct trex_error err;
	char *buf;
	FILE *f;

	cr_assert_geq(fd, 0);
	close(fd);
	if (s)
		o.scope = *s;
	cr_assert_eq(trex_trace_exporter_named(name)->write(idx, path, &o, NULL, &err), TREX_OK,
	             "%s", err.message);
	f = fopen(path, "rb");
	cr_assert_not_null(f);
	buf = calloc(1, 1 << 16);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	unlink(path);
	return buf;
}

Test(trace_export, chrome_events_exact)
{
	struct trex_index *idx = small_index();
	size_t len;
	char *out = exported("chrome", idx, NULL, &len);

	cr_assert(strstr(out, "{\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":1,\"dur\":2.5,\"cat\":"
	                      "\"cpu_op\",\"name\":\"op \\\"x\\\"\\n\\u001b\"}"),
	          "%s", out);
	cr_assert(strstr(out, "\"pid\":0,\"tid\":\"stream 7\",\"ts\":1.5,\"dur\":1.001,"), "%s",
	          out);
	cr_assert(strstr(out, "\"distributedInfo\"") == NULL, "%s", out); /* no rank given */
	free(out);
	trex_index_free(idx);
}

Test(trace_export, chrome_range_flags_cut_slices)
{
	struct trex_index *idx = small_index();
	struct trex_export_scope s = {.has_range = true, .start = 1300, .end = 2000};
	size_t len;
	char *out = exported("chrome", idx, &s, &len);

	cr_assert(strstr(out, "\"ts\":1.3,\"dur\":0.7,\"cat\":\"cpu_op\"") &&
	              strstr(out, "\"args\":{\"trex_clipped\":\"both\"}"),
	          "%s", out);
	cr_assert(strstr(out, "\"ts\":1.5,\"dur\":0.5,\"cat\":\"kernel\",\"name\":\"gemm\","
	                      "\"args\":{\"trex_clipped\":\"end\"}"),
	          "%s", out);
	cr_assert_null(strstr(out, "cudaLaunchKernel"), "ends before the range: %s", out);
	free(out);
	trex_index_free(idx);
}

Test(trace_export, perfetto_packets_and_interning)
{
	struct trex_index *idx = small_index();
	size_t len;
	char *out = exported("perfetto", idx, NULL, &len);

	cr_assert_gt(len, 10);
	cr_assert_eq((unsigned char)out[0], 0x0a, "a Trace.packet first");
	/* the kernel's name is interned once, as EventName{iid, name} */
	cr_assert(memmem(out, len, "\x12\x04gemm", 6));
	cr_assert(memmem(out, len, "stream 7", 8), "the stream is a named track");
	free(out);
	trex_index_free(idx);
}

Test(trace_export, csv_rows)
{
	struct trex_index *idx = small_index();
	size_t len;
	char *out = exported("csv", idx, NULL, &len);

	cr_assert(strstr(out, "rank,process,track,ts_ns,dur_ns,depth,kind,category,name,clipped\n"),
	          "%s", out);
	cr_assert(strstr(out, ",1000,2500,0,"), "%s", out);
	cr_assert(strstr(out, ",\"op \"\"x\"\"\\n\\x1b\","), "quoted, escaped: %s", out);
	free(out);
	trex_index_free(idx);
}

Test(trace_export, perfetto_of_nothing_is_a_trace)
{
	struct trex_index *idx = small_index();
	static const struct trex_rank_range none = {5, 6};
	struct trex_export_scope s = {.ranks = &none, .nranks = 1};
	size_t len;
	char *out = exported("perfetto", idx, &s, &len);

	/* no track of rank 5 or 6: a packet: sequence id 1, flags 3 (cleared, needs state) */
	cr_assert_eq(len, 6);
	cr_assert_eq(memcmp(out, "\x0a\x04\x50\x01\x68\x03", 6), 0);
	free(out);
	trex_index_free(idx);
}

Test(trace_export, track_set_keeps_only_its_tracks)
{
	struct trex_index *idx = small_index();
	uint8_t set[8] = {0};
	struct trex_export_scope s = {.track_set = set};
	size_t len;
	char *out;
	uint32_t stream = TREX_NONE;

	cr_assert_leq(trex_index_track_count(idx), sizeof(set));
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++) {
		const struct trex_track *t = trex_index_track(idx, i);

		if (strcmp(trex_index_str(idx, t->tid), "stream 7") == 0)
			stream = i;
	}
	cr_assert_neq(stream, TREX_NONE);
	set[stream] = 1;
	cr_assert(trex_export_track_in(idx, &s, stream));
	cr_assert_not(trex_export_track_in(idx, &s, stream == 0 ? 1 : 0));
	out = exported("csv", idx, &s, &len);
	cr_assert(strstr(out, ",gemm,"), "%s", out);
	cr_assert_null(strstr(out, "cudaLaunchKernel"), "another track: %s", out);
	free(out);
	cr_assert_eq(trex_chakra_export(idx, "/tmp/trex-export-test-never",
	                                &(struct trex_export_opts){.scope = s}, NULL,
	                                &(struct trex_error){0}),
	             TREX_USAGE, "chakra refuses a track set");
	trex_index_free(idx);
}

/* Chakra's writer reports progress every TREX_CHAKRA_PROGRESS_RECORDS
 * records through the export's callback, which may cancel: then no file
 * of the set is left behind. */
struct progress_probe {
	int calls;
	uint64_t last_events;
};

static bool cancel_after_start(void *user, const struct trex_export_progress *p)
{
	struct progress_probe *c = user;

	c->calls++;
	c->last_events = p->events;
	return p->events > 0;
}

Test(trace_export, chakra_progress_and_cancel)
{
	struct trex_build_file f = fixture_file("many.json");
	struct trex_builder *b = trex_builder_new(0);
	struct progress_probe probe = {0, 0};
	struct trex_export_opts o = {
	    .force = true, .progress = cancel_after_start, .progress_user = &probe};
	char dir[] = "/tmp/trex-chakra-cancel-XXXXXX", prefix[64];
	struct trex_error err;
	struct trex_index *idx;
	struct dirent *e;
	DIR *d;
	int left = 0;

	for (int64_t i = 0; i < 10000; i++) {
		struct fixture_slice s = {"0", "stream 7", "kernel", "k", 1000 + 10 * i,
		                          5,   0,          0,        NULL};

		fixture_add(b, &f, &s);
	}
	idx = fixture_build(&f, &b, 1);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(prefix, sizeof prefix, "%s/set", dir);
	cr_assert_eq(trex_trace_exporter_named("chakra")->write(idx, prefix, &o, NULL, &err),
	             TREX_CANCELLED, "%s", err.message);
	cr_assert_eq(probe.calls, 2, "once at the start, once after the first records");
	cr_assert_eq(probe.last_events, TREX_CHAKRA_PROGRESS_RECORDS);
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		left += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	cr_assert_eq(left, 0, "nothing left behind");
	rmdir(dir);
	trex_index_free(idx);
}
