/* The `trex info` report of an execution graph (trex/analysis/graph_info.h). */
#include "config.h"

#include "trex/analysis/graph_info.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/graph.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ranks: after "nodes", one column per node type, in type_of_col's order. */
enum { RANK_COL_RANK, RANK_COL_NODES, RANK_COL_TYPES };
static const struct trex_column rank_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"nodes", "Nodes", TREX_COL_COUNT, true},
    {"compute", "Compute", TREX_COL_COUNT, true},
    {"collective", "Collective", TREX_COL_COUNT, true},
    {"send", "Send", TREX_COL_COUNT, true},
    {"recv", "Recv", TREX_COL_COUNT, true},
    {"mem_load", "Mem load", TREX_COL_COUNT, true},
    {"mem_store", "Mem store", TREX_COL_COUNT, true},
    {"metadata", "Metadata", TREX_COL_COUNT, true},
    {"other", "Other", TREX_COL_COUNT, true},
    {"host", "Host", TREX_COL_COUNT, true},
    {"deps", "Deps", TREX_COL_COUNT, true},
    {"end_ns", "End", TREX_COL_DURATION, true},
    {"schema", "Schema", TREX_COL_TEXT, false},
    {"file", "File", TREX_COL_TEXT, false},
};
static const enum trex_node_type type_of_col[TREX_NODE_TYPE_COUNT] = {
    TREX_NODE_COMP,     TREX_NODE_COMM_COLL, TREX_NODE_COMM_SEND, TREX_NODE_COMM_RECV,
    TREX_NODE_MEM_LOAD, TREX_NODE_MEM_STORE, TREX_NODE_METADATA,  TREX_NODE_OTHER,
};
enum {
	RANK_COL_HOST = RANK_COL_TYPES + TREX_NODE_TYPE_COUNT,
	RANK_COL_DEPS,
	RANK_COL_END,
	RANK_COL_SCHEMA,
	RANK_COL_FILE,
};

static const struct trex_column comm_cols[] = {
    {"kind", "Kind", TREX_COL_TEXT, false},       {"nodes", "Nodes", TREX_COL_COUNT, true},
    {"ranks", "Ranks", TREX_COL_COUNT, true},     {"bytes", "Bytes", TREX_COL_COUNT, true},
    {"unsized", "Unsized", TREX_COL_COUNT, true}, {"estimated", "Estimated", TREX_COL_COUNT, true},
};
enum {
	COMM_COL_KIND,
	COMM_COL_NODES,
	COMM_COL_RANKS,
	COMM_COL_BYTES,
	COMM_COL_UNSIZED,
	COMM_COL_ESTIMATED
};

static const struct trex_column problem_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},  {"problem", "Problem", TREX_COL_TEXT, false},
    {"count", "Count", TREX_COL_COUNT, true}, {"example", "Example", TREX_COL_TEXT, false},
    {"file", "File", TREX_COL_TEXT, false},
};

/* Each kind of problem, one and several. */
static const char *const problem_labels[TREX_GRAPH_PROBLEM_KINDS][2] = {
    {"dangling dependency", "dangling dependencies"},
    {"duplicate id", "duplicate ids"},
    {"dependency cut to break a cycle", "dependencies cut to break cycles"},
    {"unmatched communication node", "unmatched communication nodes"},
};

static void init_tables(struct trex_graph_info *info)
{
	memset(info, 0, sizeof(*info));
	info->makespan_ns = -1;
	trex_table_init(&info->ranks, "graph_ranks", rank_cols, ARRAY_LEN(rank_cols));
	trex_table_init(&info->comm, "graph_comm", comm_cols, ARRAY_LEN(comm_cols));
	trex_table_init(&info->problems, "graph_problems", problem_cols, ARRAY_LEN(problem_cols));
}

