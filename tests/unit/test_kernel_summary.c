/* Kernel summaries (core/kernel_summary.h), their index-file section
 * (core/index_file.h), their merge (analysis/kernels_merge.h) and the
 * cache's per-rank open (load/index_cache.h): a summary survives encoding,
 * a damaged one is refused, and the merge of the ranks' summaries is the
 * kernels table of the ranks loaded as one index, cell for cell. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/kernels_merge.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/index_file.h"
#include "trex/core/kernel_summary.h"
#include "trex/load/index_cache.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"
#include "../../src/core/index_file_internal.h"
#include "index_fixture.h"

#define NRANKS 3

static char tmpdir[64];

static void setup(void)
{
	fixture_cache_dir_make(tmpdir, "/tmp/trex-ksum.XXXXXX");
}

static void teardown(void)
{
	fixture_cache_dir_remove(tmpdir);
}

TestSuite(kernel_summary, .init = setup, .fini = teardown);

/* ---- traces ---------------------------------------------------------------------------------- */

struct text {
	char *s;
	size_t len;
	FILE *f;
};

static void text_open(struct text *t)
{
	t->s = NULL;
	t->f = open_memstream(&t->s, &t->len);
	cr_assert(t->f);
}

static void text_close(struct text *t)
{
	cr_assert(fclose(t->f) == 0);
}

static void kernel(FILE *f, const char *name, long long ts, long long dur_ns)
{
	/* dur in us with 3 decimals: whole nanoseconds */
	fprintf(f,
	        ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,"
	        "\"ts\":%lld,\"dur\":%lld.%03lld}",
	        name, ts, dur_ns / 1000, dur_ns % 1000);
}

static unsigned long long lcg(unsigned long long *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Rank r: kernels shared by every rank, one of its own, a name holding a
 * NUL, a kernel longer than 2^32 ns (8-byte durations) on rank 1, and with
 * many (count: instances per shared name) random durations with ties;
 * ranks from distributedInfo when claimed, else from the set's order. */
static void rank_trace(int r, size_t count, bool claimed, struct text *t)
{
	unsigned long long seed = 12345 + (unsigned long long)r;
	long long ts = 100;

	text_open(t);
	fprintf(t->f, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"step\","
	              "\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1}");
	for (size_t i = 0; i < count; i++) {
		kernel(t->f, "gemm", ts += 50, 1000 + (long long)(lcg(&seed) % 4000));
		kernel(t->f, "elementwise", ts += 50, (long long)(lcg(&seed) % 7) * 100);
		if (i % 3 == (size_t)r)
			kernel(t->f, "all_reduce", ts += 50,
			       20000 + (long long)(lcg(&seed) % 90000));
	}
	fprintf(t->f,
	        ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"only_rank%d\",\"pid\":0,"
	        "\"tid\":7,\"ts\":%lld,\"dur\":3}",
	        r, ts += 50);
	kernel(t->f, "nul\\u0000name", ts += 50, 777 + r);
	if (r == 1)
		kernel(t->f, "long", ts += 50, 5000000000ll);
	fprintf(t->f, "\n]");
	if (claimed)
		fprintf(t->f, ",\"distributedInfo\":{\"rank\":%d,\"world_size\":%d}",
		        NRANKS - 1 - r, NRANKS);
	fprintf(t->f, "}\n");
	text_close(t);
}

static struct trex_index *load_texts(struct text *t, size_t n)
{
	struct trex_source *src[NRANKS];
	struct trex_index *idx;
	struct trex_error err;

	for (size_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "rank%zu.json", i);
		cr_assert(trex_source_open_memory(name, t[i].s, t[i].len, true, &src[i], &err) ==
		          TREX_OK);
	}
	cr_assert(trex_load_sources(src, n, NULL, &idx, &err) == TREX_OK, "%s", err.message);
	return idx;
}

/* The merge of each rank's own summary against the kernels table of the
 * ranks loaded as one index (which orders files by rank). */
