#include "config.h"

#include "trex/ui/app.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "app_config.h"
#include "export_dialog.h"
#include "timeline_compare.h"
#include "trex/analysis/integrity.h"
#include "trex/analysis/labels.h"
#include "trex/core/index_file.h"
#include "trex/core/schedule.h"
#include "trex/export/atomic_file.h"
#include "trex/ui/term.h"
#include "trex/ui/text.h"
#include "trex/ui/view.h"

#define VIEW_STACK_MAX 8
#define READ_ERRORS_MAX 100 /* consecutive read errors before giving up (input gone) */
#define TYPEAHEAD_MAX 32    /* keys typed while an export runs, kept for after it */
#define KEY_RESIZE_CODE (TREX_KEY_FUNC | (trex_key)KEY_RESIZE)
#define KEY_MOUSE_CODE (TREX_KEY_FUNC | (trex_key)KEY_MOUSE)

/* The top-level views (TREX_ROOT_VIEW_INFO), each with its own stack of
 * drilled-in views (the kernel instances, help), so that jumping to the
 * timeline and back keeps where the user was. */
enum app_root {
#define APP_ROOT_ENUM(id, action, make) ROOT_##id,
	TREX_ROOT_VIEW_INFO(APP_ROOT_ENUM)
#undef APP_ROOT_ENUM
	    ROOT_COUNT
};

static const struct {
	enum trex_action open;
	struct trex_view *(*make)(struct trex_ui_ctx *ctx);
} root_views[ROOT_COUNT] = {
#define APP_ROOT_DESC(id, action, make) {TREX_ACTION_##action, make},
    TREX_ROOT_VIEW_INFO(APP_ROOT_DESC)
#undef APP_ROOT_DESC
};

struct view_stack {
	struct trex_view *v[VIEW_STACK_MAX];
	int depth;
};

struct app {
	struct trex_ui_ctx ctx;
	struct trex_term term;
	struct trex_keymap *km;
	struct view_stack roots[ROOT_COUNT];
	enum app_root cur, prev;
	bool quit;
	struct app_input *script;
	size_t script_n, script_pos;
	int read_errors;
	struct app_input mouse; /* the last mouse event read */
	struct export_dialog export;
	trex_key typeahead[TYPEAHEAD_MAX];
	size_t typeahead_n;
};

static struct view_stack *stack(struct app *a)
{
	return &a->roots[a->cur];
}

static struct trex_view *top(struct app *a)
{
	return stack(a)->v[stack(a)->depth - 1];
}

/* ---- what views ask for ---------------------------------------------------------- */

void trex_ui_message(struct trex_ui_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
	va_end(ap);
}

void trex_ui_prompt(struct trex_ui_ctx *ctx, struct trex_view *v,
                    const struct trex_prompt_spec *spec)
{
	trex_prompt_open(&ctx->prompt, v, spec);
}

void trex_ui_push_view(struct trex_ui_ctx *ctx, struct trex_view *view)
{
	if (ctx->request.kind == TREX_UI_REQ_PUSH_VIEW && ctx->request.view)
		ctx->request.view->ops->free(ctx->request.view);
	ctx->request = (struct trex_ui_request){.kind = TREX_UI_REQ_PUSH_VIEW, .view = view};
}

void trex_ui_show_slice(struct trex_ui_ctx *ctx, uint32_t slice)
{
	trex_ui_push_view(ctx, NULL);
	ctx->request = (struct trex_ui_request){.kind = TREX_UI_REQ_SHOW_SLICE, .slice = slice};
}

void trex_ui_show_range(struct trex_ui_ctx *ctx, int64_t t0, int64_t t1, uint32_t slice)
{
	trex_ui_push_view(ctx, NULL);
	ctx->request = (struct trex_ui_request){
	    .kind = TREX_UI_REQ_SHOW_RANGE, .slice = slice, .t0 = t0, .t1 = t1};
}

void trex_ui_show_track(struct trex_ui_ctx *ctx, uint32_t track, int64_t t, bool has_time)
{
	trex_ui_push_view(ctx, NULL);
	ctx->request = (struct trex_ui_request){.kind = TREX_UI_REQ_SHOW_TRACK,
	                                        .slice = TREX_NONE,
	                                        .t0 = t,
	                                        .track = track,
	                                        .has_time = has_time};
}

