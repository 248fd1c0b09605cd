/* PyTorch host execution traces (src/load/pytorch_et.c): sniffing, the
 * graph a trace becomes (ids, parents, types by Chakra's converter rules,
 * durations, communication sizes), the args codec that spreads the attrs
 * list, and salvage of damaged or cut input. tests/e2e/pytorch_et.sh
 * checks the corpus file against an independent reading. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "pytorch_et.h"
#include "trex/core/graph.h"
#include "trex/core/index.h"
#include "trex/core/schedule.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

#define ATTRS(rf, tid)                                                                             \
	"\"attrs\": [{\"name\": \"rf_id\", \"type\": \"uint64\", \"value\": " #rf "}, "            \
	"{\"name\": \"tid\", \"type\": \"uint64\", \"value\": " #tid "}, "                         \
	"{\"name\": \"op_schema\", \"type\": \"string\", \"value\": \"aten::x(Tensor a)\"}]"

/* The observer's layout: children written before their parent, the
 * process node last, naming itself as its parent. */
static const char host_et[] =
    "{\n  \"schema\": \"1.0.2-chakra.0.0.4\", \"pid\": 7, \"time\": \"t\", \"start_ts\": 1,\n"
    "  \"nodes\": [\n"
    "    {\"id\": 2, \"name\": \"[pytorch|profiler|execution_trace|thread]\", \"ctrl_deps\": "
    "1, " ATTRS(
        0, 1) "},\n"
              "    {\"id\": 3, \"name\": \"## process_group:init ##\", \"ctrl_deps\": 2, " ATTRS(
                  1, 1) "},\n"
                        "    {\"id\": 5, \"name\": \"aten::empty\", \"ctrl_deps\": 4, "
                        "\"exclusive_dur\": 2.5, " ATTRS(
                            3, 1) "},\n"
                                  "    {\"id\": 4, \"name\": \"aten::to\", \"ctrl_deps\": 2, "
                                  "\"exclusive_dur\": 1, " ATTRS(
                                      2, 1) "},\n"
                                            "    {\"id\": 6, \"name\": \"aten::add\", "
                                            "\"ctrl_deps\": 2, \"dur\": 4, " ATTRS(
                                                4, 1) "},\n"
                                                      "    {\"id\": 1, \"name\": "
                                                      "\"[pytorch|profiler|execution_trace|process]"
                                                      "\", \"ctrl_deps\": 1, " ATTRS(
                                                          0, 0) "}\n"
                                                                "  ],\n  \"finish_ts\": 9\n}\n";

static struct trex_index *load_as(const char *name, const char *text, const char *format,
                                  enum trex_status want, struct trex_error *err)
{
	struct trex_source *src;
	struct trex_index *idx = NULL;
	struct trex_load_opts opts = {.threads = 1, .format = format};

	cr_assert_eq(trex_source_open_memory(name, text, strlen(text), true, &src, err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, err), want, "%s", err->message);
	return idx;
}

static struct trex_index *load(const char *text)
{
	struct trex_error err;
	return load_as("host.json", text, NULL, TREX_OK, &err);
}

static uint32_t node_with_id(const struct trex_graph *g, uint64_t id)
{
	for (uint32_t i = 0; i < trex_graph_node_count(g); i++)
		if (trex_graph_node(g, i)->id == id)
			return i;
	cr_assert_fail("no node %llu", (unsigned long long)id);
	return TREX_GRAPH_NONE;
}

Test(pytorch_et, sniffed_by_its_schema_key)
{
	struct trex_index *idx = load(host_et);
	const struct trex_file *f = trex_index_file(idx, 0);

	cr_assert_str_eq(trex_index_str(idx, f->format), "pytorch-et");
	cr_assert_str_eq(trex_index_str(idx, f->dialect), "1.0.2-chakra.0.0.4");
	cr_assert_eq(f->events, 6);
	cr_assert_not(trex_integrity_damaged(&f->integrity));
	trex_index_free(idx);
}

