/* libFuzzer target: arbitrary bytes through the whole loading pipeline
 * (sniff, plain or gzip source, Chrome JSON loader, builders, index build)
 * and then every consumer of the index the CLI has: kernels by name and by
 * shape, the info summary with its integrity examples, the table writers,
 * lazy args and the lane and link queries. Plain input is also gzipped and
 * loaded on two threads in stream windows of about an eighth of it (61
 * bytes at least): salvage must resume at the same places whatever the
 * windows, so the counts must be the same (abort() otherwise); loaded
 * with every member scanned instead of predicted from learned member
 * literals, it must give the same slices byte for byte (check_scanned).
 * Built and run by tests/fuzz/run.sh (`make fuzz`). Also: the vectorised
 * container skip against the byte loop (check_skip). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/summary.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/export/table_write.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

#include "json_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_MAX_VISITS = 64 };

static FILE *sink(void)
{
	static FILE *null_out;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	return null_out;
}

static void write_all_formats(const struct trex_table *t)
{
	static const enum trex_table_format formats[] = {TREX_FMT_TEXT, TREX_FMT_CSV,
	                                                 TREX_FMT_JSON};
	struct trex_error err;

	if (!sink())
		return;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		trex_table_write(sink(), t, formats[i], &err);
}

static void touch_kernels(const struct trex_index *idx, enum trex_kernel_group group)
{
	struct trex_kernel_opts opts = {.group = group};
	struct trex_table t;
	struct trex_error err;

	if (trex_kernels_table(idx, &opts, &t, &err) != TREX_OK)
		return;
	write_all_formats(&t);
	trex_table_free(&t);
}

static void touch_summary(const struct trex_index *idx)
{
	struct trex_summary s;
	struct trex_error err;

	if (trex_summary_compute(idx, &s, &err) != TREX_OK)
		return;
	write_all_formats(&s.files);
	write_all_formats(&s.phases);
	write_all_formats(&s.categories);
	write_all_formats(&s.tracks);
	write_all_formats(&s.integrity);
	write_all_formats(&s.examples);
	trex_summary_free(&s);
}

static void touch_args(const struct trex_index *idx, uint32_t file, trex_args_ref ref)
{
	struct trex_error err;
	char *text = NULL;
	size_t len = 0;

	struct trex_args args;

	if (trex_index_args_json(idx, file, ref, &text, &len, &err) == TREX_OK)
		free(text);
	if (trex_index_args(idx, file, ref, &args, NULL, &err) == TREX_OK)
		trex_args_free(&args);
}

static void touch_slices(const struct trex_index *idx)
{
	uint32_t ids[8];
	uint32_t n = trex_index_slice_count(idx);

	for (uint32_t i = 0; i < n && i < FUZZ_MAX_VISITS; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		touch_args(idx, trex_index_track_file(idx, s->track), s->args);
		trex_index_parent(idx, i);
		trex_index_slice_at(idx, s->track, s->ts + s->dur / 2);
		trex_index_same_launch_link(idx, i, ids, 8);
		trex_index_same_op_link(idx, i, ids, 8);
		trex_index_flows_of(idx, i, ids, 8);
	}
	for (uint32_t i = 0; i < trex_index_instant_count(idx) && i < FUZZ_MAX_VISITS; i++) {
		const struct trex_instant *in = trex_index_instant(idx, i);

		touch_args(idx, trex_index_track_file(idx, in->track), in->args);
	}
}

static void touch_lanes(const struct trex_index *idx)
{
	int64_t mid = trex_index_start(idx) / 2 + trex_index_end(idx) / 2;

	for (uint32_t i = 0; i < trex_index_lane_count(idx) && i < FUZZ_MAX_VISITS; i++) {
		const struct trex_lane *lane = trex_index_lane(idx, i);

		trex_lane_find_end_at_or_after(idx, lane, mid);
		trex_lane_find_start_after(idx, lane, mid);
	}
}

/* data gzipped in memory (malloc'd), or NULL. */
static unsigned char *gzip_of(const uint8_t *data, size_t size, size_t *out_len)
{
	z_stream zs;
	uLong cap = compressBound((uLong)size) + 64;
	unsigned char *z = malloc(cap);
	unsigned char *in = malloc(size + 1);

	memset(&zs, 0, sizeof(zs));
	if (!z || !in || deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		free(in);
		return NULL;
	}
	memcpy(in, data, size);
	zs.next_in = in;
	zs.avail_in = (uInt)size;
	zs.next_out = z;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		free(z);
		z = NULL;
	}
	*out_len = zs.total_out;
	deflateEnd(&zs);
	free(in);
	return z;
}