void trex_graph_info_free(struct trex_graph_info *info)
{
	trex_table_free(&info->ranks);
	trex_table_free(&info->comm);
	trex_table_free(&info->problems);
}

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* ---- per file --------------------------------------------------------------------------- */

struct file_acc {
	int64_t rank;
	uint64_t types[TREX_NODE_TYPE_COUNT];
	uint64_t nodes, host, deps;
	int64_t end;
};

static void count_nodes(const struct trex_graph *g, const struct trex_schedule *sched,
                        struct file_acc *files, uint32_t nfiles)
{
	for (uint32_t i = 0; i < trex_graph_node_count(g); i++) {
		const struct trex_graph_node *n = trex_graph_node(g, i);
		uint32_t in;
		if (n->file >= nfiles)
			continue;
		struct file_acc *f = &files[n->file];
		f->nodes++;
		f->types[n->type < TREX_NODE_TYPE_COUNT ? n->type : TREX_NODE_OTHER]++;
		f->host += (n->flags & TREX_NODE_CPU) != 0;
		trex_graph_edges_of(g, i, true, &in);
		f->deps += in;
		if (sched && i < sched->node_count && sched->start[i] + sched->dur[i] > f->end)
			f->end = sched->start[i] + sched->dur[i];
	}
}

static enum trex_status rank_rows(const struct trex_index *idx, struct trex_graph_info *info,
                                  const struct file_acc *files, uint32_t nfiles, bool scheduled)
{
	for (uint32_t k = 0; k < nfiles; k++) {
		const struct trex_file *tf = trex_index_file(idx, k);
		const struct file_acc *f = &files[k];
		union trex_cell *row;
		if (!(row = trex_table_add_row(&info->ranks)))
			return TREX_NOMEM;
		row[RANK_COL_RANK].count = tf->rank;
		row[RANK_COL_NODES].count = (int64_t)f->nodes;
		for (int c = 0; c < TREX_NODE_TYPE_COUNT; c++)
			row[RANK_COL_TYPES + c].count = (int64_t)f->types[type_of_col[c]];
		row[RANK_COL_HOST].count = (int64_t)f->host;
		row[RANK_COL_DEPS].count = (int64_t)f->deps;
		row[RANK_COL_END].number = scheduled ? (double)f->end : -1;
		row[RANK_COL_SCHEMA].text = trex_index_str(idx, tf->dialect);
		row[RANK_COL_FILE].text = trex_index_str(idx, tf->path);
	}
	return TREX_OK;
}

/* ---- communication ----------------------------------------------------------------------- */

/* Rows: the collectives (TREX_COLLECTIVE_* in order, "none" first), then
 * send and recv. */
#define COMM_KINDS (TREX_COLLECTIVE_COUNT + 2)

struct comm_acc {
	uint64_t nodes, bytes, unsized, estimated;
	uint8_t *ranks; /* per rank: has such a node */
	uint32_t rank_count;
};

static int comm_kind(const struct trex_graph_node *n)
{
	if (n->type == TREX_NODE_COMM_COLL)
		return n->collective < TREX_COLLECTIVE_COUNT ? n->collective : TREX_COLLECTIVE_NONE;
	if (n->type == TREX_NODE_COMM_SEND)
		return TREX_COLLECTIVE_COUNT;
	if (n->type == TREX_NODE_COMM_RECV)
		return TREX_COLLECTIVE_COUNT + 1;
	return -1;
}

static const char *comm_label(int kind)
{
	if (kind == TREX_COLLECTIVE_COUNT)
		return "send";
	if (kind == TREX_COLLECTIVE_COUNT + 1)
		return "recv";
	return trex_collective_label((enum trex_collective)kind);
}

static enum trex_status comm_rows(const struct trex_graph *g, const struct trex_schedule *sched,
                                  struct trex_graph_info *info)
{
	struct comm_acc acc[COMM_KINDS];
	uint32_t ranks = trex_graph_rank_count(g);
	uint8_t *seen = calloc((size_t)COMM_KINDS * (ranks ? ranks : 1), 1);
	enum trex_status st = TREX_OK;

