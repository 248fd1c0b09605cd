/* The export prompt of a view: "export to: " with a default file name,
 * then "FILE exists; overwrite? (y/n)" when the file is there, then the
 * table written through trex_table_export() (CSV, JSON or text by the
 * file's extension) and "wrote N rows to FILE".
 *
 * Prompt callbacks get only the view, so the view keeps one struct
 * trex_export_prompt and gives two one-line trampolines that find it:
 *
 *   static void exp_submit(struct trex_view *v, const char *text)
 *   { trex_export_prompt_submit(&of(v)->exp, v, text); }
 *   static void exp_cancel(struct trex_view *v)
 *   { trex_export_prompt_cancel(&of(v)->exp, v); }
 */
#ifndef TREX_UI_EXPORT_PROMPT_H
#define TREX_UI_EXPORT_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/analysis/table.h"
#include "trex/ui/prompt.h"
#include "trex/ui/view.h"

struct trex_export_prompt {
	/* set by the view before trex_export_prompt_open */
	void (*on_submit)(struct trex_view *v, const char *text); /* the trampolines */
	void (*on_cancel)(struct trex_view *v);
	/* The table to write and its rows in order (*rows NULL: rows 0 .. *n - 1);
	 * NULL when there is nothing to export (the view said why). */
	const struct trex_table *(*table)(struct trex_view *v, const size_t **rows, size_t *n);
	/* what the file holds, said after "wrote N rows to FILE"; NULL: nothing */
	const char *what;
	/* the first prompt's label ("export 3 marked rows to: "); NULL: "export to: " */
	const char *label_first;
	/* the prompt's state */
	bool asking; /* the overwrite question is open */
	char path[TREX_PROMPT_MAX];
	char label[TREX_PROMPT_MAX + 32];
};

/* Opens "export to: " on v with default_name as the initial text. */
void trex_export_prompt_open(struct trex_view *v, struct trex_export_prompt *ep,
                             const char *default_name);
/* What the trampolines call. */
void trex_export_prompt_submit(struct trex_export_prompt *ep, struct trex_view *v,
                               const char *text);
void trex_export_prompt_cancel(struct trex_export_prompt *ep, struct trex_view *v);

#endif