/* ---- keys ------------------------------------------------------------------------ */

static trex_key read_key(struct app *a)
{
	wint_t wc;
	int r;

	if (a->script_pos < a->script_n) {
		a->mouse = a->script[a->script_pos++];
		return a->mouse.key;
	}
	if (a->typeahead_n) {
		trex_key k = a->typeahead[0];

		memmove(a->typeahead, a->typeahead + 1, --a->typeahead_n * sizeof(a->typeahead[0]));
		return k;
	}
	r = wget_wch(stdscr, &wc);
	if (r == ERR) {
		if (++a->read_errors >= READ_ERRORS_MAX)
			a->quit = true;
		return 0;
	}
	a->read_errors = 0;
	if (r == KEY_CODE_YES && wc == KEY_MOUSE) {
		MEVENT ev;

		if (getmouse(&ev) != OK)
			return 0;
		a->mouse = (struct app_input){KEY_MOUSE_CODE, ev.y, ev.x, (unsigned long)ev.bstate};
		return KEY_MOUSE_CODE;
	}
	if (r == KEY_CODE_YES)
		return TREX_KEY_FUNC | (trex_key)wc;
	return (trex_key)wc;
}

/* ---- views ------------------------------------------------------------------------ */

static struct trex_view *root_new(struct app *a, enum app_root r)
{
	return (unsigned)r < ROOT_COUNT ? root_views[r].make(&a->ctx) : NULL;
}

/* The top-level view that action opens, or ROOT_COUNT. */
static enum app_root root_opened_by(enum trex_action act)
{
	for (int r = 0; r < ROOT_COUNT; r++)
		if (root_views[r].open == act)
			return (enum app_root)r;
	return ROOT_COUNT;
}

/* Makes r the current top-level view, creating it on first use. */
static bool switch_root(struct app *a, enum app_root r)
{
	struct view_stack *s;

	if ((unsigned)r >= ROOT_COUNT)
		return false;
	s = &a->roots[r];
	if (s->depth == 0) {
		if (!(s->v[0] = root_new(a, r))) {
			if (!a->ctx.msg[0])
				trex_ui_message(&a->ctx, "out of memory");
			return false;
		}
		s->depth = 1;
	}
	if (r != a->cur)
		a->prev = a->cur;
	a->cur = r;
	return true;
}

static bool push_view(struct app *a, struct trex_view *v)
{
	if (stack(a)->depth >= VIEW_STACK_MAX) {
		v->ops->free(v);
		trex_ui_message(&a->ctx, "too many views open; close one with q");
		return false;
	}
	stack(a)->v[stack(a)->depth++] = v;
	return true;
}

/* Closes the top view; a top-level view closes into the timeline, which
 * quits. */
static void pop_view(struct app *a)
{
	struct view_stack *s = stack(a);

	if (s->depth > 1) {
		s->depth--;
		s->v[s->depth]->ops->free(s->v[s->depth]);
	} else if (a->cur != ROOT_TIMELINE) {
		switch_root(a, ROOT_TIMELINE);
	} else {
		a->quit = true;
	}
}

/* Back: out of a drilled-in view, else to the previous top-level view. */
static void go_back(struct app *a)
{
	if (stack(a)->depth > 1 || a->prev == a->cur)
		pop_view(a);
	else
		switch_root(a, a->prev);
}

static bool is_help(const struct trex_view *v)
{
	return strcmp(v->ops->name, "help") == 0;
}

/* The timeline, back at its own view (what was drilled into it closed). */
static struct trex_view *timeline_root(struct app *a)
{
	struct view_stack *tl = &a->roots[ROOT_TIMELINE];

	while (tl->depth > 1) {
		tl->depth--;
		tl->v[tl->depth]->ops->free(tl->v[tl->depth]);
	}
	switch_root(a, ROOT_TIMELINE);
	return tl->v[0];
}

static void show_slice(struct app *a, uint32_t slice)
{
	if (!trex_timeline_show_slice(timeline_root(a), slice))
		trex_ui_message(&a->ctx, "cannot show that slice in the timeline");
}

