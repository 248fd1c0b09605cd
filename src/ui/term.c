#include "config.h"

#include "trex/ui/term.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

/* The one global: the terminal to restore from a fatal signal or exit(). */
static struct trex_term *active_term;

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT};
#define FATAL_COUNT (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

/* ---- stderr capture ---------------------------------------------------------------- */

static void stderr_capture(struct trex_term *t)
{
	t->saved_stderr = -1;
	t->err_tmp = tmpfile();
	if (!t->err_tmp)
		return;
	fflush(stderr);
	t->saved_stderr = dup(STDERR_FILENO);
	if (t->saved_stderr < 0 || dup2(fileno(t->err_tmp), STDERR_FILENO) < 0) {
		fclose(t->err_tmp);
		t->err_tmp = NULL;
	}
}

static void stderr_replay(struct trex_term *t)
{
	char buf[4096];
	size_t n;

	if (!t->err_tmp)
		return;
	fflush(stderr);
	dup2(t->saved_stderr, STDERR_FILENO);
	close(t->saved_stderr);
	rewind(t->err_tmp);
	while ((n = fread(buf, 1, sizeof(buf), t->err_tmp)) > 0)
		if (write(STDERR_FILENO, buf, n) < 0)
			break;
	fclose(t->err_tmp);
	t->err_tmp = NULL;
}

/* ---- signals ----------------------------------------------------------------------- */

static void restore_now(void)
{
	struct trex_term *t = active_term;

	if (t)
		trex_term_stop(t);
}

