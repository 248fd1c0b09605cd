/* libFuzzer target: arbitrary bytes as an ASTRA-sim 1.0 text workload,
 * read by the astrasim-text graph loader for 3 NPUs into a graph store of
 * its own, which is then finished (dependencies resolved, collectives
 * matched) and every node's name read.
 * Built and run by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trex/core/graph.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trex_load_opts opts = {.threads = 1, .npus = 3};
	struct trex_build_file file = {0};
	struct trex_source *src = NULL;
	struct trex_error err;
	size_t sum = 0;

	if (trex_source_open_memory("fuzz.txt", data, size, false, &src, &err) != TREX_OK)
		return 0;
	struct trex_load_job job = {.source = src, .file = &file, .opts = &opts};
	job.graph = trex_graph_new();
	if (job.graph && trex_format_named("astrasim-text")->load(&job, &err) == TREX_OK &&
	    trex_graph_finish(job.graph, &err) == TREX_OK)
		for (uint32_t i = 0; i < trex_graph_node_count(job.graph); i++)
			sum +=
			    strlen(trex_graph_str(job.graph, trex_graph_node(job.graph, i)->name));
	trex_graph_free(job.graph);
	trex_source_close(src);
	return sum == 1 ? 0 : 0; /* sum keeps the reads from being optimised away */
}