static void show_range(struct app *a, const struct trex_ui_request *r)
{
	if (!trex_timeline_show_range(timeline_root(a), r->t0, r->t1, r->slice))
		trex_ui_message(&a->ctx, "cannot show that time in the timeline");
}

static void show_track(struct app *a, const struct trex_ui_request *r)
{
	if (!trex_timeline_show_track(timeline_root(a), r->track, r->t0, r->has_time))
		trex_ui_message(&a->ctx, "cannot show that track in the timeline");
}

static void run_request(struct app *a)
{
	struct trex_ui_request r = a->ctx.request;

	a->ctx.request = (struct trex_ui_request){.kind = TREX_UI_REQ_NONE};
	if (r.kind == TREX_UI_REQ_PUSH_VIEW && r.view)
		push_view(a, r.view);
	else if (r.kind == TREX_UI_REQ_SHOW_SLICE)
		show_slice(a, r.slice);
	else if (r.kind == TREX_UI_REQ_SHOW_RANGE)
		show_range(a, &r);
	else if (r.kind == TREX_UI_REQ_SHOW_TRACK)
		show_track(a, &r);
}

/* ---- app-level actions ----------------------------------------------------------- */

static bool app_supports(enum trex_action act)
{
	switch (act) {
	case TREX_ACTION_QUIT:
	case TREX_ACTION_VIEW_CLOSE:
	case TREX_ACTION_HELP:
	case TREX_ACTION_REDRAW:
	case TREX_ACTION_TOGGLE_TIMELINE:
	case TREX_ACTION_BACK:
	case TREX_ACTION_SUSPEND:
	case TREX_ACTION_EXPORT_TRACE:
		return true;
	default:
		return root_opened_by(act) != ROOT_COUNT;
	}
}

bool trex_ui_action_supported(enum trex_action action)
{
	return action > TREX_ACTION_NONE && action < TREX_ACTION_COUNT &&
	       (trex_timeline_supports(action) || trex_table_view_supports(action) ||
	        app_supports(action));
}

static void toggle_help(struct app *a)
{
	struct trex_view *v = top(a), *help;
	bool supported[TREX_ACTION_COUNT];

	if (is_help(v)) {
		pop_view(a);
		return;
	}
	for (int i = 0; i < TREX_ACTION_COUNT; i++)
		supported[i] = i > 0 && (v->ops->supports((enum trex_action)i) ||
		                         app_supports((enum trex_action)i));
	help = trex_help_view_new(&a->ctx, v->ops->keymap, supported);
	if (!help) {
		trex_ui_message(&a->ctx, "out of memory");
		return;
	}
	push_view(a, help);
}

/* C-z: give the terminal back, stop; fg resumes here. */
static void suspend(struct app *a)
{
	if (a->script_n) {
		trex_ui_message(&a->ctx, "not suspended in a scripted run");
		return;
	}
	def_prog_mode();
	endwin();
	raise(SIGTSTP);
	reset_prog_mode();
	clearok(curscr, TRUE);
}

static void app_dispatch(struct app *a, enum trex_action act)
{
	switch (act) {
	case TREX_ACTION_QUIT:
		a->quit = true;
		break;
	case TREX_ACTION_VIEW_CLOSE:
		pop_view(a);
		break;
	case TREX_ACTION_BACK:
		go_back(a);
		break;
	case TREX_ACTION_HELP:
		toggle_help(a);
		break;
	case TREX_ACTION_REDRAW:
		clearok(curscr, TRUE);
		break;
	case TREX_ACTION_TOGGLE_TIMELINE:
		switch_root(a, a->cur == ROOT_TIMELINE ? ROOT_KERNELS : ROOT_TIMELINE);
		break;
	case TREX_ACTION_SUSPEND:
		suspend(a);
		break;
	case TREX_ACTION_EXPORT_TRACE:
		export_dialog_open(&a->export, &a->ctx, top(a));
		break;
	case TREX_ACTION_OPEN_TIMELINE:
		/* over a view opened from it (a kernel's stall report): the timeline */
		if (a->cur == ROOT_TIMELINE)
			timeline_root(a);
		else
			switch_root(a, ROOT_TIMELINE);
		break;
	default:
		switch_root(a, root_opened_by(act));
		break;
	}
}