static void on_fatal_signal(int sig)
{
	restore_now();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void handlers_install(void)
{
	static bool atexit_done;

	for (size_t i = 0; i < FATAL_COUNT; i++)
		signal(fatal_signals[i], on_fatal_signal);
	if (!atexit_done && atexit(restore_now) == 0)
		atexit_done = true;
}

static void handlers_remove(void)
{
	for (size_t i = 0; i < FATAL_COUNT; i++)
		signal(fatal_signals[i], SIG_DFL);
}

/* ---- start / stop ------------------------------------------------------------------- */

static bool locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static const char *term_name(bool headless)
{
	const char *name = getenv("TERM");

	if (headless && (!name || !*name || strcmp(name, "dumb") == 0))
		return "xterm-256color";
	return name;
}

static enum trex_status open_streams(struct trex_term *t, bool headless, struct trex_error *err)
{
	t->in = stdin;
	t->out = stdout;
	if (!headless)
		return TREX_OK;
	t->in = fopen("/dev/null", "r");
	t->out = fopen("/dev/null", "w");
	if (!t->in || !t->out) {
		if (t->in)
			fclose(t->in);
		if (t->out)
			fclose(t->out);
		return trex_error_set(err, TREX_IO, "/dev/null", -1, "cannot open");
	}
	return TREX_OK;
}

static void colors_start(struct trex_term *t, enum trex_color_mode mode)
{
	int term_colors = 0;

	if (has_colors() && mode != TREX_COLOR_NEVER && start_color() == OK) {
		use_default_colors();
		term_colors = COLORS;
	}
	t->depth = trex_color_depth(mode, getenv("NO_COLOR"), term_colors);
}

enum trex_status trex_term_start(struct trex_term *t, const struct trex_term_opts *o,
                                 const struct trex_theme *theme, struct trex_error *err)
{
	SCREEN *scr;
	enum trex_status st;

	memset(t, 0, sizeof(*t));
	t->theme = *theme;
	setlocale(LC_CTYPE, "");
	t->utf8 = !o->ascii && locale_is_utf8();
	st = open_streams(t, o->headless, err);
	if (st != TREX_OK)
		return st;
	scr = newterm(term_name(o->headless), t->out, t->in);
	if (!scr) {
		if (o->headless) {
			fclose(t->in);
			fclose(t->out);
		}
		return trex_error_set(err, TREX_IO, NULL, -1,
		                      "cannot start the terminal interface (TERM=%s)",
		                      getenv("TERM") ? getenv("TERM") : "");
	}
	t->screen = scr;
	t->active = true;
	active_term = t;
	handlers_install();
	/* headless (--dump-screen without a terminal): nothing covers stderr,
	 * and a sanitizer's report must not wait for a replay that never comes */
	if (!o->headless)
		stderr_capture(t);
	else
		t->saved_stderr = -1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colors_start(t, o->color);
	if (o->mouse && !o->headless) {
		/* releases, not presses, and no click interval: no delay (htop) */
		mousemask(BUTTON1_RELEASED | BUTTON3_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED |
		              BUTTON_SHIFT | BUTTON_CTRL | BUTTON_ALT,
		          NULL);
		mouseinterval(0);
	}
	return TREX_OK;
}

void trex_term_stop(struct trex_term *t)
{
	if (!t->active)
		return;
	t->active = false;
	endwin();
	delscreen((SCREEN *)t->screen);
	t->screen = NULL;
	if (t->in != stdin)
		fclose(t->in);
	if (t->out != stdout)
		fclose(t->out);
	stderr_replay(t);
	handlers_remove();
	if (active_term == t)
		active_term = NULL;
}

/* ---- colours ------------------------------------------------------------------------ */

static int pair_for(struct trex_term *t, int fg, int bg)
{
	for (int i = 0; i < t->npairs; i++)
		if (t->pair_fg[i] == fg && t->pair_bg[i] == bg)
			return i + 1;
	if (t->npairs >= TREX_TERM_PAIRS_MAX || t->npairs + 1 >= COLOR_PAIRS)
		return 0;
	if (init_pair((short)(t->npairs + 1), (short)fg, (short)bg) != OK)
		return 0;
	t->pair_fg[t->npairs] = (short)fg;
	t->pair_bg[t->npairs] = (short)bg;
	return ++t->npairs;
}

static unsigned long attrs_of(unsigned a)
{
	unsigned long r = A_NORMAL;

	if (a & TREX_ATTR_BOLD)
		r |= A_BOLD;
	if (a & TREX_ATTR_DIM)
		r |= A_DIM;
	if (a & TREX_ATTR_REVERSE)
		r |= A_REVERSE;
	if (a & TREX_ATTR_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & TREX_ATTR_STANDOUT)
		r |= A_STANDOUT;
	if (a & TREX_ATTR_BLINK)
		r |= A_BLINK;
#ifdef A_ITALIC
	if (a & TREX_ATTR_ITALIC)
		r |= A_ITALIC;
#endif
	return r;
}

unsigned long trex_term_attr(struct trex_term *t, enum trex_role role)
{
	struct trex_style s = trex_theme_style(&t->theme, role, t->depth);
	unsigned long a = attrs_of(s.attrs);

	if (t->depth > 0 && (s.fg != TREX_COLOR_DEFAULT || s.bg != TREX_COLOR_DEFAULT))
		a |= (unsigned long)COLOR_PAIR(pair_for(t, s.fg, s.bg));
	return a;
}

/* Could ink be told from the terminal's own background? */
static bool ink_shows(int ink)
{
	return ink != TREX_COLOR_DEFAULT && !trex_color_extreme(ink);
}

unsigned long trex_term_bar_attr(struct trex_term *t, enum trex_role role)
{
	struct trex_style s = trex_theme_style(&t->theme, role, t->depth);
	int ink = s.bg != TREX_COLOR_DEFAULT ? s.bg : s.fg;

	if (t->depth == 0 || !ink_shows(ink))
		return A_NORMAL; /* the terminal's own foreground always shows */
	return (unsigned long)COLOR_PAIR(pair_for(t, ink, TREX_COLOR_DEFAULT));
}

unsigned long trex_term_fill_attr(struct trex_term *t, enum trex_role role)
{
	struct trex_style s = trex_theme_style(&t->theme, role, t->depth);
	int ink = ink_shows(s.fg) ? s.fg : TREX_COLOR_DEFAULT;

	if (t->depth > 0 && ink_shows(s.bg))
		return trex_term_attr(t, role);
	/* blanks in reverse video: a block in the ink, text in the background */
	if (t->depth == 0 || ink == TREX_COLOR_DEFAULT)
		return attrs_of(s.attrs | TREX_ATTR_REVERSE);
	return attrs_of(s.attrs | TREX_ATTR_REVERSE) |
	       (unsigned long)COLOR_PAIR(pair_for(t, ink, TREX_COLOR_DEFAULT));
}

/* The colours of pair (0: the terminal's). */
static void pair_colors(const struct trex_term *t, short pair, int *fg, int *bg)
{
	short f = -1, b = -1;

	*fg = *bg = TREX_COLOR_DEFAULT;
	if (pair <= 0)
		return;
	if (pair <= t->npairs) {
		f = t->pair_fg[pair - 1];
		b = t->pair_bg[pair - 1];
	} else if (pair_content(pair, &f, &b) == ERR) {
		return;
	}
	*fg = f;
	*bg = b;
}

unsigned long trex_term_tint(struct trex_term *t, unsigned long attr, bool blank,
                             enum trex_role role)
{
	struct trex_style s = trex_theme_style(&t->theme, role, t->depth);
	unsigned long plain = attr & ~(unsigned long)A_COLOR;
	short pair = (short)PAIR_NUMBER((int)attr);
	int fg, bg;

	pair_colors(t, pair, &fg, &bg);
	if (t->depth == 0 || s.bg == TREX_COLOR_DEFAULT || (attr & A_REVERSE) ||
	    bg != TREX_COLOR_DEFAULT)
		return attr | attrs_of(s.attrs) | A_UNDERLINE;
	if (blank)
		return plain | attrs_of(s.attrs) |
		       (unsigned long)COLOR_PAIR(pair_for(t, s.fg, s.bg));
	if (fg == TREX_COLOR_DEFAULT)
		fg = trex_color_ink(s.bg, t->depth);
	if (trex_color_close(fg, s.bg))
		return attr | A_UNDERLINE; /* the ink would vanish into the tint */
	return plain | (unsigned long)COLOR_PAIR(pair_for(t, fg, s.bg));
}