static void merge_matches(size_t count, bool claimed, bool per_rank)
{
	struct text t[NRANKS];
	struct trex_ksum sums[NRANKS];
	struct trex_kernels_part parts[NRANKS];
	struct trex_kernel_opts ko = {.group = TREX_KERNELS_BY_NAME, .per_rank = per_rank};
	struct trex_table merged, lazy;
	struct trex_index *set, *one;
	struct trex_error err;

	for (int r = 0; r < NRANKS; r++)
		rank_trace(r, count, claimed, &t[r]);
	set = load_texts(t, NRANKS);
	for (uint32_t f = 0; f < NRANKS; f++) {
		/* file f of the set came from input (claimed ? NRANKS - 1 - rank : rank) */
		int64_t rank = trex_index_file(set, f)->rank;
		size_t input = claimed ? (size_t)(NRANKS - 1 - rank) : (size_t)rank;

		one = load_texts(&t[input], 1);
		cr_assert(trex_ksum_of_index(one, &sums[f], &err) == TREX_OK, "%s", err.message);
		trex_index_free(one);
		parts[f] = (struct trex_kernels_part){&sums[f], 0, rank};
	}
	cr_assert(trex_kernels_table(set, &ko, &merged, &err) == TREX_OK);
	cr_assert(trex_kernels_merge_table(parts, NRANKS, per_rank, &lazy, &err) == TREX_OK);
	cr_assert_gt(lazy.nrows, 5);
	fixture_same_table(&merged, &lazy);
	trex_table_free(&merged);
	trex_table_free(&lazy);
	for (int r = 0; r < NRANKS; r++) {
		trex_ksum_free(&sums[r]);
		free(t[r].s);
	}
	trex_index_free(set);
}

Test(kernel_summary, merge_equals_the_merged_index_small)
{
	merge_matches(2, true, false);
	merge_matches(2, false, true);
}

Test(kernel_summary, merge_equals_the_merged_index_many_instances)
{
	merge_matches(700, true, true);
	merge_matches(301, false, false);
}

/* Ranks without a kernel: a table without rows (the CLI then takes the
 * merged load for its note), its columns all there. */
Test(kernel_summary, merge_without_kernels_has_no_rows)
{
	static char cpu_only[] = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\","
	                         "\"name\":\"aten::mm\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":5}]}";
	struct text t = {cpu_only, sizeof(cpu_only) - 1, NULL};
	struct trex_index *idx = load_texts(&t, 1);
	struct trex_ksum s;
	struct trex_kernels_part parts[2];
	struct trex_table table;
	struct trex_error err;

	cr_assert(trex_ksum_of_index(idx, &s, &err) == TREX_OK);
	cr_assert_eq(s.nrows, 0);
	parts[0] = (struct trex_kernels_part){&s, 0, 0};
	parts[1] = (struct trex_kernels_part){&s, 0, 1};
	cr_assert(trex_kernels_merge_table(parts, 2, true, &table, &err) == TREX_OK);
	cr_assert_eq(table.nrows, 0);
	cr_assert_eq(table.ncols, 13); /* 10 statistics, 2 ranks, the name */
	trex_table_free(&table);
	trex_ksum_free(&s);
	trex_index_free(idx);
}

/* ---- the summary itself -------------------------------------------------------------------- */

static const struct trex_ksum_row *row_named(const struct trex_ksum *s, const char *name)
{
	static const struct trex_ksum_row none;

	for (size_t i = 0; i < s->nrows; i++)
		if (strcmp(s->rows[i].name, name) == 0)
			return &s->rows[i];
	cr_assert_fail("no row %s", name);
	return &none;
}

