/* libFuzzer target: arbitrary bytes through the Nsight Compute source-page
 * CSV reader (src/load/ncu_source.c), as a report and as a baseline
 * compared with it, then every stall table (fuzz_stalls.h). Built and run
 * by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include "fuzz_stalls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_stalls_run("ncu-source", "\"Kernel Name\",\"k\"\n", data, size);
}
