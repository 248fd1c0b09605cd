/* libFuzzer target: arbitrary bytes as an index file (core/index_file.h)
 * through the opener, then every query the views and analyses make of
 * what it accepted, and its kernel summary decoded and merged (as trex
 * kernels of many ranks reads it, before and without the opener): the opener must refuse whatever
 * would be read out of bounds. Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which skips the
 * checksums, so that mutated files reach the checks behind them. Seeded with index files of
 * tests/data traces; built and run by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels_merge.h"
#include "trex/core/index.h"
#include "trex/core/index_file.h"
#include "trex/core/kernel_summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk_slices(const struct trex_index *idx)
{
	uint32_t out[8], n = trex_index_slice_count(idx);
	size_t sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		sum += strlen(trex_index_str(idx, s->name)) + strlen(trex_index_str(idx, s->cat));
		sum += trex_index_parent(idx, i) + trex_index_launch_of(idx, i);
		sum +=
		    trex_index_same_op_link(idx, i, out, 8) + trex_index_flows_of(idx, i, out, 8);
		sum += trex_index_edges_of(idx, i, true, out, 8) +
		       trex_index_track_file(idx, s->track);
	}
	return sum;
}

static size_t walk_tracks(const struct trex_index *idx)
{
	size_t sum = 0;

	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);

		sum += trex_index_slice_at(idx, t, trex_index_start(idx)) + tr->max_depth;
		sum += strlen(trex_index_str(idx, tr->name));
		for (uint32_t l = 0; l < tr->lane_count; l++)
			sum += trex_lane_find_end_at_or_after(
			    idx, trex_index_lane(idx, tr->first_lane + l), trex_index_end(idx));
	}
	return sum;
}

static size_t walk_files(const struct trex_index *idx)
{
	char line[1024];
	size_t sum = 0;

	for (uint32_t f = 0; f < trex_index_file_count(idx); f++) {
		const struct trex_problem *d = trex_index_damage(idx, f, false);

		sum += strlen(trex_index_str(idx, trex_index_file(idx, f)->path));
		sum += trex_file_events_of_type(idx, f, "X");
		if (d)
			sum += (size_t)trex_problem_format(idx, f, d, line, sizeof(line));
		for (int c = 0; c < TREX_INTEG_COUNT; c++) {
			const struct trex_problem *p =
			    trex_index_problem(idx, f, (enum trex_integrity_counter)c, 0);

			if (p)
				sum += (size_t)trex_problem_format(idx, f, p, line, sizeof(line));
		}
	}
	return sum;
}

/* The kernel summary, its files as the ranks of one set. */
static size_t walk_summary(const struct trex_index_file *f)
{
	struct trex_kernels_part parts[64];
	struct trex_ksum s;
	struct trex_table t;
	struct trex_error err;
	const void *bytes;
	size_t len, sum = 0;

	if (trex_index_file_kernel_summary(f, &bytes, &len, &err) != TREX_OK ||
	    trex_ksum_decode(bytes, len, "fuzz.trex", &s, &err) != TREX_OK)
		return 0;
	for (uint32_t i = 0; i < s.nfiles && i < 64; i++)
		parts[i] = (struct trex_kernels_part){&s, i, i};
	if (trex_kernels_merge_table(parts, s.nfiles < 64 ? s.nfiles : 64, true, &t, &err) ==
	    TREX_OK) {
		sum += t.nrows;
		trex_table_free(&t);
	}
	trex_ksum_free(&s);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trex_index_file *f;
	struct trex_index *idx;
	struct trex_error err;
	uint32_t *parents;
	size_t sum = 0;

	if (trex_index_file_map_memory("fuzz.trex", data, size, &f, &err) != TREX_OK)
		return 0;
	sum += walk_summary(f);
	if (trex_index_file_load(f, NULL, NULL, &idx, &err) != TREX_OK)
		return 0;
	sum += walk_slices(idx) + walk_tracks(idx) + walk_files(idx);
	parents = malloc(((size_t)trex_index_slice_count(idx) + 1) * sizeof(*parents));
	if (parents)
		trex_index_parents(idx, parents);
	free(parents);
	trex_index_free(idx);
	return sum == 1 ? 0 : 0; /* sum keeps the reads from being optimised away */
}
