/* libFuzzer target: arbitrary bytes (plain or gzip) as an ASTRA-sim
 * simulator issue/callback log, at 1 GHz and at an odd NPU clock, through
 * the loader into an index; every slice's args read back from its issue
 * line as JSON through the astrasim-log codec.
 * Built and run by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t load(const uint8_t *data, size_t size, double ghz)
{
	struct trex_load_opts opts = {.threads = 1, .npu_frequency_ghz = ghz};
	struct trex_index *idx = fuzz_load_as("fuzz.log", data, size, opts, "astrasim-timeline");
	size_t sum = fuzz_touch_args(idx);

	trex_index_free(idx);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sum = load(data, size, 0) + load(data, size, 0.7);
	return sum == 1 ? 0 : 0; /* sum keeps the reads from being optimised away */
}