Test(pytorch_et, nodes_parents_and_types)
{
	struct trex_index *idx = load(host_et);
	const struct trex_graph *g = trex_index_graph(idx);
	uint32_t n;

	cr_assert_eq(trex_graph_node_count(g), 6);
	const struct trex_graph_node *pg = trex_graph_node(g, node_with_id(g, 3));
	cr_assert_eq(pg->type, TREX_NODE_METADATA);
	cr_assert(pg->flags & TREX_NODE_CPU);
	cr_assert_eq(trex_graph_node(g, node_with_id(g, 5))->type, TREX_NODE_COMP);
	/* the process node names itself: a root, no cycle */
	trex_graph_edges_of(g, node_with_id(g, 1), true, &n);
	cr_assert_eq(n, 0);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_CYCLE), 0);
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_DANGLING_DEP), 0);
	/* every other node: its parent op as a control dependency */
	cr_assert_eq(trex_graph_edge_count(g), 5);
	const uint32_t *in = trex_graph_edges_of(g, node_with_id(g, 5), true, &n);
	cr_assert_eq(n, 1);
	const struct trex_graph_edge *e = trex_graph_edge(g, in[0]);
	cr_assert_eq(trex_graph_node(g, e->from)->id, 4);
	cr_assert_eq(e->kind, TREX_DEP_CTRL);
	trex_index_free(idx);
}

/* Ops of a thread in id order (the call tree depth first), each for its
 * exclusive duration; no duration: 0 ns. */
Test(pytorch_et, schedule_in_id_order)
{
	struct trex_index *idx = load(host_et);
	const struct trex_graph *g = trex_index_graph(idx);
	const struct trex_schedule *s = trex_graph_schedule(g);
	uint32_t to = node_with_id(g, 4), empty = node_with_id(g, 5), add = node_with_id(g, 6);

	cr_assert_eq(trex_graph_node(g, empty)->dur, 2500);
	cr_assert_eq(trex_graph_node(g, node_with_id(g, 2))->dur, TREX_GRAPH_DUR_UNKNOWN);
	cr_assert_eq(s->start[to], 0);
	cr_assert_eq(s->dur[to], 1000);
	cr_assert_eq(s->start[empty], 1000);
	cr_assert_eq(s->start[add], 3500);
	cr_assert_eq(s->makespan, 7500);
	trex_index_free(idx);
}

static const char *arg(const struct trex_args *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0)
			return a->v[i].value;
	return NULL;
}

Test(pytorch_et, attrs_read_back_as_keys)
{
	struct trex_index *idx = load(host_et);
	const struct trex_graph *g = trex_index_graph(idx);
	const struct trex_graph_node *n = trex_graph_node(g, node_with_id(g, 5));
	struct trex_args a;
	struct trex_error err;

	cr_assert_eq(trex_index_args(idx, 0, n->attrs, &a, NULL, &err), TREX_OK);
	cr_assert_str_eq(arg(&a, "rf_id"), "3");
	cr_assert_str_eq(arg(&a, "tid"), "1");
	cr_assert_str_eq(arg(&a, "op_schema"), "aten::x(Tensor a)");
	cr_assert_str_eq(arg(&a, "id"), "5");
	cr_assert_str_eq(arg(&a, "exclusive_dur"), "2.5");
	cr_assert_null(arg(&a, "attrs"));
	trex_args_free(&a);
	trex_index_free(idx);
}

Test(pytorch_et, spread_keeps_what_is_no_attribute_list)
{
	struct trex_arg v[] = {{"attrs", "[{\"type\": \"int\", \"value\": 1}, {\"name\": \"x\"}]"},
	                       {"inputs", "{\"values\":[]}"}};
	struct trex_args in = {v, 2, NULL}, out;
	struct trex_error err;

	cr_assert_eq(trex_pytorch_et_spread_attrs(&in, &out, &err), TREX_OK);
	/* the nameless attribute is dropped from the spread, the named one has no value */
	cr_assert_eq(out.n, 2);
	cr_assert_str_eq(out.v[0].key, "x");
	cr_assert_str_eq(out.v[0].value, "null");
	cr_assert_str_eq(out.v[1].key, "inputs");
	trex_args_free(&out);
	v[0].value = "\"not a list\"";
	cr_assert_eq(trex_pytorch_et_spread_attrs(&in, &out, &err), TREX_OK);
	cr_assert_eq(out.n, 2);
	cr_assert_str_eq(out.v[0].key, "attrs");
	cr_assert_str_eq(out.v[0].value, "\"not a list\"");
	trex_args_free(&out);
}