/* A key while the prompt is open: edit, then tell the view that opened it. */
static void prompt_key(struct app *a, trex_key key)
{
	struct trex_prompt *p = &a->ctx.prompt;
	struct trex_view *owner = p->owner;
	enum trex_prompt_result r = trex_prompt_key(p, key);

	if (r == TREX_PROMPT_CHANGED && p->spec.on_change)
		p->spec.on_change(owner, p->text);
	else if (r == TREX_PROMPT_SUBMIT && p->spec.on_submit)
		p->spec.on_submit(owner, p->text);
	else if (r == TREX_PROMPT_CANCEL && p->spec.on_cancel)
		p->spec.on_cancel(owner);
}

static void mouse_event(struct app *a)
{
	struct trex_view *v = top(a);

	if (v->ops->mouse)
		v->ops->mouse(v, a->mouse.y, a->mouse.x, a->mouse.bstate);
}

/* A key: the top view's keymap names the action; the view handles it if
 * it supports it, else (or when the view passes it on: a table's Esc
 * with nothing left to clear) the app; anything else does nothing. */
static void handle_key(struct app *a, trex_key key, bool too_small)
{
	struct trex_view *v = top(a);
	enum trex_action act;

	if (a->ctx.prompt.active) {
		prompt_key(a, key);
		run_request(a);
		return;
	}
	a->ctx.msg[0] = '\0';
	if (a->export.open) {
		if (key != KEY_MOUSE_CODE)
			export_dialog_key(&a->export, &a->ctx, key);
		return;
	}
	if (key == KEY_MOUSE_CODE) {
		if (!too_small)
			mouse_event(a);
		run_request(a);
		return;
	}
	act = trex_keymap_lookup(a->km, v->ops->keymap, key);
	if (act == TREX_ACTION_NONE)
		return;
	if (too_small) {
		if (act == TREX_ACTION_QUIT || act == TREX_ACTION_VIEW_CLOSE)
			a->quit = true;
		return;
	}
	if ((!v->ops->supports(act) || v->ops->dispatch(v, act) == TREX_IGNORED) &&
	    app_supports(act))
		app_dispatch(a, act);
	run_request(a);
}

/* ---- drawing ---------------------------------------------------------------------- */

static void draw_too_small(struct app *a, int cols, int rows)
{
	char lines[2][64];
	int y = rows / 2 - 1;

	snprintf(lines[0], sizeof(lines[0]), "enlarge the window");
	snprintf(lines[1], sizeof(lines[1]), "need %dx%d, have %dx%d", TREX_UI_MIN_COLS,
	         TREX_UI_MIN_ROWS, cols, rows);
	wattrset(stdscr, (int)trex_term_attr(&a->term, TREX_ROLE_WARNING));
	for (int i = 0; i < 2 && y + i >= 0 && y + i < rows; i++) {
		int n = (int)strlen(lines[i]), x = n < cols ? (cols - n) / 2 : 0;

		trex_draw_text(stdscr, &a->term, y + i, x, lines[i], cols - x);
	}
}

/* The open prompt over the last status row: label, then the text scrolled
 * so that the cursor stays visible; the terminal cursor shows where typing goes. */
static void draw_prompt(struct app *a, const struct trex_layout *lay)
{
	const struct trex_prompt *p = &a->ctx.prompt;
	int y = lay->status.y + lay->status.h - 1, w = lay->status.w;
	const char *text = p->text, *cursor = p->text + p->cursor;
	unsigned long attr = trex_term_attr(&a->term, TREX_ROLE_PROMPT);
	int label_w, avail;

	wattrset(stdscr, (int)attr);
	trex_draw_fill(stdscr, y, 0, w, attr);
	label_w = trex_draw_text(stdscr, &a->term, y, 0, p->spec.label, w / 2);
	avail = w - label_w - 1;
	if (avail < 1)
		avail = 1;
	while (text < cursor && trex_text_cols(text, (size_t)(cursor - text)) > avail) {
		text++; /* drop whole characters from the left until the cursor fits */
		while (((unsigned char)*text & 0xc0) == 0x80)
			text++;
	}
	trex_draw_text(stdscr, &a->term, y, label_w, text, avail);
	move(y, label_w + trex_text_cols(text, (size_t)(cursor - text)));
}

