#include "config.h"

#include "trex/ui/app.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "app_config.h"
#include "trex/ui/term.h"
#include "trex/ui/view.h"

#define VIEW_STACK_MAX 4
#define READ_ERRORS_MAX 100 /* consecutive read errors before giving up (input gone) */
#define KEY_RESIZE_CODE (TREX_KEY_FUNC | (trex_key)KEY_RESIZE)

struct app {
	struct trex_ui_ctx ctx;
	struct trex_term term;
	struct trex_keymap *km;
	struct trex_view *stack[VIEW_STACK_MAX];
	int depth;
	bool quit;
	trex_key *script;
	size_t script_n, script_pos;
	int read_errors;
};

static struct trex_view *top(struct app *a)
{
	return a->stack[a->depth - 1];
}

/* ---- keys ------------------------------------------------------------------------ */

static trex_key read_key(struct app *a)
{
	wint_t wc;
	int r;

	if (a->script_pos < a->script_n)
		return a->script[a->script_pos++];
	r = wget_wch(stdscr, &wc);
	if (r == ERR) {
		if (++a->read_errors >= READ_ERRORS_MAX)
			a->quit = true;
		return 0;
	}
	a->read_errors = 0;
	if (r == KEY_CODE_YES)
		return TREX_KEY_FUNC | (trex_key)wc;
	return (trex_key)wc;
}

/* ---- app-level actions ----------------------------------------------------------- */

static bool app_supports(const struct app *a, enum trex_action act)
{
	switch (act) {
	case TREX_ACTION_QUIT:
	case TREX_ACTION_VIEW_CLOSE:
	case TREX_ACTION_HELP:
	case TREX_ACTION_REDRAW:
		return true;
	case TREX_ACTION_BACK:
		return a->depth > 1;
	default:
		return false;
	}
}

bool trex_ui_action_supported(enum trex_action action)
{
	struct app top_level = {.depth = 1};

	return action > TREX_ACTION_NONE && action < TREX_ACTION_COUNT &&
	       (trex_timeline_supports(action) || app_supports(&top_level, action));
}

static void pop_view(struct app *a)
{
	if (a->depth <= 1) {
		a->quit = true;
		return;
	}
	a->depth--;
	a->stack[a->depth]->ops->free(a->stack[a->depth]);
}

static void toggle_help(struct app *a)
{
	struct trex_view *v = top(a), *help;
	bool supported[TREX_ACTION_COUNT];

	if (a->depth > 1) {
		pop_view(a);
		return;
	}
	for (int i = 0; i < TREX_ACTION_COUNT; i++)
		supported[i] = i > 0 && (v->ops->supports((enum trex_action)i) ||
		                         app_supports(a, (enum trex_action)i));
	help = trex_help_view_new(&a->ctx, v->ops->keymap, supported);
	if (!help) {
		snprintf(a->ctx.msg, sizeof(a->ctx.msg), "out of memory");
		return;
	}
	a->stack[a->depth++] = help;
}

static void app_dispatch(struct app *a, enum trex_action act)
{
	switch (act) {
	case TREX_ACTION_QUIT:
		a->quit = true;
		break;
	case TREX_ACTION_VIEW_CLOSE:
	case TREX_ACTION_BACK:
		pop_view(a);
		break;
	case TREX_ACTION_HELP:
		toggle_help(a);
		break;
	case TREX_ACTION_REDRAW:
		clearok(curscr, TRUE);
		break;
	default:
		break;
	}
}

/* A key: the top view's keymap names the action; the view handles it if
 * it supports it, else the app; anything else does nothing. */
static void handle_key(struct app *a, trex_key key, bool too_small)
{
	struct trex_view *v = top(a);
	enum trex_action act = trex_keymap_lookup(a->km, v->ops->keymap, key);

	a->ctx.msg[0] = '\0';
	if (act == TREX_ACTION_NONE)
		return;
	if (too_small) {
		if (act == TREX_ACTION_QUIT || act == TREX_ACTION_VIEW_CLOSE)
			a->quit = true;
		return;
	}
	if (v->ops->supports(act))
		v->ops->dispatch(v, act);
	else if (app_supports(a, act))
		app_dispatch(a, act);
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

static bool draw(struct app *a)
{
	struct trex_layout lay;
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	trex_layout_compute(cols, rows, &lay);
	werase(stdscr);
	if (lay.too_small)
		draw_too_small(a, cols, rows);
	else
		top(a)->ops->draw(top(a), stdscr, &lay);
	wattrset(stdscr, A_NORMAL);
	wnoutrefresh(stdscr);
	doupdate();
	return lay.too_small;
}

static enum trex_status dump_screen(const char *path, struct trex_error *err)
{
	int rows, cols;
	FILE *f = fopen(path, "w");
	wchar_t *line;

	if (!f)
		return trex_error_set(err, TREX_IO, path, -1, "cannot write the screen dump");
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
	free(line);
	if (fclose(f) != 0)
		return trex_error_set(err, TREX_IO, path, -1, "cannot write the screen dump");
	return TREX_OK;
}

/* ---- the loop --------------------------------------------------------------------- */

static enum trex_status loop(struct app *a, const struct trex_ui_opts *o, struct trex_error *err)
{
	bool too_small = draw(a);

	while (!a->quit) {
		trex_key key;

		if (o->dump_screen && a->script_pos >= a->script_n)
			return dump_screen(o->dump_screen, err);
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
	while (a->depth > 0) {
		a->depth--;
		a->stack[a->depth]->ops->free(a->stack[a->depth]);
	}
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

enum trex_status trex_ui_run(const struct trex_index *idx, const struct trex_ui_opts *o,
                             struct trex_error *err)
{
	struct app a;
	struct trex_theme theme;
	struct trex_term_opts to = {o->color, o->ascii, false};
	enum trex_status st;

	memset(&a, 0, sizeof(a));
	to.headless = o->dump_screen && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO));
	st = app_prepare(&a, o, &theme, err);
	if (st == TREX_OK)
		st = trex_term_start(&a.term, &to, &theme, err);
	if (st != TREX_OK) {
		app_free(&a);
		return st;
	}
	a.ctx = (struct trex_ui_ctx){&a.term, idx, a.km, o->title ? o->title : "", ""};
	a.stack[0] = trex_timeline_view_new(&a.ctx);
	if (a.stack[0]) {
		a.depth = 1;
		st = loop(&a, o, err);
	} else {
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	app_free(&a);
	trex_term_stop(&a.term);
	return st;
}