/* chakra_trace_link's GPU ops (a "cat"): NCCL kernels are communication
 * (comm_size: the Tensor inputs' bytes), a SendRecv kernel a send or a
 * receive as its launching op says; other kernels compute, on the device. */
static const char linked[] =
    "{\"schema\": \"1.1.1-chakra.0.0.4\", \"pid\": 1, \"nodes\": [\n"
    "{\"id\": 1, \"name\": \"root\", \"ctrl_deps\": 1},\n"
    "{\"id\": 2, \"name\": \"nccl:all_reduce\", \"ctrl_deps\": 1, \"exclusive_dur\": 3},\n"
    "{\"id\": 3, \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)\", "
    "\"ctrl_deps\": 2, \"cat\": \"kernel\", \"exclusive_dur\": 20, \"pg_name\": \"0\", "
    "\"inputs\": {\"values\": [[5,6,0,1024,4,\"cuda:0\"], 3, [[7,8,0,10,2,\"cuda:0\"]]], "
    "\"shapes\": [[1024], [], [[10]]], "
    "\"types\": [\"Tensor(float)\", \"Int\", \"GenericList[Tensor(half)]\"]}},\n"
    "{\"id\": 4, \"name\": \"nccl:send\", \"ctrl_deps\": 1},\n"
    "{\"id\": 5, \"name\": \"ncclDevKernel_SendRecv(ncclDevComm*)\", \"ctrl_deps\": 4, "
    "\"cat\": \"kernel\"},\n"
    "{\"id\": 6, \"name\": \"void gemm<float>(int)\", \"ctrl_deps\": 1, \"cat\": \"kernel\", "
    "\"exclusive_dur\": 1}\n"
    "], \"finish_ts\": 2}";

Test(pytorch_et, trace_link_gpu_ops)
{
	struct trex_index *idx = load(linked);
	const struct trex_graph *g = trex_index_graph(idx);
	const struct trex_graph_node *ar = trex_graph_node(g, node_with_id(g, 3));
	const struct trex_graph_node *send = trex_graph_node(g, node_with_id(g, 5));
	const struct trex_graph_node *gemm = trex_graph_node(g, node_with_id(g, 6));

	cr_assert_eq(ar->type, TREX_NODE_COMM_COLL);
	cr_assert_eq(ar->collective, TREX_COLLECTIVE_ALL_REDUCE);
	cr_assert_eq(ar->comm_bytes, 4096);
	cr_assert_eq(ar->dur, 20000);
	cr_assert_str_eq(trex_graph_str(g, ar->group), "0");
	cr_assert_not(ar->flags & TREX_NODE_CPU);
	cr_assert_eq(send->type, TREX_NODE_COMM_SEND);
	cr_assert_eq(gemm->type, TREX_NODE_COMP);
	cr_assert_not(gemm->flags & TREX_NODE_CPU);
	cr_assert(trex_graph_node(g, node_with_id(g, 2))->flags & TREX_NODE_CPU);
	cr_assert_eq(trex_graph_node(g, node_with_id(g, 2))->type, TREX_NODE_COMP);
	trex_index_free(idx);
}

/* A damaged node is skipped to the next one, counted with its position. */
Test(pytorch_et, damaged_node_skipped)
{
	static const char text[] = "{\"schema\": \"1.0.1\", \"nodes\": [\n"
	                           "{\"id\": 1, \"name\": \"a\", \"ctrl_deps\": 1},\n"
	                           "{\"id\": 2, \"name\": \"b\" \"ctrl_deps\": 1},\n"
	                           "{\"id\": 3, \"name\": \"c\", \"ctrl_deps\": 1}\n"
	                           "]}";
	struct trex_index *idx = load(text);
	const struct trex_file *f = trex_index_file(idx, 0);
	const struct trex_graph *g = trex_index_graph(idx);

	cr_assert_eq(trex_graph_node_count(g), 2);
	cr_assert_eq(node_with_id(g, 3), 1);
	cr_assert_eq(f->integrity.syntax_errors, 1);
	cr_assert_eq(f->integrity.events_lost, 1);
	cr_assert_eq(f->integrity.bytes_skipped,
	             strlen("{\"id\": 2, \"name\": \"b\" \"ctrl_deps\": 1},\n"));
	cr_assert_not(f->truncated);
	cr_assert_eq(f->first_problem.line, 3);
	cr_assert_eq(f->first_problem.col, strlen("{\"id\": 2, \"name\": \"b\" ") + 1);
	trex_index_free(idx);
}