	if (!seen)
		return TREX_NOMEM;
	memset(acc, 0, sizeof(acc));
	for (uint32_t i = 0; i < trex_graph_node_count(g); i++) {
		const struct trex_graph_node *n = trex_graph_node(g, i);
		int k = comm_kind(n);
		if (k < 0)
			continue;
		acc[k].nodes++;
		if (n->comm_bytes >= 0)
			acc[k].bytes += (uint64_t)n->comm_bytes;
		else
			acc[k].unsized++;
		if (sched && i < sched->node_count)
			acc[k].estimated += (sched->flags[i] & TREX_SCHED_ESTIMATED) != 0;
		if (n->rank < ranks && !seen[(size_t)k * ranks + n->rank]++)
			acc[k].rank_count++;
	}
	for (int k = 0; k < COMM_KINDS && st == TREX_OK; k++) {
		union trex_cell *row;
		if (!acc[k].nodes)
			continue;
		if (!(row = trex_table_add_row(&info->comm))) {
			st = TREX_NOMEM;
			break;
		}
		row[COMM_COL_KIND].text = comm_label(k);
		row[COMM_COL_NODES].count = (int64_t)acc[k].nodes;
		row[COMM_COL_RANKS].count = acc[k].rank_count;
		row[COMM_COL_BYTES].count = (int64_t)acc[k].bytes;
		row[COMM_COL_UNSIZED].count = (int64_t)acc[k].unsized;
		row[COMM_COL_ESTIMATED].count = sched ? (int64_t)acc[k].estimated : -1;
	}
	free(seen);
	return st;
}

/* ---- problems ----------------------------------------------------------------------------- */

static void problem_example(const struct trex_graph *g, enum trex_graph_problem_kind kind,
                            const struct trex_graph_problem *p, char *buf, size_t size)
{
	const struct trex_graph_node *n =
	    p->node < trex_graph_node_count(g) ? trex_graph_node(g, p->node) : NULL;
	uint64_t id = n ? n->id : 0;
	const char *name = n ? trex_graph_str(g, n->name) : "";
	unsigned long long rec = n ? n->record : 0,
	                   off = n && n->offset >= 0 ? (unsigned long long)n->offset : 0;

	switch (kind) {
	case TREX_GRAPH_DANGLING_DEP:
		snprintf(buf, size,
		         "node %" PRIu64 " (%s, record %llu, byte %llu) depends on id %" PRIu64
		         ", which the file lacks",
		         id, name, rec, off, p->other_id);
		break;
	case TREX_GRAPH_DUPLICATE_ID:
		snprintf(buf, size,
		         "a second node with id %" PRIu64 " (%s, record %llu, byte %llu)", id, name,
		         rec, off);
		break;
	case TREX_GRAPH_CYCLE:
		snprintf(buf, size,
		         "the dependency of node %" PRIu64
		         " (%s, record %llu, byte %llu) on id %" PRIu64
		         " was cut: they are on a cycle",
		         id, name, rec, off, p->other_id);
		break;
	default:
		snprintf(buf, size,
		         "node %" PRIu64
		         " (%s, record %llu, byte %llu) has no peer on the other ranks",
		         id, name, rec, off);
		break;
	}
}

bool trex_graph_problem_line(const struct trex_index *idx, uint32_t file,
                             enum trex_graph_problem_kind kind, char *buf, size_t size)
{
	const struct trex_graph *g = trex_index_graph(idx);
	uint64_t count = g ? trex_graph_problem_count(g, file, kind) : 0;
	uint32_t nex = 0;
	const struct trex_graph_problem *ex =
	    count ? trex_graph_problem_examples(g, file, kind, &nex) : NULL;
	char example[400] = "";

