/* The row list of the stall views (stall_list.h). */
#include "config.h"

#include "stall_list.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trex/core/profile.h"
#include "trex/ui/nav.h"

bool stall_list_selectable(const struct stall_row *r)
{
	return r->kind != STALL_ROW_TEXT;
}

bool stall_list_add(struct stall_list *l, const struct stall_row *r, const char *tail,
                    const char *fmt, ...)
{
	struct stall_row row = *r;
	va_list ap;
	int n;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct stall_row *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return false;
		l->v = v;
		l->cap = cap;
	}
	va_start(ap, fmt);
	n = vasprintf(&row.text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	row.tail = NULL;
	if (tail && !(row.tail = strdup(tail))) {
		free(row.text);
		return false;
	}
	l->v[l->n++] = row;
	return true;
}

void stall_list_clear(struct stall_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].text);
		free(l->v[i].tail);
	}
	free(l->v);
	*l = (struct stall_list){0};
}

/* The selectable row nearest to i in direction dir (+1/-1), SIZE_MAX if none. */
static size_t nearest_selectable(const struct stall_list *l, size_t i, int dir)
{
	while (i < l->n) {
		if (stall_list_selectable(&l->v[i]))
			return i;
		if (dir < 0 && i == 0)
			break;
		i = dir > 0 ? i + 1 : i - 1;
	}
	return SIZE_MAX;
}

void stall_list_select(struct stall_list *l, size_t i)
{
	size_t s = nearest_selectable(l, i, 1);

	if (s == SIZE_MAX)
		s = nearest_selectable(l, i < l->n ? i : l->n - 1, -1);
	if (s != SIZE_MAX)
		l->sel = s;
}

bool stall_list_move(struct stall_list *l, enum trex_action a)
{
	long page = l->body_h > 1 ? l->body_h - 1 : 1, delta;
	size_t want, s;

	if (!trex_nav_delta(a, page, (long)l->n, &delta))
		return false;
	if (!l->n)
		return true;
	want = (size_t)trex_nav_clamp((long)l->sel + delta, (long)l->n - 1);
	s = nearest_selectable(l, want, delta >= 0 ? 1 : -1);
	if (s == SIZE_MAX)
		s = nearest_selectable(l, want, delta >= 0 ? -1 : 1);
	if (s != SIZE_MAX)
		l->sel = s;
	if (a == TREX_ACTION_MOVE_FIRST)
		l->top = 0; /* the titles above the first selectable row come back */
	return true;
}

const struct stall_row *stall_list_selected(const struct stall_list *l)
{
	return l->sel < l->n && stall_list_selectable(&l->v[l->sel]) ? &l->v[l->sel] : NULL;
}

/* A bar of share (0..1) in w cells: whole blocks, then an eighth glyph. */
static void draw_bar(WINDOW *win, struct trex_term *term, int y, int x, int w, double share)
{
	static const wchar_t eighths[] = {L' ', L'▏', L'▎', L'▍', L'▌', L'▋', L'▊', L'▉'};
	long cells8 = (long)(share * w * 8 + 0.5);

	if (share > 0 && cells8 == 0)
		cells8 = 1; /* a line with samples never looks empty */
	for (int i = 0; i < w; i++, cells8 -= 8) {
		if (cells8 >= 8)
			trex_draw_glyph(win, term, y, x + i, L'█', '#', 0);
		else if (cells8 > 0)
			trex_draw_glyph(win, term, y, x + i, eighths[cells8], '+', 0);
	}
}

void stall_list_draw(struct stall_list *l, struct trex_view *v, WINDOW *win,
                     const struct trex_layout *lay, const char *title, const char *status)
{
	struct trex_term *term = v->ctx->term;
	int rows = lay->status.y - 1, cols = lay->header.w;

	l->body_h = rows;
	l->top = trex_nav_follow(l->top, l->sel, rows, l->n);
	wattrset(win, (int)trex_term_attr(term, TREX_ROLE_TITLE));
	trex_draw_fill(win, 0, 0, cols, trex_term_attr(term, TREX_ROLE_TITLE));
	trex_draw_text_cut(win, term, 0, 0, title, cols);
	for (int i = 0; i < rows && l->top + (size_t)i < l->n; i++) {
		const struct stall_row *r = &l->v[l->top + (size_t)i];
		bool cursor = l->top + (size_t)i == l->sel && stall_list_selectable(r);
		unsigned long attr = trex_term_attr(term, cursor ? TREX_ROLE_CURSOR : r->role);
		int x;

		wattrset(win, (int)attr);
		if (cursor)
			trex_draw_fill(win, 1 + i, 0, cols, attr);
		x = trex_draw_text_cut(win, term, 1 + i, 0, r->text, cols);
		if (r->bar >= 0 && x + l->bar_w < cols) {
			if (!cursor)
				wattrset(win, (int)trex_term_attr(term, TREX_ROLE_STALL));
			draw_bar(win, term, 1 + i, x, l->bar_w, r->bar);
			wattrset(win, (int)attr);
			x += l->bar_w;
		}
		if (r->tail && x < cols)
			trex_draw_text_cut(win, term, 1 + i, x, r->tail, cols - x);
	}
	trex_statusbar_draw(win, term, &lay->status,
	                    &(struct trex_status_text){status, NULL, NULL, v->ctx->msg});
}

void stall_open_editor(struct trex_ui_ctx *ctx, const char *path, int64_t line)
{
	const char *editor = getenv("EDITOR");
	char at[32];
	int status = 0;
	pid_t pid;

	snprintf(at, sizeof(at), "+%lld", (long long)(line > 0 ? line : 1));
	if (!editor || !*editor)
		editor = "vi";
	def_prog_mode();
	endwin();
	pid = fork();
	if (pid == 0) { /* $EDITOR may hold options: the shell splits it */
		execl("/bin/sh", "sh", "-c", "exec $0 \"$@\"", editor, at, path, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	reset_prog_mode();
	clearok(curscr, TRUE);
	if (pid < 0)
		trex_ui_message(ctx, "cannot start %s: %s", editor, strerror(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		trex_ui_message(ctx, "%s %s %s failed (exit %d)", editor, at, path,
		                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