/* Input cut inside the node list keeps the nodes before it. */
Test(pytorch_et, cut_input_keeps_what_came_before)
{
	char text[sizeof(host_et)];
	const char *cut = strstr(host_et, "{\"id\": 4");

	memcpy(text, host_et, (size_t)(cut - host_et) + 20);
	text[cut - host_et + 20] = '\0';
	struct trex_index *idx = load(text);
	const struct trex_file *f = trex_index_file(idx, 0);

	cr_assert_eq(trex_graph_node_count(trex_index_graph(idx)), 3);
	cr_assert(f->truncated);
	cr_assert_eq(f->integrity.events_lost, 1);
	cr_assert_eq(f->integrity.bytes_ignored, 20);
	cr_assert(strstr(f->first_problem.message, "cut off"), "%s", f->first_problem.message);
	cr_assert_eq(f->first_problem.line, 7);
	trex_index_free(idx);
}

/* Cut inside a key: said as the end of input, not as damage there. */
Test(pytorch_et, cut_inside_a_key)
{
	static const char text[] =
	    "{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1}, {\"id\": 2, \"na";
	struct trex_index *idx = load(text);
	const struct trex_file *f = trex_index_file(idx, 0);

	cr_assert_eq(trex_graph_node_count(trex_index_graph(idx)), 1);
	cr_assert(f->truncated);
	cr_assert(strstr(f->first_problem.message, "cut off"), "%s", f->first_problem.message);
	cr_assert_eq(f->first_problem.offset, (int64_t)strlen(text));
	trex_index_free(idx);
}

Test(pytorch_et, node_without_id_dropped)
{
	static const char text[] =
	    "{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1, \"name\": \"a\"},"
	    " {\"id\": -4, \"name\": \"b\"}, {\"name\": \"c\"}]}";
	struct trex_index *idx = load(text);
	const struct trex_file *f = trex_index_file(idx, 0);

	cr_assert_eq(trex_graph_node_count(trex_index_graph(idx)), 1);
	cr_assert_eq(f->integrity.missing_fields, 2);
	cr_assert_eq(f->first_problem.offset, (int64_t)(strchr(text, '}') + 3 - text));
	trex_index_free(idx);
}

Test(pytorch_et, refused_without_a_node_list)
{
	struct trex_error err;

	load_as("a.json", "{\"schema\": \"1.0.1\", \"pid\": 3}", NULL, TREX_FORMAT, &err);
	cr_assert(strstr(err.message, "expected a \"nodes\" list"), "%s", err.message);
	cr_assert_eq(err.line, 1);
	cr_assert_eq(err.col, 29);
	load_as("a.json", "[1, 2]", "pytorch-et", TREX_FORMAT, &err);
	cr_assert(strstr(err.message, "expected a PyTorch execution trace"), "%s", err.message);
	load_as("a.json", "{\"schema\": \"1.0.1\", \"nodes\": 3}", NULL, TREX_FORMAT, &err);
	cr_assert(strstr(err.message, "expected the list of nodes"), "%s", err.message);
	cr_assert_eq(err.col, 30);
}

/* --input-format forces it on a file whose first key is another. */
Test(pytorch_et, forced_by_input_format)
{
	static const char text[] = "{\"nodes\": [{\"id\": 1, \"name\": \"a\"}], \"schema\": \"x\"}";
	struct trex_error err;
	struct trex_index *idx = load_as("a.json", text, "pytorch-et", TREX_OK, &err);

	cr_assert_str_eq(trex_index_str(idx, trex_index_file(idx, 0)->dialect),
	                 "host-et (unknown schema)");
	trex_index_free(idx);
	idx = load_as("a.json", "{\"traceEvents\": []}", NULL, TREX_OK, &err);
	cr_assert_str_eq(trex_index_str(idx, trex_index_file(idx, 0)->format), "chrome-json");
	trex_index_free(idx);
}