Test(kernel_summary, round_trip_keeps_every_aggregate)
{
	struct text t[1];
	struct trex_index *idx;
	struct trex_ksum s;
	struct trex_error err;
	const struct trex_ksum_row *r;
	__int128 sum = 0, sq = 0;

	rank_trace(1, 40, true, &t[0]);
	idx = load_texts(t, 1);
	cr_assert(trex_ksum_of_index(idx, &s, &err) == TREX_OK, "%s", err.message);
	cr_assert_eq(s.nfiles, 1);
	cr_assert_eq(s.files[0].rank, NRANKS - 2);
	cr_assert(s.files[0].has_rank);
	cr_assert(!s.files[0].lost_data);
	cr_assert_eq(s.files[0].nrows, s.nrows);
	cr_assert_eq(s.nrows, 6); /* gemm elementwise all_reduce only_rank1 nul\0name long */
	r = row_named(&s, "long");
	cr_assert(r->n == 1 && r->width == 8 && r->min == 5000000000ll);
	r = row_named(&s, "nul\xc0\x80name");
	cr_assert(r->n == 1 && r->width == 4 && r->max == 778);
	r = row_named(&s, "gemm");
	cr_assert(r->n == 40 && r->width == 4);
	for (uint64_t i = 0; i < r->n; i++) {
		int64_t d = trex_ksum_dur(r, i);

		cr_assert(i == 0 || d >= trex_ksum_dur(r, i - 1));
		sum += d;
		sq += (__int128)d * d;
	}
	cr_assert(sum == r->sum && sq == r->sumsq && !r->sumsq_overflow);
	cr_assert_eq(r->min, trex_ksum_dur(r, 0));
	cr_assert_eq(trex_ksum_count_le(r, r->max), 40);
	cr_assert_eq(trex_ksum_count_le(r, r->min - 1), 0);
	trex_ksum_free(&s);
	trex_index_free(idx);
	free(t[0].s);
}

/* Each row's durations ascending and complete, for durations that differ
 * in every byte up to 2^45 ns, with ties, in groups just under, at and
 * over the size where the summary's sort changes method. */
Test(kernel_summary, durations_sorted_in_every_byte)
{
	static const size_t counts[] = {1, 32, 33, 500};
	unsigned long long seed = 99;
	struct text t[1];
	struct trex_index *idx;
	struct trex_ksum s;
	struct trex_error err;
	__int128 want[4] = {0};
	long long ts = 10;

	text_open(&t[0]);
	fprintf(t[0].f, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"s\","
	                "\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1}");
	for (size_t g = 0; g < 4; g++) {
		for (size_t i = 0; i < counts[g]; i++) {
			long long d = (long long)((lcg(&seed) << 22 ^ lcg(&seed)) % (1ull << 45));
			char name[16];

			d = i % 7 == 3 ? 123456789 : d; /* ties */
			snprintf(name, sizeof(name), "k%zu", g);
			kernel(t[0].f, name, ts, d);
			ts += 1 + d / 1000;
			want[g] += d;
		}
	}
	fprintf(t[0].f, "\n]}\n");
	text_close(&t[0]);
	idx = load_texts(t, 1);
	cr_assert(trex_ksum_of_index(idx, &s, &err) == TREX_OK, "%s", err.message);
	cr_assert_eq(s.nrows, 4);
	for (size_t g = 0; g < 4; g++) {
		char name[16];
		const struct trex_ksum_row *r;
		__int128 sum = 0;

		snprintf(name, sizeof(name), "k%zu", g);
		r = row_named(&s, name);
		cr_assert_eq(r->n, counts[g]);
		for (uint64_t i = 0; i < r->n; i++) {
			cr_assert(i == 0 || trex_ksum_dur(r, i) >= trex_ksum_dur(r, i - 1),
			          "%s: instance %llu out of order", name, (unsigned long long)i);
			sum += trex_ksum_dur(r, i);
		}
		cr_assert(sum == want[g] && sum == r->sum, "%s: durations lost", name);
	}
	trex_ksum_free(&s);
	trex_index_free(idx);
	free(t[0].s);
}

