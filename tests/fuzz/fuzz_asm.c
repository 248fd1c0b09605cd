/* libFuzzer target: arbitrary bytes as an IGC shader dump .asm listing
 * (src/load/asm_listing.c): lines, addresses, blocks and their Preds, then
 * the SBID token walk from every instruction and the look-up of every
 * address. Built and run by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/load/shader_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct asm_listing a;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (asm_listing_parse(text, size, &a)) {
		for (size_t i = 0; i < a.n; i++) {
			struct sbid_result r = {0};

			if (a.lines[i].kind != ASM_INSN)
				continue;
			if (asm_listing_find(&a, a.lines[i].addr) == SIZE_MAX)
				abort(); /* every instruction is found at its own address */
			if (asm_sbid_walk(&a, i, &r) == 0)
				for (size_t c = 0; c < r.n; c++)
					if (r.causes[c].insn >= a.n ||
					    a.lines[r.causes[c].insn].kind != ASM_INSN)
						abort(); /* a cause is an instruction of the listing
						          */
			sbid_result_free(&r);
		}
		asm_listing_free(&a);
	}
	free(text);
	return 0;
}
