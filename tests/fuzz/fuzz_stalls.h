/* What the stall-report fuzz targets share: arbitrary bytes read as one
 * profile input of a format (the sniffer is bypassed, so that every byte
 * reaches that format's reader), the store frozen, and every stall
 * analysis and table writer run over it. Anything but a clean return
 * (a crash, a leak, a sanitizer report) is a finding. */
#ifndef TREX_FUZZ_STALLS_H
#define TREX_FUZZ_STALLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/stalls.h"
#include "trex/analysis/table.h"
#include "trex/core/profile.h"
#include "trex/export/table_write.h"
#include "trex/load/profile_load.h"

typedef enum trex_status stalls_table_fn(const struct trex_profile *,
                                         const struct trex_stall_opts *, struct trex_table *,
                                         struct trex_error *);

static void fuzz_stalls_tables(const struct trex_profile *p)
{
	static stalls_table_fn *const tables[] = {trex_stalls_kernels_table,
	                                          trex_stalls_reasons_table, trex_stalls_top_table,
	                                          trex_stalls_lines_table};
	struct trex_stall_opts o = {3, NULL, TREX_PROFILE_NONE, NULL};
	FILE *null_out = fopen("/dev/null", "w");
	struct trex_error err;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct trex_table t;

		if (tables[i](p, &o, &t, &err) != TREX_OK)
			continue;
		if (null_out) {
			trex_table_write(null_out, &t, TREX_FMT_TEXT, &err);
			trex_table_write(null_out, &t, TREX_FMT_JSON, &err);
		}
		trex_table_free(&t);
	}
	if (null_out)
		fclose(null_out);
}

/* Reads data as a file of format (head, a first line that makes the
 * sniffer say format, is put before data unless data already says so),
 * twice: the second time as a baseline report compared with the first. */
static int fuzz_stalls_run(const char *format, const char *head, const uint8_t *data, size_t size)
{
	struct trex_profile *p = trex_profile_new();
	struct trex_profile_load_opts lo = {NULL, NULL, NULL};
	struct trex_error err;
	size_t hn = 0;
	char *text;

	if (!trex_profile_sniff((const char *)data, size) ||
	    strcmp(trex_profile_sniff((const char *)data, size), format) != 0)
		hn = strlen(head);
	text = malloc(hn + size + 1);
	if (!p || !text) {
		free(text);
		trex_profile_free(p);
		return 0;
	}
	memcpy(text, head, hn);
	memcpy(text + hn, data, size);
	text[hn + size] = '\0';
	for (int pass = 0; pass < 2; pass++)
		trex_profile_load_text(p, pass ? "b.csv" : "a.csv", text, hn + size, &lo, &err);
	if (trex_profile_freeze(p, &err) == TREX_OK)
		fuzz_stalls_tables(p);
	trex_profile_free(p);
	free(text);
	return 0;
}

#endif