	buf[0] = '\0';
	if (!count)
		return false;
	if (nex)
		problem_example(g, kind, &ex[0], example, sizeof(example));
	snprintf(buf, size, "%s: %" PRIu64 " %s%s%s%s",
	         trex_index_str(idx, trex_index_file(idx, file)->path), count,
	         problem_labels[kind][count != 1], nex ? " (first: " : "", example, nex ? ")" : "");
	return true;
}

static enum trex_status problem_rows(const struct trex_index *idx, const struct trex_graph *g,
                                     struct trex_graph_info *info)
{
	uint64_t *totals[TREX_GRAPH_PROBLEM_KINDS] = {&info->dangling, &info->duplicates,
	                                              &info->cycle_cuts, &info->unmatched};

	for (uint32_t f = 0; f < trex_index_file_count(idx); f++) {
		const struct trex_file *tf = trex_index_file(idx, f);
		for (int k = 0; k < TREX_GRAPH_PROBLEM_KINDS; k++) {
			enum trex_graph_problem_kind kind = (enum trex_graph_problem_kind)k;
			uint64_t count = trex_graph_problem_count(g, f, kind);
			uint32_t nex = 0;
			const struct trex_graph_problem *ex =
			    trex_graph_problem_examples(g, f, kind, &nex);
			char text[512] = "";
			union trex_cell *row;
			if (!count)
				continue;
			*totals[k] += count;
			if (nex)
				problem_example(g, kind, &ex[0], text, sizeof(text));
			if (!(row = trex_table_add_row(&info->problems)))
				return TREX_NOMEM;
			row[0].count = tf->rank;
			row[1].text = problem_labels[k][1];
			row[2].count = (int64_t)count;
			row[3].text = trex_table_strdup(&info->problems, text, strlen(text));
			row[4].text = trex_index_str(idx, tf->path);
			if (!row[3].text)
				return TREX_NOMEM;
		}
	}
	return TREX_OK;
}

/* ---- the report --------------------------------------------------------------------------- */

static void totals(const struct trex_graph *g, const struct trex_schedule *sched,
                   struct trex_graph_info *info)
{
	info->nodes = trex_graph_node_count(g);
	info->edges = trex_graph_edge_count(g);
	for (uint32_t e = 0; e < info->edges; e++) {
		const struct trex_graph_edge *ed = trex_graph_edge(g, e);
		info->data_edges += ed->kind == TREX_DEP_DATA;
		info->ctrl_edges += ed->kind == TREX_DEP_CTRL;
	}
	info->matches = trex_graph_match_count(g);
	if (sched) {
		info->makespan_ns = sched->makespan;
		info->critical_nodes = sched->critical_count;
		info->estimated = sched->estimated;
		info->bandwidth_gbps = sched->bandwidth_gbps;
		info->latency_ns = sched->latency_ns;
	}
}

enum trex_status trex_graph_info_compute(const struct trex_index *idx,
                                         const struct trex_schedule *sched,
                                         struct trex_graph_info *info, struct trex_error *err)
{
	const struct trex_graph *g = trex_index_graph(idx);
	uint32_t nfiles = trex_index_file_count(idx);
	enum trex_status st;

	init_tables(info);
	if (!g)
		return TREX_OK;
	info->has_graph = true;
	if (sched && sched->node_count != trex_graph_node_count(g))
		sched = NULL; /* not this graph's */
	struct file_acc *files = calloc(nfiles ? nfiles : 1, sizeof(*files));
	if (!files)
		return nomem(err);
	count_nodes(g, sched, files, nfiles);
	st = rank_rows(idx, info, files, nfiles, sched != NULL);
	free(files);
	if (st == TREX_OK)
		st = comm_rows(g, sched, info);
	if (st == TREX_OK)
		st = problem_rows(idx, g, info);
	if (st != TREX_OK) {
		trex_graph_info_free(info);
		init_tables(info);
		return nomem(err);
	}
	totals(g, sched, info);
	return TREX_OK;
}
