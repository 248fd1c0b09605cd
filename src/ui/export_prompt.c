#include "config.h"

#include "export_prompt.h"

#include <stdio.h>
#include <string.h>

#include "trex/export/table_write.h"

static void ask_overwrite(struct trex_export_prompt *ep, struct trex_view *v)
{
	struct trex_prompt_spec spec = {.label = ep->label,
	                                .history = TREX_PROMPT_HISTORY_OTHER,
	                                .yes_no = true,
	                                .on_submit = ep->on_submit,
	                                .on_cancel = ep->on_cancel};

	snprintf(ep->label, sizeof(ep->label), "%s exists; overwrite? (y/n) ", ep->path);
	ep->asking = true;
	trex_ui_prompt(v->ctx, v, &spec);
}

static void export_to(struct trex_export_prompt *ep, struct trex_view *v, bool force)
{
	const size_t *rows = NULL;
	size_t n = 0;
	const struct trex_table *t = ep->table(v, &rows, &n);
	struct trex_error err;
	enum trex_status st;

	if (!t)
		return;
	st = trex_table_export(ep->path, force, t, rows, n, trex_table_format_for_path(ep->path),
	                       &err);
	if (st == TREX_EXISTS && !force)
		ask_overwrite(ep, v);
	else if (st != TREX_OK)
		trex_ui_message(v->ctx, "export failed: %s: %s", ep->path, err.message);
	else
		trex_ui_message(v->ctx, "wrote %zu %s to %s%s%s%s", n,
		                trex_plural(n, "row", "rows"), ep->path, ep->what ? " (" : "",
		                ep->what ? ep->what : "", ep->what ? ")" : "");
}

/* The path without the spaces around it; empty: cancelled. */
static bool take_path(struct trex_export_prompt *ep, const char *text)
{
	size_t len;

	while (*text == ' ')
		text++;
	snprintf(ep->path, sizeof(ep->path), "%s", text);
	len = strlen(ep->path);
	while (len && ep->path[len - 1] == ' ')
		ep->path[--len] = '\0';
	return len > 0;
}

void trex_export_prompt_submit(struct trex_export_prompt *ep, struct trex_view *v, const char *text)
{
	if (ep->asking) {
		ep->asking = false;
		if (text[0] == 'y' || text[0] == 'Y')
			export_to(ep, v, true);
		else
			trex_ui_message(v->ctx, "not overwritten: %s", ep->path);
		return;
	}
	if (!take_path(ep, text)) {
		trex_ui_message(v->ctx, "export cancelled");
		return;
	}
	export_to(ep, v, false);
}

void trex_export_prompt_cancel(struct trex_export_prompt *ep, struct trex_view *v)
{
	if (ep->asking)
		trex_export_prompt_submit(ep, v, "n");
	else
		trex_ui_message(v->ctx, "export cancelled");
}

void trex_export_prompt_open(struct trex_view *v, struct trex_export_prompt *ep,
                             const char *default_name)
{
	struct trex_prompt_spec spec = {.label = ep->label_first ? ep->label_first : "export to: ",
	                                .initial = ep->path,
	                                .history = TREX_PROMPT_HISTORY_PATH,
	                                .on_submit = ep->on_submit,
	                                .on_cancel = ep->on_cancel};

	ep->asking = false;
	snprintf(ep->path, sizeof(ep->path), "%s", default_name);
	trex_ui_prompt(v->ctx, v, &spec);
}
