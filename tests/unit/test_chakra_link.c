/* The Chakra writer's process groups (src/export/chakra_link.h): which
 * pg_name a collective gets and the comm-group JSON, for sets whose ranks
 * are given by hand (no index needed). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra_link.h"

/* A set of n ranks whose traces say the ranks in trace_rank. */
static void groups_of(struct cw_groups *g, uint32_t n, const int64_t *trace_rank)
{
	memset(g, 0, sizeof(*g));
	g->nranks = n;
	g->trace_rank = malloc(n * sizeof(*g->trace_rank));
	cr_assert_not_null(g->trace_rank);
	memcpy(g->trace_rank, trace_rank, n * sizeof(*trace_rank));
}

static const char *name_of(struct cw_groups *g, uint32_t rank, const char *name, const char *ranks,
                           const char *desc)
{
	struct cw_pg_args a = {name ? strdup(name) : NULL, ranks ? strdup(ranks) : NULL,
	                       desc ? strdup(desc) : NULL};
	struct trex_error err = {0};
	const char *pg = "unset";

	cr_assert_eq(cw_groups_name(g, rank, &a, &pg, &err), TREX_OK);
	cw_pg_args_free(&a);
	return pg;
}

static void assert_json(const struct cw_groups *g, const char *want)
{
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	cr_assert_not_null(f);
	cr_assert(cw_groups_json(g, f));
	fclose(f);
	cr_assert_str_eq(buf, want);
}

Test(chakra_groups, the_whole_set_gets_no_pg_name)
{
	const int64_t ranks[] = {0, 1, 2, 3};
	struct cw_groups g;

	groups_of(&g, 4, ranks);
	cr_assert_null(name_of(&g, 0, "0", "[0, 1, 2, 3]", "default_pg"));
	/* any name, when its ranks are every rank of the set */
	cr_assert_null(name_of(&g, 1, "7", "[3, 2, 1, 0]", "undefined"));
	/* the default group without ranks */
	cr_assert_null(name_of(&g, 2, "0", NULL, NULL));
	cr_assert_null(name_of(&g, 2, "4", NULL, "default_pg"));
	cr_assert_null(name_of(&g, 2, NULL, NULL, NULL));
	cr_assert_eq(g.n, 0);
	assert_json(&g, "{}");
	cw_groups_free(&g);
}

Test(chakra_groups, subgroups_by_their_set_ranks)
{
	/* the set holds trace ranks 4..7 of a job: set rank k is trace rank 4 + k */
	const int64_t ranks[] = {4, 5, 6, 7};
	struct cw_groups g;

	groups_of(&g, 4, ranks);
	cr_assert_str_eq(name_of(&g, 0, "1", "[4, 5]", "tp"), "1");
	cr_assert_str_eq(name_of(&g, 2, "2", "[6, 7]", "tp"), "2");
	cr_assert_str_eq(name_of(&g, 1, "1", "[4, 5]", "tp"), "1");
	cr_assert_eq(g.nodes_tagged, 3);
	assert_json(&g, "{\"1\": [0, 1], \"2\": [2, 3]}");
	cr_assert_eq(g.outside + g.conflicts + g.named_by_us + cw_groups_by_use(&g), 0);
	/* the job's world (0..7) is the whole set here */
	cr_assert_null(name_of(&g, 3, "0", "[0, 1, 2, 3, 4, 5, 6, 7]", "default_pg"));
	cw_groups_free(&g);
}

Test(chakra_groups, without_ranks_the_ranks_that_use_it)
{
	const int64_t ranks[] = {0, 1, 2};
	struct cw_groups g;

	groups_of(&g, 3, ranks);
	cr_assert_str_eq(name_of(&g, 2, "5", NULL, NULL), "5");
	cr_assert_str_eq(name_of(&g, 0, "5", "[]", NULL), "5"); /* an empty list says nothing */
	assert_json(&g, "{\"5\": [0, 2]}");
	cr_assert_eq(cw_groups_by_use(&g), 1);
	cw_groups_free(&g);
}

Test(chakra_groups, unnamed_outside_and_conflicting)
{
	const int64_t ranks[] = {0, 1, 2};
	struct cw_groups g;

	groups_of(&g, 3, ranks);
	/* ranks without a name: numbered past PyTorch's, the same ranks alike */
	cr_assert_str_eq(name_of(&g, 0, NULL, "[0, 1]", NULL), "1000000");
	cr_assert_str_eq(name_of(&g, 1, "", "[0, 1]", NULL), "1000000");
	cr_assert_eq(g.named_by_us, 1);
	/* ranks 9 is not in the set: kept to the ranks present, said */
	cr_assert_str_eq(name_of(&g, 2, "3", "[2, 9]", NULL), "3");
	cr_assert_eq(g.outside, 1);
	/* the same name with other ranks, and a rank using a group it is not in */
	cr_assert_str_eq(name_of(&g, 0, "3", "[0, 2]", NULL), "3");
	cr_assert_eq(g.conflicts, 2);
	assert_json(&g, "{\"1000000\": [0, 1], \"3\": [0, 2]}");
	cw_groups_free(&g);
}
