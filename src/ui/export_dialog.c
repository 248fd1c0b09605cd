#include "config.h"

#include "export_dialog.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "list_menu.h"
#include "trex/core/display.h"
#include "trex/ui/text.h"

#define CTRL(c) ((trex_key)((c)&0x1f))
#define FUNC(k) (TREX_KEY_FUNC | (trex_key)(k))
#define KEY_ESCAPE 27u
#define REDRAW_NS 100000000LL /* the progress bar at most ten times a second */
#define BOX_W_MAX 100
#define LABEL_W 9 /* "Format   " */
#define BAR_W 20

static const struct trex_trace_exporter *exporter(const struct export_dialog *d)
{
	return trex_trace_exporter_at(d->format);
}

static bool is_chakra(const struct export_dialog *d)
{
	return strcmp(exporter(d)->name, "chakra") == 0;
}

static bool scope_ok(const struct export_dialog *d, enum export_scope_kind k)
{
	char why[8];

	return export_scope_available(&d->st, exporter(d), k, why, sizeof(why));
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void export_dialog_init(struct export_dialog *d, const struct export_dialog_host *host)
{
	memset(d, 0, sizeof(*d));
	trex_prompt_init(&d->path);
	d->host = *host;
}

void export_dialog_free(struct export_dialog *d)
{
	trex_prompt_free(&d->path);
	export_scope_release(&d->built);
	free(d->shown);
	d->shown = NULL;
}

bool export_dialog_cancel_key(trex_key key)
{
	return key == KEY_ESCAPE || key == CTRL('g') || key == CTRL('c');
}

/* ---- the path ------------------------------------------------------------------------------ */

static void set_path(struct export_dialog *d, const char *text)
{
	struct trex_prompt_spec spec = {
	    .label = "", .initial = text, .history = TREX_PROMPT_HISTORY_PATH};

	trex_prompt_open(&d->path, NULL, &spec);
}

/* The default name for the format and scope, when the path still holds
 * the previous default (what the user typed stays). */
static void refresh_path(struct export_dialog *d, const struct trex_index *idx)
{
	if (strcmp(d->path.text, d->auto_path) != 0)
		return;
	export_default_path(idx, exporter(d), d->scope, d->auto_path, sizeof(d->auto_path));
	set_path(d, d->auto_path);
}

/* Whether a name with a format's extension ("out.csv") is written in
 * that format: else the status line says which to choose. */
static bool matches_format(struct export_dialog *d, struct trex_ui_ctx *ctx, const char *text)
{
	const struct trex_trace_exporter *named = trex_trace_exporter_for_path(text);

	/* chakra's name is a prefix, chakra-json's any JSON name */
	if (!named || named == exporter(d) || !exporter(d)->extensions[0])
		return true;
	trex_ui_message(ctx, "export: %s is a %s name, but the format is %s: choose %s, or rename",
	                text, named->name, exporter(d)->name, named->name);
	return false;
}

/* The path as typed, blanks around it dropped and "~/" expanded, into
 * d->target; false, with the reason said, when it names no file. */
static bool take_target(struct export_dialog *d, struct trex_ui_ctx *ctx)
{
	char text[TREX_PROMPT_MAX];
	const char *p = d->path.text;
	size_t n;

	while (*p == ' ')
		p++;
	snprintf(text, sizeof(text), "%s", p);
	n = strlen(text);
	while (n && text[n - 1] == ' ')
		text[--n] = '\0';
	d->field = EXPORT_FIELD_PATH;
	if (n == 0) {
		trex_ui_message(ctx, "export: type the %s to write",
		                is_chakra(d) ? "prefix" : "file");
		return false;
	}
	if (strcmp(text, "-") == 0) {
		trex_ui_message(ctx, "export: - is the terminal trex draws on; name a file");
		return false;
	}
	if (!matches_format(d, ctx, text))
		return false;
	export_expand_home(text, getenv("HOME"), d->target, sizeof(d->target));
	/* Enter records the path in the editor's history; the text stays */
	trex_prompt_key(&d->path, '\r');
	set_path(d, text);
	return true;
}

/* ---- opening and choosing ------------------------------------------------------------------ */

void export_dialog_open(struct export_dialog *d, struct trex_ui_ctx *ctx, struct trex_view *top)
{
	uint8_t *shown = realloc(d->shown, (size_t)trex_index_track_count(ctx->idx) + 1);

	if (!shown) {
		trex_ui_message(ctx, "out of memory");
		return;
	}
	d->shown = shown;
	trex_timeline_export_state(top, &d->st, shown);
	if (d->format >= trex_trace_exporter_count())
		d->format = 0;
	d->scope = scope_ok(d, EXPORT_SCOPE_RANGE) ? EXPORT_SCOPE_RANGE : EXPORT_SCOPE_ALL;
	d->phase = EXPORT_EDITING;
	d->field = EXPORT_FIELD_FORMAT;
	export_default_path(ctx->idx, exporter(d), d->scope, d->auto_path, sizeof(d->auto_path));
	set_path(d, d->auto_path);
	d->open = true;
}

static void step_format(struct export_dialog *d, struct trex_ui_ctx *ctx, int dir)
{
	size_t n = trex_trace_exporter_count();

	d->format = (d->format + n + (size_t)(long)dir) % n;
	if (!scope_ok(d, d->scope))
		d->scope = EXPORT_SCOPE_ALL;
	refresh_path(d, ctx->idx);
}

/* The next scope in direction dir that can be had; at the end, or when
 * none further can, the status line says why the neighbour cannot. */
static void step_scope(struct export_dialog *d, struct trex_ui_ctx *ctx, int dir)
{
	int next = (int)d->scope + dir;
	char why[200];

	for (int k = next; k >= 0 && k < EXPORT_SCOPE_COUNT; k += dir) {
		if (scope_ok(d, (enum export_scope_kind)k)) {
			d->scope = (enum export_scope_kind)k;
			refresh_path(d, ctx->idx);
			return;
		}
	}
	if (next >= 0 && next < EXPORT_SCOPE_COUNT &&
	    !export_scope_available(&d->st, exporter(d), (enum export_scope_kind)next, why,
	                            sizeof(why)))
		trex_ui_message(ctx, "%s: %s", export_scope_title((enum export_scope_kind)next),
		                why);
}

static void choice_key(struct export_dialog *d, struct trex_ui_ctx *ctx, trex_key key)
{
	int dir = 0;

	if (key == FUNC(KEY_UP) || key == FUNC(KEY_LEFT) || key == 'k' || key == CTRL('p'))
		dir = -1;
	else if (key == FUNC(KEY_DOWN) || key == FUNC(KEY_RIGHT) || key == 'j' || key == ' ' ||
	         key == CTRL('n'))
		dir = 1;
	if (dir == 0)
		trex_ui_message(ctx, "export: Up/Down choose, Tab the next field, Enter exports, "
		                     "Esc cancels");
	else if (d->field == EXPORT_FIELD_FORMAT)
		step_format(d, ctx, dir);
	else
		step_scope(d, ctx, dir);
}

/* ---- exporting ----------------------------------------------------------------------------- */

static bool on_progress(void *user, const struct trex_export_progress *p)
{
	struct export_dialog *d = user;
	int64_t now = now_ns();

	d->events = p->events;
	d->bytes = p->bytes;
	if (d->host.cancel_typed(d->host.app))
		return true;
	if (now - d->last_draw_ns >= REDRAW_NS) {
		d->last_draw_ns = now;
		d->host.redraw(d->host.app);
	}
	return false;
}

static void say_written(struct export_dialog *d, struct trex_ui_ctx *ctx,
                        const struct trex_export_progress *done)
{
	const char *name = exporter(d)->name;
	bool nodes = strncmp(name, "chakra", 6) == 0;
	char size[32] = "";

	if (done->bytes)
		snprintf(size, sizeof(size), ", %.1f MB", (double)done->bytes / 1e6);
	trex_ui_message(ctx, "wrote %s%s (%s, %s): %" PRIu64 " %s%s%s%s", d->target,
	                is_chakra(d) ? ".RANK.et" : "", name, export_scope_title(d->scope),
	                done->events,
	                nodes ? trex_plural(done->events, "node", "nodes")
	                      : trex_plural(done->events, "event", "events"),
	                size, done->note[0] ? "; " : "", done->note);
}

static void finish(struct export_dialog *d, struct trex_ui_ctx *ctx, enum trex_status st,
                   bool force, const struct trex_export_progress *done,
                   const struct trex_error *err)
{
	const char *file = err->path[0] ? err->path : d->target;

	d->phase = EXPORT_EDITING;
	if (st == TREX_EXISTS && !force) {
		d->phase = EXPORT_ASK_REPLACE;
		snprintf(d->exists, sizeof(d->exists), "%s", file);
		return;
	}
	if (st == TREX_OK) {
		d->open = false;
		say_written(d, ctx, done);
	} else if (st == TREX_CANCELLED) {
		d->open = false;
		trex_ui_message(ctx, "export cancelled: %s not written", d->target);
	} else {
		trex_ui_message(ctx, "export failed: %s: %s", file, err->message);
	}
	export_scope_release(&d->built);
}

static void run(struct export_dialog *d, struct trex_ui_ctx *ctx, bool force)
{
	struct trex_export_opts o = {
	    .scope = d->built.scope, .force = force, .progress = on_progress, .progress_user = d};
	struct trex_export_progress done = {0, 0, "", ""};
	struct trex_error err;
	enum trex_status st;

	d->phase = EXPORT_RUNNING;
	d->events = d->bytes = 0;
	d->estimate = export_scope_estimate(ctx->idx, &o.scope, d->st.filter_matches);
	d->last_draw_ns = now_ns();
	d->host.redraw(d->host.app);
	trex_error_clear(&err);
	d->host.busy(d->host.app, true);
	st = exporter(d)->write(ctx->idx, d->target, &o, &done, &err);
	d->host.busy(d->host.app, false);
	finish(d, ctx, st, force, &done, &err);
}

static void start(struct export_dialog *d, struct trex_ui_ctx *ctx)
{
	struct trex_error err;

	if (!take_target(d, ctx))
		return;
	export_scope_release(&d->built);
	if (export_scope_build(ctx->idx, &d->st, d->scope, &d->built, &err) != TREX_OK) {
		trex_ui_message(ctx, "export: %s", err.message);
		return;
	}
	run(d, ctx, false);
}

/* ---- keys ---------------------------------------------------------------------------------- */

static void editing_key(struct export_dialog *d, struct trex_ui_ctx *ctx, trex_key key)
{
	if (export_dialog_cancel_key(key)) {
		d->open = false;
		trex_ui_message(ctx, "export cancelled");
	} else if (key == '\r' || key == FUNC(KEY_ENTER)) {
		start(d, ctx);
	} else if (key == '\t') {
		d->field = (enum export_field)((d->field + 1) % EXPORT_FIELD_COUNT);
	} else if (key == FUNC(KEY_BTAB)) {
		d->field =
		    (enum export_field)((d->field + EXPORT_FIELD_COUNT - 1) % EXPORT_FIELD_COUNT);
	} else if (d->field == EXPORT_FIELD_PATH) {
		trex_prompt_key(&d->path, key);
	} else {
		choice_key(d, ctx, key);
	}
}

void export_dialog_key(struct export_dialog *d, struct trex_ui_ctx *ctx, trex_key key)
{
	key = trex_key_normalize(key);
	if (d->phase == EXPORT_EDITING) {
		editing_key(d, ctx, key);
	} else if (d->phase == EXPORT_ASK_REPLACE && (key == 'y' || key == 'Y')) {
		run(d, ctx, true);
	} else if (d->phase == EXPORT_ASK_REPLACE) {
		d->phase = EXPORT_EDITING;
		d->field = EXPORT_FIELD_PATH;
		export_scope_release(&d->built);
		trex_ui_message(ctx, "not replaced: %s", d->exists);
	}
}

/* ---- drawing ------------------------------------------------------------------------------- */

struct box {
	WINDOW *win;
	struct trex_term *term;
	int y, x, h, w;
	int line; /* the next line to draw */
};

/* One line inside the box: label (bold when its field has the focus), then
 * text in attr. */
static void box_line(struct box *b, const char *label, bool focus, const char *text,
                     unsigned long attr)
{
	int x = b->x + 2, w = b->w - 4;

	if (b->line >= b->y + b->h - 1)
		return;
	wattrset(b->win,
	         (int)trex_term_attr(b->term, focus ? TREX_ROLE_HEADER : TREX_ROLE_DEFAULT));
	trex_draw_text(b->win, b->term, b->line, x, label, LABEL_W);
	wattrset(b->win, (int)attr);
	trex_draw_text_cut(b->win, b->term, b->line, x + LABEL_W, text, w - LABEL_W);
	b->line++;
}

static unsigned long item_attr(struct box *b, bool chosen, bool focus, bool enabled)
{
	if (chosen && focus)
		return trex_term_attr(b->term, TREX_ROLE_CURSOR);
	if (!enabled)
		return trex_term_attr(b->term, TREX_ROLE_DIM);
	return trex_term_attr(b->term, chosen ? TREX_ROLE_SELECTION : TREX_ROLE_DEFAULT);
}

static void draw_formats(struct export_dialog *d, struct box *b, bool compact)
{
	bool focus = d->field == EXPORT_FIELD_FORMAT;
	char text[256];

	for (size_t i = 0; i < trex_trace_exporter_count(); i++) {
		const struct trex_trace_exporter *ex = trex_trace_exporter_at(i);

		if (compact && i != d->format)
			continue;
		snprintf(text, sizeof(text), "(%c) %-12s %s", i == d->format ? '*' : ' ', ex->name,
		         ex->summary);
		box_line(b, i == 0 || compact ? "Format" : "", focus, text,
		         item_attr(b, i == d->format, focus, true));
	}
}

static void draw_scopes(struct export_dialog *d, const struct trex_index *idx, struct box *b,
                        bool compact)
{
	bool focus = d->field == EXPORT_FIELD_SCOPE;
	char label[200], why[200], text[420];

	for (int k = 0; k < EXPORT_SCOPE_COUNT; k++) {
		bool ok = export_scope_available(&d->st, exporter(d), (enum export_scope_kind)k,
		                                 why, sizeof(why));

		if (compact && k != (int)d->scope)
			continue;
		export_scope_label(idx, &d->st, (enum export_scope_kind)k, label, sizeof(label));
		snprintf(text, sizeof(text), "(%c) %s%s%s", k == (int)d->scope ? '*' : ' ', label,
		         ok ? "" : " - ", ok ? "" : why);
		box_line(b, k == 0 || compact ? "Scope" : "", focus, text,
		         item_attr(b, k == (int)d->scope, focus, ok));
	}
}

/* The path, scrolled so that the cursor shows; returns the cursor's column. */
static int draw_path(struct export_dialog *d, struct box *b)
{
	bool focus = d->field == EXPORT_FIELD_PATH && d->phase == EXPORT_EDITING;
	int avail = b->w - 4 - LABEL_W - 1;
	const char *text = d->path.text, *cursor = d->path.text + d->path.cursor;

	while (text < cursor && trex_text_cols(text, (size_t)(cursor - text)) > avail) {
		size_t k = trex_utf8_len((const unsigned char *)text, strlen(text));

		text += k ? k : 1; /* a whole character off the left */
	}
	box_line(b, is_chakra(d) ? "Prefix" : "Path", focus, text,
	         trex_term_attr(b->term, focus ? TREX_ROLE_PROMPT : TREX_ROLE_DEFAULT));
	return b->x + 2 + LABEL_W + trex_text_cols(text, (size_t)(cursor - text));
}

static void draw_foot(struct export_dialog *d, struct box *b)
{
	char text[TREX_PROMPT_MAX + 64], bar[160];

	b->line = b->y + b->h - 2;
	if (d->phase == EXPORT_ASK_REPLACE) {
		snprintf(text, sizeof(text), "%s exists; replace it? (y/n)", d->exists);
		box_line(b, "", false, text, trex_term_attr(b->term, TREX_ROLE_WARNING));
	} else if (d->phase == EXPORT_RUNNING) {
		export_progress_text(d->events, d->bytes, d->estimate, false, BAR_W, bar,
		                     sizeof(bar));
		snprintf(text, sizeof(text), "%s  Esc: cancel", bar);
		box_line(b, "Writing", true, text, trex_term_attr(b->term, TREX_ROLE_DEFAULT));
	} else {
		box_line(b, "", false,
		         b->term->utf8 ? "Tab: next field  \xe2\x86\x91\xe2\x86\x93: choose  "
		                         "Enter: export  Esc: cancel"
		                       : "Tab: next field  Up/Down: choose  Enter: export  "
		                         "Esc: cancel",
		         trex_term_attr(b->term, TREX_ROLE_DIM));
	}
}

/* Formats, scopes, the path and the foot line, with their borders. */
#define FULL_LINES(d) ((int)trex_trace_exporter_count() + EXPORT_SCOPE_COUNT + 4)
#define COMPACT_LINES 6

bool export_dialog_draw(struct export_dialog *d, WINDOW *win, struct trex_term *term,
                        const struct trex_ui_ctx *ctx, const struct trex_layout *lay)
{
	int rows, cols, room = lay->status.y, cursor_x, path_y;
	bool compact = room < FULL_LINES(d);
	struct box b = {win, term, 0, 0, compact ? COMPACT_LINES : FULL_LINES(d), 0, 0};
	unsigned long normal = trex_term_attr(term, TREX_ROLE_DEFAULT);

	getmaxyx(win, rows, cols);
	(void)rows;
	b.h = b.h < room ? b.h : room;
	b.w = cols - 2 < BOX_W_MAX ? cols - 2 : BOX_W_MAX;
	b.x = (cols - b.w) / 2;
	b.y = (room - b.h) / 2;
	for (int y = b.y + 1; y < b.y + b.h - 1; y++)
		trex_draw_fill(win, y, b.x + 1, b.w - 2, normal);
	list_menu_box(win, term, b.y, b.x, b.h, b.w, " Export the trace ");
	b.line = b.y + 1;
	draw_formats(d, &b, compact);
	draw_scopes(d, ctx->idx, &b, compact);
	path_y = b.line;
	cursor_x = draw_path(d, &b);
	draw_foot(d, &b);
	if (d->field != EXPORT_FIELD_PATH || d->phase != EXPORT_EDITING)
		return false;
	wmove(win, path_y, cursor_x);
	return true;
}