static bool draw(struct app *a)
{
	struct trex_layout lay;
	int rows, cols;
	bool prompt = a->ctx.prompt.active;

	getmaxyx(stdscr, rows, cols);
	trex_layout_compute(cols, rows, &lay);
	werase(stdscr);
	if (lay.too_small) {
		draw_too_small(a, cols, rows);
		prompt = false;
	} else {
		top(a)->ops->draw(top(a), stdscr, &lay);
		if (prompt)
			draw_prompt(a, &lay);
		else if (a->export.open)
			prompt = export_dialog_draw(&a->export, stdscr, &a->term, &a->ctx, &lay);
	}
	curs_set(prompt ? 1 : 0);
	wattrset(stdscr, A_NORMAL);
	wnoutrefresh(stdscr);
	doupdate();
	return lay.too_small;
}

/* The screen as text, written as exports are (a temp file renamed over
 * path; an existing path replaced only with --force). */
static enum trex_status dump_screen(const char *path, bool force, struct trex_error *err)
{
	int rows, cols;
	struct trex_atomic_file *af;
	FILE *f;
	wchar_t *line;
	enum trex_status st = trex_atomic_open(path, force, &af, &f, err);

	if (st != TREX_OK)
		return st;
	getmaxyx(stdscr, rows, cols);
	line = calloc((size_t)cols + 1, sizeof(*line));
	for (int y = 0; line && y < rows; y++) {
		int n = mvwinnwstr(stdscr, y, 0, line, cols);
		char mb[MB_LEN_MAX];
		mbstate_t ps;

		memset(&ps, 0, sizeof(ps));
		while (n > 0 && line[n - 1] == L' ')
			n--;
		for (int i = 0; i < n; i++) {
			size_t k = wcrtomb(mb, line[i], &ps);

			fwrite(k == (size_t)-1 ? "?" : mb, 1, k == (size_t)-1 ? 1 : k, f);
		}
		fputc('\n', f);
	}
	if (!line) {
		trex_atomic_abort(af);
		return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
	}
	free(line);
	return trex_atomic_commit(af, err);
}

/* ---- while an export runs (export_dialog.h) ---------------------------------------------- */

static void export_redraw(void *app)
{
	draw(app);
}

/* Keys typed meanwhile: in a scripted run the script's next key, taken
 * only when it cancels; else what the terminal has, the rest kept. */
static bool export_cancel_typed(void *app)
{
	struct app *a = app;
	bool cancel = false;
	wint_t wc;
	int r;

	if (a->script_pos < a->script_n) {
		cancel = export_dialog_cancel_key(a->script[a->script_pos].key);
		a->script_pos += cancel;
		return cancel;
	}
	wtimeout(stdscr, 0);
	while (!cancel && a->typeahead_n < TYPEAHEAD_MAX && (r = wget_wch(stdscr, &wc)) != ERR) {
		trex_key k = r == KEY_CODE_YES ? TREX_KEY_FUNC | (trex_key)wc : (trex_key)wc;

		cancel = export_dialog_cancel_key(k);
		if (!cancel && k != KEY_MOUSE_CODE && k != KEY_RESIZE_CODE)
			a->typeahead[a->typeahead_n++] = k;
	}
	wtimeout(stdscr, -1);
	return cancel;
}

/* Raw mode while writing: C-c arrives as a key (and cancels) instead of
 * killing trex with its temporary file. */
static void export_busy(void *app, bool on)
{
	(void)app;
	if (on)
		raw();
	else
		cbreak();
}

/* ---- the loop --------------------------------------------------------------------- */

static enum trex_status loop(struct app *a, const struct trex_ui_opts *o, struct trex_error *err)
{
	bool too_small = draw(a);

