/* The integrity report of a set rank by rank (analysis/integrity_set.h):
 * each rank's part joined is the table of the ranks loaded as one index,
 * cell for cell, and each part says what its rank lost. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_fixture.h"
#include "trex/analysis/integrity.h"
#include "trex/analysis/integrity_set.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

#define NRANKS 3

/* Rank r (claiming rank NRANKS - 1 - r), starting at 1000 * (r + 1) us:
 * input 1 with a damaged spot and a ts that is a string, input 2 with a
 * negative dur (a note whose example has a time), input 0 sound. */
static void rank_trace(int r, struct fixture_text *t)
{
	FILE *f = open_memstream(&t->s, &t->len);
	long long ts = 1000 * (r + 1);

	cr_assert(f);
	fprintf(f, "{\"traceEvents\":[\n");
	for (int i = 0; i < 5; i++)
		fprintf(f,
		        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
		        "\"ts\":%lld,\"dur\":10},\n",
		        i, ts + 20 * i);
	if (r == 1)
		fprintf(
		    f,
		    "{\"ph\":\"X\",\"name\":\"bad\",\"pid\":0,\"tid\":7,\"ts\":\"x\",\"dur\":1},\n"
		    "{\"ph\":\"X\" \"name\":\"broken\"},\n");
	if (r == 2)
		fprintf(f,
		        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"odd\",\"pid\":0,\"tid\":7,"
		        "\"ts\":%lld,\"dur\":-5},\n",
		        ts + 500);
	fprintf(f,
	        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"last\",\"pid\":0,\"tid\":7,"
	        "\"ts\":%lld,\"dur\":1}\n],\"distributedInfo\":{\"rank\":%d,\"world_size\":%d}}\n",
	        ts + 900, NRANKS - 1 - r, NRANKS);
	cr_assert(fclose(f) == 0);
}

Test(integrity_set, the_ranks_joined_are_the_merged_table)
{
	struct fixture_text t[NRANKS];
	size_t all[NRANKS] = {0, 1, 2};
	struct trex_integrity_part *parts[NRANKS];
	int64_t ranks[NRANKS], start = INT64_MAX;
	struct trex_table merged, lazy;
	struct trex_index *set;
	struct trex_error err;
	char lost[512];

	for (int r = 0; r < NRANKS; r++)
		rank_trace(r, &t[r]);
	set = fixture_load_texts(t, all, NRANKS);
	for (uint32_t f = 0; f < NRANKS; f++) {
		size_t input = (size_t)(NRANKS - 1 - trex_index_file(set, f)->rank);
		struct trex_index *one = fixture_load_texts(t, &input, 1);

		ranks[f] = trex_index_file(set, f)->rank;
		cr_assert(trex_integrity_part_new(one, &parts[f], &err) == TREX_OK);
		start = parts[f]->start < start ? parts[f]->start : start;
		trex_loss_text(set, f, true, lost, sizeof(lost));
		cr_assert_str_eq(parts[f]->lost, lost);
		cr_assert_eq(parts[f]->lost_data, trex_file_lost_data(trex_index_file(set, f)));
		trex_index_free(one);
	}
	cr_assert_eq(start, trex_index_start(set));
	cr_assert(parts[1]->lost_data && !parts[2]->lost_data); /* rank 1 is input 1 */
	cr_assert(trex_integrity_table(set, &merged, NULL, &err) == TREX_OK);
	cr_assert(trex_integrity_join_table(parts, ranks, NRANKS, start, &lazy, &err) == TREX_OK);
	fixture_same_table(&merged, &lazy);
	trex_table_free(&merged);
	trex_table_free(&lazy);
	for (int r = 0; r < NRANKS; r++) {
		trex_integrity_part_free(parts[r]);
		free(t[r].s);
	}
	trex_index_free(set);
}