/* Every single flipped byte and every truncation: refused or read, never
 * read out of bounds (the sanitizer build checks); a swap of two durations
 * and a wrong sum are refused. */
Test(kernel_summary, damaged_encodings_are_refused)
{
	struct text t[1];
	struct trex_index *idx;
	struct trex_ksum s;
	struct trex_error err;
	unsigned char *bytes, *copy;
	size_t len;
	void *enc;

	rank_trace(0, 3, false, &t[0]);
	idx = load_texts(t, 1);
	cr_assert(trex_ksum_encode(idx, &enc, &len, &err) == TREX_OK);
	bytes = enc;
	copy = malloc(len);
	for (size_t at = 0; at < len; at++) {
		memcpy(copy, bytes, len);
		copy[at] ^= 0x41;
		if (trex_ksum_decode(copy, len, "x", &s, &err) == TREX_OK)
			trex_ksum_free(&s);
		else
			cr_assert_eq(err.status, TREX_FORMAT);
	}
	for (size_t cut = 0; cut < len; cut += 8)
		cr_assert_eq(trex_ksum_decode(bytes, cut, "x", &s, &err), TREX_FORMAT);
	/* gemm's first and last durations swapped */
	cr_assert(trex_ksum_decode(bytes, len, "x", &s, &err) == TREX_OK);
	{
		const struct trex_ksum_row *r = row_named(&s, "gemm");
		size_t at = (size_t)((const unsigned char *)r->durs - bytes);
		uint32_t a, b;

		cr_assert(r->width == 4 && r->min != r->max);
		memcpy(copy, bytes, len);
		memcpy(&a, copy + at, 4);
		memcpy(&b, copy + at + 4 * (r->n - 1), 4);
		memcpy(copy + at, &b, 4);
		memcpy(copy + at + 4 * (r->n - 1), &a, 4);
	}
	trex_ksum_free(&s);
	cr_assert_eq(trex_ksum_decode(copy, len, "sum.bin", &s, &err), TREX_FORMAT);
	cr_assert_str_eq(err.message, "damaged kernel summary");
	cr_assert_str_eq(err.path, "sum.bin");
	free(copy);
	free(enc);
	trex_index_free(idx);
	free(t[0].s);
}

/* ---- in the index file ------------------------------------------------------------------------
 */

static char *in_tmp(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

Test(kernel_summary, index_file_section_round_trip)
{
	struct text t[1];
	struct trex_index *idx;
	struct trex_index_file *f;
	struct trex_error err;
	const void *data;
	size_t len, written_len;
	void *written;
	char *path = strdup(in_tmp("a.trex"));
	FILE *raw;

	rank_trace(2, 5, true, &t[0]);
	idx = load_texts(t, 1);
	cr_assert(trex_ksum_encode(idx, &written, &written_len, &err) == TREX_OK);
	cr_assert(trex_index_file_write_summary(idx, path, "id", 2, written, written_len, &err) ==
	          TREX_OK);
	cr_assert(trex_index_file_map(path, &f, &err) == TREX_OK, "%s", err.message);
	cr_assert(trex_index_file_kernel_summary(f, &data, &len, &err) == TREX_OK);
	cr_assert_eq(len, written_len);
	cr_assert(memcmp(data, written, len) == 0);
	/* a flipped byte in the section: its checksum says so */
	{
		size_t at = (size_t)((const unsigned char *)data - f->data) + len / 2;
		unsigned char byte;

		trex_index_file_close(f);
		raw = fopen(path, "r+b");
		cr_assert(raw && fseek(raw, (long)at, SEEK_SET) == 0 &&
		          fread(&byte, 1, 1, raw) == 1);
		byte ^= 1;
		cr_assert(fseek(raw, (long)at, SEEK_SET) == 0 && fwrite(&byte, 1, 1, raw) == 1);
		cr_assert(fclose(raw) == 0);
	}
	cr_assert(trex_index_file_map(path, &f, &err) == TREX_OK, "%s", err.message);
	cr_assert_eq(trex_index_file_kernel_summary(f, &data, &len, &err), TREX_FORMAT);
	cr_assert_str_eq(err.message, "damaged index file (kernel summary)");
	trex_index_file_close(f);
	/* written without one: an empty section */
	cr_assert(trex_index_file_write(idx, path, "id", 2, &err) == TREX_OK);
	cr_assert(trex_index_file_map(path, &f, &err) == TREX_OK);
	cr_assert(trex_index_file_kernel_summary(f, &data, &len, &err) == TREX_OK);
	cr_assert_eq(len, 0);
	trex_index_file_close(f);
	free(written);
	free(path);
	trex_index_free(idx);
	free(t[0].s);
}

/* ---- one rank through the cache ----------------------------------------------------------------
 */

static void write_text(const char *path, const struct text *t)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f && fwrite(t->s, 1, t->len, f) == t->len && fclose(f) == 0);
}