	while (!a->quit) {
		trex_key key;

		if (o->dump_screen && a->script_pos >= a->script_n)
			return dump_screen(o->dump_screen, o->force, err);
		key = read_key(a);
		if (key == 0)
			continue;
		if (key != KEY_RESIZE_CODE)
			handle_key(a, key, too_small);
		if (!a->quit)
			too_small = draw(a);
	}
	return TREX_OK;
}

static void app_free(struct app *a)
{
	for (int r = 0; r < ROOT_COUNT; r++) {
		struct view_stack *st = &a->roots[r];

		while (st->depth > 0) {
			st->depth--;
			st->v[st->depth]->ops->free(st->v[st->depth]);
		}
	}
	if (a->ctx.request.view)
		a->ctx.request.view->ops->free(a->ctx.request.view);
	trex_prompt_free(&a->ctx.prompt);
	export_dialog_free(&a->export);
	trex_keymap_free(a->km);
	free(a->script);
}

static enum trex_status app_prepare(struct app *a, const struct trex_ui_opts *o,
                                    struct trex_theme *theme, struct trex_error *err)
{
	enum trex_status st;

	if (!(a->km = trex_keymap_new()))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	st = app_load_keys(a->km, o->keys, err);
	if (st == TREX_OK)
		st = app_load_theme(theme, o->theme, err);
	if (st == TREX_OK)
		st = app_parse_script(o->script, &a->script, &a->script_n, err);
	return st;
}

/* Files that claim one rank: said on the first screen, not only on stderr
 * (printed when the interface is gone); "" when none do. */
static void rank_clash_notice(struct trex_ui_ctx *ctx, char *buf, size_t size)
{
	uint32_t n = trex_rank_clash_count(ctx->idx);
	size_t len;

	buf[0] = '\0';
	if (n == 0)
		return;
	trex_rank_clash_warning(ctx->idx, 0, buf, size);
	len = strlen(buf);
	if (n > 1)
		snprintf(buf + len, size - len, " (and %u more ranks claimed by several files)",
		         n - 1);
}

/* Cuts the "; "-separated phrases of text to those that fit cols columns
 * with "; ..." after them (text unchanged when it fits); when not even the
 * first does, text becomes "damaged input". */
static void fit_phrases(char *text, int cols)
{
	size_t len = strlen(text), keep = 0;

	if (trex_text_cols(text, len) <= cols)
		return;
	for (char *p = strstr(text, "; "); p; p = strstr(p + 2, "; ")) {
		if (trex_text_cols(text, (size_t)(p - text)) + 5 > cols)
			break;
		keep = (size_t)(p - text);
	}
	if (keep)
		memcpy(text + keep, "; ...", 6);
	else
		memcpy(text, "damaged input", 14);
}

/* Damaged input: what was lost, in the words of the CLI's warning, and
 * the key of the integrity view in the timeline's keymap (the first
 * screen's), e.g. "1.2 MB ignored after truncation; !: integrity", fit
 * to width columns by whole phrases; "" when every file was read whole. */
static void damage_notice(struct trex_ui_ctx *ctx, int width, char *buf, size_t size)
{
	uint32_t n = trex_index_file_count(ctx->idx), damaged = 0, which = 0;
	/* what fits the message: the run's label cut, then the loss */
	char who[64] = "", run[60], lost[TREX_UI_MSG_MAX - 96], key[TREX_KEY_NAME_MAX], hint[64];
	trex_key k;

	for (uint32_t i = 0; i < n; i++) {
		if (trex_file_lost_data(trex_index_file(ctx->idx, i))) {
			damaged++;
			which = i;
		}
	}
	buf[0] = '\0';
	if (damaged == 0)
		return;
	if (n > 1 && damaged == 1) {
		trex_file_label(ctx->idx, which, run, sizeof(run));
		snprintf(who, sizeof(who), "%s: ", run);
	} else if (n > 1) {
		snprintf(who, sizeof(who), "%u of %u files: ", damaged, n);
	}
	trex_loss_text(ctx->idx, damaged == 1 ? which : TREX_NONE, false, lost, sizeof(lost));
	if (trex_keymap_keys(ctx->km, TREX_KEYMAP_TIMELINE, TREX_ACTION_OPEN_INTEGRITY, &k, 1)) {
		trex_key_name(k, key, sizeof(key));
		snprintf(hint, sizeof(hint), "; %s: integrity", key);
	} else {
		snprintf(hint, sizeof(hint), "; `trex integrity` lists it");
	}
	fit_phrases(lost,
	            width - trex_text_cols(who, strlen(who)) - trex_text_cols(hint, strlen(hint)));
	snprintf(buf, size, "%s%s%s", who, lost, hint);
}

