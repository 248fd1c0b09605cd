/* graph_dump FORMAT FILE [NPUS]: reads FILE with the graph format FORMAT
 * (trex_format.graph) into a graph store of its own, finishes it, and
 * prints every node, dependency and problem one per line, for the
 * end-to-end checks that compare a graph loader with an independent
 * reading (tests/e2e/astrasim.sh). Exit status 2 with the loader's
 * positioned message when it refuses the file. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "trex/core/graph.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

static void print_error(const struct trex_error *e)
{
	fprintf(stderr, "graph_dump: %s:", e->path);
	if (e->line > 0)
		fprintf(stderr, "%" PRId64 ":%" PRId64 ":", e->line, e->col);
	fprintf(stderr, " (byte %" PRId64 ") %s\n", e->offset, e->message);
}

static void dump(const struct trex_graph *g)
{
	for (uint32_t i = 0; i < trex_graph_node_count(g); i++) {
		const struct trex_graph_node *n = trex_graph_node(g, i);
		printf("node rank=%" PRIu32 " id=%" PRIu64 " type=%s coll=%s dur=%" PRId64
		       " bytes=%" PRId64 " name=%s\n",
		       n->rank, n->id, trex_node_type_label(n->type),
		       trex_collective_label(n->collective), n->dur, n->comm_bytes,
		       trex_graph_str(g, n->name));
	}
	for (uint32_t i = 0; i < trex_graph_edge_count(g); i++) {
		const struct trex_graph_edge *e = trex_graph_edge(g, i);
		printf("dep %" PRIu64 " <- %" PRIu64 " %s\n", trex_graph_node(g, e->to)->id,
		       trex_graph_node(g, e->from)->id, e->kind == TREX_DEP_DATA ? "data" : "ctrl");
	}
	for (int k = 0; k < TREX_GRAPH_PROBLEM_KINDS; k++)
		printf("problem %d %" PRIu64 "\n", k,
		       trex_graph_problem_count(g, 0, (enum trex_graph_problem_kind)k));
}

int main(int argc, char **argv)
{
	struct trex_load_opts opts = {.threads = 1};
	struct trex_build_file file = {0};
	struct trex_error err;
	struct trex_source *src;
	const struct trex_format *f = argc >= 3 ? trex_format_named(argv[1]) : NULL;

	if (!f || !f->graph || argc > 4) {
		fprintf(stderr, "usage: graph_dump FORMAT FILE [NPUS] (a graph format)\n");
		return 1;
	}
	opts.npus = argc == 4 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0;
	trex_error_clear(&err);
	if (trex_source_open(argv[2], &src, &err) != TREX_OK) {
		print_error(&err);
		return 2;
	}
	struct trex_load_job job = {.source = src, .file = &file, .opts = &opts};
	job.graph = trex_graph_new();
	enum trex_status s = job.graph ? f->load(&job, &err) : TREX_NOMEM;
	if (s == TREX_OK)
		s = trex_graph_finish(job.graph, &err);
	if (s == TREX_OK) {
		printf("file format=%s dialect=%s events=%" PRIu64 "\n", file.format,
		       file.dialect ? file.dialect : "", file.events);
		if (file.first_problem.status != TREX_OK)
			print_error(&file.first_problem);
		dump(job.graph);
	} else {
		struct trex_error scratch;
		if (err.offset >= 0)
			trex_source_line_col(src, (uint64_t)err.offset, &err.line, &err.col,
			                     &scratch);
		print_error(&err);
	}
	trex_graph_free(job.graph);
	trex_source_close(src);
	return s == TREX_OK ? 0 : 2;
}
