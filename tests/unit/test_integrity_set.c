/* The integrity and info reports of a set rank by rank
 * (analysis/integrity_set.h, analysis/summary_set.h): each rank's part
 * joined is the report of the ranks loaded as one index, cell for cell,
 * and each integrity part says what its rank lost. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_fixture.h"
#include "trex/analysis/integrity.h"
#include "trex/analysis/integrity_set.h"
#include "trex/analysis/summary_set.h"
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
	/* category "shared": an instant on input 0, a slice elsewhere (kinds
	 * mixed), of no duration on input 1 (an example with a slice id); an
	 * instant and a flow on every input */
	if (r)
		fprintf(f,
		        "{\"ph\":\"X\",\"cat\":\"shared\",\"name\":\"s\",\"pid\":0,\"tid\":7,"
		        "\"ts\":%lld,\"dur\":%d},\n",
		        ts + 150, r == 1 ? 0 : 4);
	else
		fprintf(f,
		        "{\"ph\":\"i\",\"cat\":\"shared\",\"name\":\"s\",\"pid\":1,\"tid\":2,"
		        "\"ts\":%lld,\"s\":\"t\"},\n",
		        ts + 150);
	fprintf(f,
	        "{\"ph\":\"i\",\"cat\":\"mark\",\"name\":\"m\",\"pid\":1,\"tid\":2,\"ts\":%lld,"
	        "\"s\":\"t\"},\n"
	        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":2,"
	        "\"ts\":%lld,\"dur\":30},\n"
	        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":2,"
	        "\"ts\":%lld},\n"
	        "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":0,\"tid\":7,"
	        "\"ts\":%lld,\"bp\":\"e\"},\n",
	        ts + 160, ts + 200, r + 1, ts + 205, r + 1, ts + 220);
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

/* The NRANKS traces in t loaded as one index. */
static struct trex_index *set_of_ranks(struct fixture_text *t)
{
	size_t all[NRANKS];

	for (int r = 0; r < NRANKS; r++) {
		rank_trace(r, &t[r]);
		all[r] = (size_t)r;
	}
	return fixture_load_texts(t, all, NRANKS);
}

/* File f of set loaded alone; *rank the rank the set gives it. */
static struct trex_index *rank_alone(struct fixture_text *t, const struct trex_index *set,
                                     uint32_t f, int64_t *rank)
{
	size_t input = (size_t)(NRANKS - 1 - trex_index_file(set, f)->rank);

	*rank = trex_index_file(set, f)->rank;
	return fixture_load_texts(t, &input, 1);
}

Test(integrity_set, the_ranks_joined_are_the_merged_table)
{
	struct fixture_text t[NRANKS];
	struct trex_integrity_part *parts[NRANKS];
	int64_t ranks[NRANKS], start = INT64_MAX;
	struct trex_table merged, lazy;
	struct trex_index *set;
	struct trex_error err;
	char lost[512];

	set = set_of_ranks(t);
	for (uint32_t f = 0; f < NRANKS; f++) {
		struct trex_index *one = rank_alone(t, set, f, &ranks[f]);

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

static void same_summary(const struct trex_summary *a, const struct trex_summary *b)
{
	cr_assert_eq(a->start_ns, b->start_ns);
	cr_assert_eq(a->end_ns, b->end_ns);
	cr_assert_eq(a->slices, b->slices);
	cr_assert_eq(a->instants, b->instants);
	cr_assert_eq(a->samples, b->samples);
	cr_assert_eq(a->flows, b->flows);
	fixture_same_table(&a->files, &b->files);
	fixture_same_table(&a->phases, &b->phases);
	fixture_same_table(&a->categories, &b->categories);
	fixture_same_table(&a->tracks, &b->tracks);
	fixture_same_table(&a->tracks_text, &b->tracks_text);
	fixture_same_table(&a->integrity, &b->integrity);
	fixture_same_table(&a->problems, &b->problems);
	fixture_same_table(&a->examples, &b->examples);
}

Test(integrity_set, the_ranks_summaries_joined_are_the_merged_summary)
{
	struct fixture_text t[NRANKS];
	struct trex_summary parts[NRANKS], merged, lazy;
	const struct trex_summary *pp[NRANKS];
	int64_t ranks[NRANKS];
	struct trex_index *set;
	struct trex_error err;
	bool mixed = false;

	set = set_of_ranks(t);
	for (uint32_t f = 0; f < NRANKS; f++) {
		struct trex_index *one = rank_alone(t, set, f, &ranks[f]);

		cr_assert(trex_summary_compute(one, &parts[f], &err) == TREX_OK);
		pp[f] = &parts[f];
		trex_index_free(one);
	}
	cr_assert(trex_summary_compute(set, &merged, &err) == TREX_OK);
	cr_assert(trex_summary_join(pp, ranks, NRANKS, &lazy, &err) == TREX_OK);
	same_summary(&merged, &lazy);
	for (size_t r = 0; r < merged.categories.nrows; r++)
		mixed =
		    mixed || strcmp(trex_table_cell(&merged.categories, r, 0)->text, "mixed") == 0;
	cr_assert(mixed, "a category of several kinds");
	cr_assert_gt(merged.examples.nrows, NRANKS);
	cr_assert_gt(merged.flows, 0);
	trex_summary_free(&merged);
	trex_summary_free(&lazy);
	for (int r = 0; r < NRANKS; r++) {
		trex_summary_free(&parts[r]);
		free(t[r].s);
	}
	trex_index_free(set);
}