/* An execution graph's times are a schedule's: said on the first screen
 * (after damage and rank clashes, which matter more); "" for a trace. */
static void schedule_notice(struct trex_ui_ctx *ctx, char *buf, size_t size)
{
	const struct trex_graph *g = trex_index_graph(ctx->idx);
	const struct trex_schedule *s = g ? trex_graph_schedule(g) : NULL;

	buf[0] = '\0';
	if (s)
		trex_schedule_describe(s, buf, size);
}

/* What the first screen says: damage, files that claim one rank, then an
 * execution graph's estimated times. */
static void open_notice(struct trex_ui_ctx *ctx)
{
	char damage[TREX_UI_MSG_MAX], clash[TREX_UI_MSG_MAX], sched[TREX_UI_MSG_MAX];
	char compare[TREX_UI_MSG_MAX];
	const char *parts[4] = {damage, compare, clash, sched};
	size_t len = 0;

	/* the message row starts one column in */
	damage_notice(ctx, getmaxx(stdscr) - 1, damage, sizeof(damage));
	tl_compare_notice(ctx, compare, sizeof(compare));
	rank_clash_notice(ctx, clash, sizeof(clash));
	schedule_notice(ctx, sched, sizeof(sched));
	for (int i = 0; i < 4; i++) {
		if (!parts[i][0] || len >= sizeof(ctx->msg))
			continue;
		len += (size_t)snprintf(ctx->msg + len, sizeof(ctx->msg) - len, "%s%s",
		                        len ? "; " : "", parts[i]);
	}
}

enum trex_status trex_ui_run(const struct trex_index *idx, const struct trex_ui_opts *o,
                             struct trex_error *err)
{
	struct app a;
	struct trex_theme theme;
	struct trex_term_opts to = {o->color, o->ascii, false, !o->no_mouse};
	enum trex_status st;

	memset(&a, 0, sizeof(a));
	export_dialog_init(&a.export, &(struct export_dialog_host){
	                                  &a, export_redraw, export_cancel_typed, export_busy});
	to.headless = o->dump_screen && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO));
	st = app_prepare(&a, o, &theme, err);
	if (st == TREX_OK)
		st = trex_term_start(&a.term, &to, &theme, err);
	if (st != TREX_OK) {
		app_free(&a);
		return st;
	}
	a.ctx.term = &a.term;
	a.ctx.idx = idx;
	a.ctx.km = a.km;
	a.ctx.title = o->title ? o->title : "";
	a.ctx.catset = o->catset;
	a.ctx.ideal = o->ideal;
	a.ctx.core_mhz = o->core_mhz;
	a.ctx.step_pattern = o->step_pattern;
	a.ctx.diff_rules = o->diff_rules;
	a.ctx.diff_min_ns = o->diff_min_ns;
	a.ctx.diff_min_pct = o->diff_min_pct;
	a.ctx.profile = o->profile;
	a.ctx.baseline = o->baseline;
	a.ctx.sources = o->sources;
	a.ctx.metrics = o->metrics;
	a.ctx.metric_names = o->metric_names;
	a.ctx.metric_count = o->metric_count;
	a.ctx.compare = o->compare;
	a.ctx.compare_label = o->compare_label ? o->compare_label : "";
	trex_prompt_init(&a.ctx.prompt);
	a.cur = a.prev = ROOT_TIMELINE;
	if (switch_root(&a, ROOT_TIMELINE)) {
		/* What opening an index file and laying out the rows read (every
		 * section, each track's first slices) need not stay resident: the
		 * views map in what they draw. */
		trex_index_hand_back(idx);
		if (o->compare)
			trex_index_hand_back(o->compare);
		open_notice(&a.ctx);
		st = loop(&a, o, err);
	} else {
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	app_free(&a);
	trex_term_stop(&a.term);
	return st;
}