/* The same bytes gzipped and loaded in tiny windows on two threads give
 * the same events and integrity counts as the plain load. */
static void check_windows(const uint8_t *data, size_t size, const struct trex_index *plain)
{
	struct trex_load_opts opts = {.threads = 2, .stream_window = size / 8 + 61};
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;
	size_t zlen = 0;
	unsigned char *z = gzip_of(data, size, &zlen);
	const struct trex_file *a, *b;

	if (!z)
		return;
	if (trex_source_open_memory("fuzz.json", z, zlen, true, &src, &err) == TREX_OK &&
	    trex_load_sources(&src, 1, &opts, &idx, &err) == TREX_OK) {
		a = trex_index_file(plain, 0);
		b = trex_index_file(idx, 0);
		if (a->events != b->events ||
		    trex_index_slice_count(plain) != trex_index_slice_count(idx) ||
		    memcmp(&a->integrity, &b->integrity, sizeof(a->integrity)) != 0 ||
		    a->event_type_count != b->event_type_count)
			abort();
		for (uint32_t k = 0; k < a->event_type_count; k++)
			if (a->event_types[k].events != b->event_types[k].events)
				abort();
		trex_index_free(idx);
	}
	free(z);
}

/* Scanning every member gives the index that learned member literals
 * give (load/json_lits.h): the same slices, byte for byte, the same
 * counts of everything else and the same integrity counters. */
static void check_scanned(const uint8_t *data, size_t size, const struct trex_index *plain)
{
	struct trex_load_opts opts = {.threads = 1, .scan_every_member = true};
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;

	if (trex_source_open_memory("fuzz.json", data, size, false, &src, &err) != TREX_OK ||
	    trex_load_sources(&src, 1, &opts, &idx, &err) != TREX_OK)
		abort(); /* the same bytes loaded before */
	const struct trex_file *a = trex_index_file(plain, 0), *b = trex_index_file(idx, 0);
	if (a->events != b->events ||
	    trex_index_slice_count(plain) != trex_index_slice_count(idx) ||
	    trex_index_instant_count(plain) != trex_index_instant_count(idx) ||
	    trex_index_sample_count(plain) != trex_index_sample_count(idx) ||
	    trex_index_flow_count(plain) != trex_index_flow_count(idx) ||
	    trex_index_track_count(plain) != trex_index_track_count(idx) ||
	    memcmp(&a->integrity, &b->integrity, sizeof(a->integrity)) != 0)
		abort();
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++)
		if (memcmp(trex_index_slice(plain, i), trex_index_slice(idx, i),
		           sizeof(struct trex_slice)) != 0)
			abort();
	trex_index_free(idx);
}

/* The vectorised container skip stops where the byte loop does, from the
 * first brackets of the input, damaged or not (abort() otherwise). */
static void check_skip(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end = text + size;
	unsigned tried = 0;

	for (const char *p = text; p < end && tried < FUZZ_MAX_VISITS; p++) {
		if (*p != '{' && *p != '[')
			continue;
		const char *want = NULL, *got = NULL;
		enum json_scan_status ref = json_skip_container_bytes(p, end, &want);
		enum json_scan_status st = json_skip_container(p, end, &got);
		if (st != ref || (ref == JSON_OK && got != want))
			abort();
		tried++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trex_load_opts opts = {.threads = 1};
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;

	check_skip(data, size);
	if (trex_source_open_memory("fuzz.json", data, size, false, &src, &err) != TREX_OK)
		return 0;
	if (trex_load_sources(&src, 1, &opts, &idx, &err) != TREX_OK)
		return 0;
	touch_kernels(idx, TREX_KERNELS_BY_NAME);
	touch_kernels(idx, TREX_KERNELS_BY_SHAPE);
	touch_summary(idx);
	touch_slices(idx);
	touch_lanes(idx);
	if (size < 65536 && (size == 0 || data[0] != 0x1f))
		check_windows(data, size, idx);
	if (size < 65536)
		check_scanned(data, size, idx);
	trex_index_integrity(idx);
	trex_index_memory(idx);
	trex_index_free(idx);
	return 0;
}
