/* Per-file kernel summaries: for each file of an index and each GPU kernel
 * name in it, the aggregates the all-ranks kernels table needs, so that a
 * set of ranks is summarised from their index files without loading any
 * of them whole (index_file.h stores them as a section).
 *
 * A kernel is a slice of kind TREX_KIND_KERNEL, as the kernels table
 * counts it without --memory or a category. Per (file, name): the count,
 * the sum and the sum of squares of the durations (exact 128-bit
 * integers), min, max, and every duration, sorted ascending, 4 bytes each
 * when all lie in 0 .. 2^32 - 1 ns, else 8. Nothing is approximated: the
 * median and percentiles of a merge are selected from the sorted arrays
 * in place (analysis/kernels_merge.h).
 *
 * The encoding (native byte order, every part 8-byte aligned): a head
 * (magic, file count, row count, name text length, duration bytes), one
 * record per file (rank, whether the file claims it, whether it lost
 * data, events, its rows), one record per row, the names, the durations.
 * Decoding checks every offset, length, count and that each row's
 * durations are sorted and agree with its count, sum, squares, min and
 * max: a damaged or forged summary is refused (FORMAT), never misread. */
#ifndef TREX_CORE_KERNEL_SUMMARY_H
#define TREX_CORE_KERNEL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_ksum_file {
	int64_t rank;   /* the file's rank in its index (trex_file.rank) */
	bool has_rank;  /* the rank came from the file itself */
	bool lost_data; /* truncated or damaged input (its loss is told from the index) */
	uint64_t events;
	size_t first_row, nrows; /* its rows in trex_ksum.rows */
};

struct trex_ksum_row {
	const char *name; /* as the string table holds it (NUL-terminated) */
	size_t name_len;
	uint64_t n; /* >= 1 */
	int64_t min, max;
	__int128 sum, sumsq;
	bool sumsq_overflow; /* the squares did not fit 128 bits: sumsq is meaningless */
	const void *durs;    /* n sorted durations of width bytes each */
	unsigned width;      /* 4 (uint32_t) or 8 (int64_t) */
};

/* A decoded summary; rows and files are owned, names and durations point
 * into the bytes decoded (or into owned bytes, trex_ksum_of_index). */
struct trex_ksum {
	struct trex_ksum_file *files;
	uint32_t nfiles;
	struct trex_ksum_row *rows;
	size_t nrows;
	void *owned; /* the encoding when this summary made it, else NULL */
};

/* The encoding of idx's summary in *out (malloc'd), *len bytes. */
enum trex_status trex_ksum_encode(const struct trex_index *idx, void **out, size_t *len,
                                  struct trex_error *err);

/* Decodes len bytes at data (which must outlive *out) into *out; FORMAT
 * naming name ("damaged kernel summary (...)") when they do not check. */
enum trex_status trex_ksum_decode(const void *data, size_t len, const char *name,
                                  struct trex_ksum *out, struct trex_error *err);

/* Encodes and decodes idx's summary: *out owns its bytes. */
enum trex_status trex_ksum_of_index(const struct trex_index *idx, struct trex_ksum *out,
                                    struct trex_error *err);

void trex_ksum_free(struct trex_ksum *s);

/* The i-th smallest duration of row r (i < r->n). */
static inline int64_t trex_ksum_dur(const struct trex_ksum_row *r, uint64_t i)
{
	return r->width == 4 ? (int64_t)((const uint32_t *)r->durs)[i]
	                     : ((const int64_t *)r->durs)[i];
}

/* How many durations of row r are <= v. */
uint64_t trex_ksum_count_le(const struct trex_ksum_row *r, int64_t v);

#endif
