/* libFuzzer target: arbitrary bytes as a Chakra .et file (plain or gzip)
 * through the record decoder, every node's facts, attributes and
 * process-group table read (so uninitialised or dangling ones would show
 * under ASan); then through the loader into an index (the graph store, its
 * schedule), every node read back as JSON through the chakra args codec.
 * Built and run by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chakra_decode.h"
#include "trex/core/graph.h"
#include "trex/load/loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_group(void *user, const char *name, size_t len, const uint32_t *ranks, size_t n)
{
	*(size_t *)user += len + (name ? (size_t)name[0] : 0) + (n ? ranks[n - 1] : 0);
	return 0;
}

static enum trex_status on_node(void *user, const trex_chakra_node *n,
                                const struct trex_chakra_where *w, struct trex_error *err)
{
	struct trex_chakra_facts f;
	size_t *sum = user;

	(void)err;
	trex_chakra_node_facts(n, &f);
	*sum += strlen(n->name) + strlen(f.group) + (size_t)f.dur + (size_t)f.comm_bytes +
	        (size_t)f.peer + (size_t)w->offset;
	for (size_t i = 0; i < n->n_attr; i++)
		*sum += strlen(n->attr[i]->name);
	if (n->inputs)
		trex_chakra_process_groups(n->inputs->values, on_group, sum);
	return TREX_OK;
}

static void on_damage(void *user, enum trex_chakra_damage kind, const struct trex_chakra_where *w,
                      uint64_t bytes, const char *what)
{
	*(size_t *)user += (size_t)kind + (size_t)w->record + (size_t)bytes + strlen(what);
}

/* The bytes loaded as a Chakra file of rank 0, every node's args read back. */
static size_t load(const uint8_t *data, size_t size)
{
	struct trex_load_opts opts = {.threads = 1, .format = "chakra-et"};
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;
	size_t sum = 0;

	if (trex_source_open_memory("fuzz.0.et", data, size, false, &src, &err) != TREX_OK ||
	    trex_load_sources(&src, 1, &opts, &idx, &err) != TREX_OK)
		return 0;
	const struct trex_graph *g = trex_index_graph(idx);
	for (uint32_t i = 0; g && i < trex_graph_node_count(g); i++) {
		const struct trex_graph_node *n = trex_graph_node(g, i);
		char *json = NULL;
		size_t len = 0;
		if (trex_index_args_json(idx, n->file, n->attrs, &json, &len, &err) == TREX_OK)
			sum += len + (json ? strlen(json) : 0);
		free(json);
	}
	trex_index_free(idx);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sum = 0;
	struct trex_chakra_sink sink = {.user = &sum, .node = on_node, .damage = on_damage};
	struct trex_chakra_stats stats;
	struct trex_source *src = NULL;
	struct trex_error err;

	if (trex_source_open_memory("fuzz.0.et", data, size, false, &src, &err) == TREX_OK) {
		trex_chakra_decode(src, &sink, &stats, &err);
		trex_source_close(src);
	}
	sum += load(data, size);
	return sum == 1 ? 0 : 0; /* sum keeps the reads from being optimised away */
}
