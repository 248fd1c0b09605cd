#include "config.h"

#include "trex/export/unitrace_summary.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/export/json_write.h"

enum trex_status trex_unitrace_summary_write(FILE *out, const struct trex_table *t,
                                             struct trex_error *err)
{
	static const char *const suffix[] = {"_time", "_calls"};
	size_t cat_col = t->ncols - 1;

	if (t->ncols < 4 || strcmp(t->cols[0].key, "total_ns") != 0 ||
	    strcmp(t->cols[2].key, "calls") != 0 || strcmp(t->cols[cat_col].key, "category") != 0)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "%s is not a categories table",
		                      t->name ? t->name : "table");
	fputc('{', out);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *cat = trex_table_cell(t, r, cat_col)->text;

		if (!cat || strcmp(cat, TREX_CATEGORY_NONE) == 0)
			cat = "device";
		for (int k = 0; k < 2; k++) {
			char key[TREX_ERROR_MSG_MAX];

			snprintf(key, sizeof(key), "%s%s", cat, suffix[k]);
			fputs(r || k ? ", " : "", out);
			trex_json_write_string(out, key);
			if (k == 0)
				fprintf(out, ": %.0f", trex_table_cell(t, r, 0)->number);
			else
				fprintf(out, ": %" PRId64, trex_table_cell(t, r, 2)->count);
		}
	}
	fputs("}\n", out);
	return TREX_OK;
}
