/* libFuzzer target: arbitrary bytes (plain or gzip) as a PyTorch host
 * execution trace (--input-format pytorch-et), through the loader, the
 * graph, its schedule and the timeline into an index; every node's args
 * read back through the pytorch-et codec, both as JSON and as the pairs
 * with the attrs list spread.
 * Built and run by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "trex/core/graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every node's attributes as pairs; a sum of what was read. */
static size_t touch_attrs(const struct trex_index *idx)
{
	const struct trex_graph *g = idx ? trex_index_graph(idx) : NULL;
	struct trex_error err;
	size_t sum = 0;

	for (uint32_t i = 0; g && i < trex_graph_node_count(g); i++) {
		const struct trex_graph_node *n = trex_graph_node(g, i);
		struct trex_args a;
		if (trex_index_args(idx, 0, n->attrs, &a, NULL, &err) != TREX_OK)
			continue;
		for (size_t k = 0; k < a.n; k++)
			sum += strlen(a.v[k].key) + strlen(a.v[k].value);
		trex_args_free(&a);
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trex_load_opts opts = {.threads = 1};
	struct trex_index *idx = fuzz_load_as("fuzz.json", data, size, opts, "pytorch-et");
	size_t sum = fuzz_touch_args(idx) + touch_attrs(idx);

	trex_index_free(idx);
	return sum == 1 ? 0 : 0; /* sum keeps the reads from being optimised away */
}