Test(kernel_summary, a_rank_is_read_from_its_index_file_once_written)
{
	struct text t[1];
	struct trex_cache_rank r;
	struct trex_error err;
	char *path = strdup(in_tmp("rank.json"));
	struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};

	rank_trace(0, 10, true, &t[0]);
	write_text(path, &t[0]);
	cr_assert(utimensat(AT_FDCWD, path, old, 0) == 0); /* not racy */
	cr_assert(trex_cache_rank_open(path, NULL, TREX_CACHE_USE, &r, &err) == TREX_OK);
	cr_assert(r.idx && !r.file && r.rep.written && !r.rep.hit); /* parsed, written */
	cr_assert_eq(r.sum.nrows, 5);
	trex_cache_rank_close(&r);
	cr_assert(trex_cache_rank_open(path, NULL, TREX_CACHE_USE, &r, &err) == TREX_OK);
	cr_assert(!r.idx && r.file && r.rep.hit); /* only mapped */
	cr_assert_eq(r.sum.nrows, 5);
	cr_assert_eq(row_named(&r.sum, "gemm")->n, 10);
	trex_cache_rank_close(&r);
	/* the trace changed: stale, parsed again and said so */
	free(t[0].s);
	rank_trace(0, 11, true, &t[0]);
	write_text(path, &t[0]);
	cr_assert(utimensat(AT_FDCWD, path, old, 0) == 0);
	cr_assert(trex_cache_rank_open(path, NULL, TREX_CACHE_USE, &r, &err) == TREX_OK);
	cr_assert(r.idx && r.rep.written);
	cr_assert(strstr(r.rep.note, "stale"), "%s", r.rep.note);
	cr_assert_eq(row_named(&r.sum, "gemm")->n, 11);
	trex_cache_rank_close(&r);
	free(path);
	free(t[0].s);
}

Test(kernel_summary, a_damaged_rank_is_loaded_whole_to_tell_its_loss)
{
	static char cut[] = "{\"traceEvents\":[\n"
	                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
	                    "\"tid\":7,\"ts\":1,\"dur\":2},\n"
	                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
	                    "\"tid\":7,\"ts\":5,\"du";
	struct text t = {cut, sizeof(cut) - 1, NULL};
	struct trex_cache_rank r;
	struct trex_error err;
	char *path = strdup(in_tmp("cut.json"));
	struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};

	write_text(path, &t);
	cr_assert(utimensat(AT_FDCWD, path, old, 0) == 0);
	for (int pass = 0; pass < 2; pass++) { /* parsed, then from its index file */
		cr_assert(trex_cache_rank_open(path, NULL, TREX_CACHE_USE, &r, &err) == TREX_OK);
		cr_assert(r.idx, "pass %d", pass);
		cr_assert(r.sum.files[0].lost_data);
		cr_assert_eq(r.rep.hit, pass == 1);
		trex_cache_rank_close(&r);
	}
	free(path);
}
