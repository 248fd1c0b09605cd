#include "config.h"

#include "trex/ui/prompt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <curses.h>

#include "trex/ui/text.h"

#define CTRL(c) ((trex_key)((c)&0x1f))
#define FUNC(k) (TREX_KEY_FUNC | (trex_key)(k))
#define KEY_ESCAPE 27u

void trex_prompt_init(struct trex_prompt *p)
{
	memset(p, 0, sizeof(*p));
	p->hist_pos = -1;
}

void trex_prompt_free(struct trex_prompt *p)
{
	for (int h = 0; h < TREX_PROMPT_HISTORY_COUNT; h++)
		for (int i = 0; i < TREX_PROMPT_HISTORY; i++) {
			free(p->history[h][i]);
			p->history[h][i] = NULL;
		}
}

static void set_text(struct trex_prompt *p, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= sizeof(p->text))
		n = sizeof(p->text) - 1;
	/* never cut a UTF-8 sequence in two */
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	if (n)
		memcpy(p->text, s, n);
	p->text[n] = '\0';
	p->len = p->cursor = n;
}

void trex_prompt_open(struct trex_prompt *p, struct trex_view *owner,
                      const struct trex_prompt_spec *spec)
{
	p->spec = *spec;
	if ((int)p->spec.history < 0 || p->spec.history >= TREX_PROMPT_HISTORY_COUNT)
		p->spec.history = TREX_PROMPT_HISTORY_OTHER;
	p->owner = owner;
	p->active = true;
	p->hist_pos = -1;
	set_text(p, spec->initial);
}

/* ---- cursor movement over UTF-8 -------------------------------------------------- */

static bool is_cont(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

static size_t prev_char(const struct trex_prompt *p, size_t at)
{
	if (at == 0)
		return 0;
	at--;
	while (at > 0 && is_cont(p->text[at]))
		at--;
	return at;
}

static size_t next_char(const struct trex_prompt *p, size_t at)
{
	if (at >= p->len)
		return p->len;
	at++;
	while (at < p->len && is_cont(p->text[at]))
		at++;
	return at;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static size_t prev_word(const struct trex_prompt *p, size_t at)
{
	while (at > 0 && is_space(p->text[at - 1]))
		at--;
	while (at > 0 && !is_space(p->text[at - 1]))
		at--;
	return at;
}

/* ---- editing ------------------------------------------------------------------------ */

/* Removes [from, to); returns whether anything went. */
static bool cut(struct trex_prompt *p, size_t from, size_t to)
{
	if (to <= from)
		return false;
	memmove(p->text + from, p->text + to, p->len - to + 1);
	p->len -= to - from;
	p->cursor = from;
	return true;
}

static bool insert(struct trex_prompt *p, trex_key key)
{
	char mb[MB_LEN_MAX];
	size_t n;
	mbstate_t ps;

	memset(&ps, 0, sizeof(ps));
	n = wcrtomb(mb, (wchar_t)key, &ps);
	if (n == (size_t)-1 || n == 0 || p->len + n >= sizeof(p->text))
		return false;
	memmove(p->text + p->cursor + n, p->text + p->cursor, p->len - p->cursor + 1);
	memcpy(p->text + p->cursor, mb, n);
	p->len += n;
	p->cursor += n;
	return true;
}

/* ---- history ------------------------------------------------------------------------ */

static char **hist(struct trex_prompt *p)
{
	return p->history[p->spec.history];
}

static void hist_record(struct trex_prompt *p)
{
	char **h = hist(p), *copy;
	int dup = TREX_PROMPT_HISTORY - 1;

	if (p->len == 0 || p->spec.yes_no)
		return;
	for (int i = 0; i < TREX_PROMPT_HISTORY; i++)
		if (h[i] && strcmp(h[i], p->text) == 0) {
			dup = i;
			break;
		}
	if (!(copy = strdup(p->text)))
		return;
	free(h[dup]);
	memmove(h + 1, h, sizeof(*h) * (size_t)dup);
	h[0] = copy;
}

static bool hist_move(struct trex_prompt *p, int dir)
{
	char **h = hist(p);
	int to = p->hist_pos + dir;

	if (to < -1 || to >= TREX_PROMPT_HISTORY || (to >= 0 && !h[to]))
		return false;
	if (p->hist_pos == -1)
		memcpy(p->saved, p->text, p->len + 1);
	p->hist_pos = to;
	set_text(p, to == -1 ? p->saved : h[to]);
	return true;
}

/* ---- keys --------------------------------------------------------------------------- */

static enum trex_prompt_result close_with(struct trex_prompt *p, enum trex_prompt_result r)
{
	p->active = false;
	return r;
}

static enum trex_prompt_result yes_no_key(struct trex_prompt *p, trex_key key)
{
	if (key == KEY_ESCAPE || key == CTRL('g'))
		return close_with(p, TREX_PROMPT_CANCEL);
	if (key == 'y' || key == 'Y' || key == 'n' || key == 'N' || key == '\r' || key == '\n' ||
	    key == FUNC(KEY_ENTER)) {
		set_text(p, key == 'y' || key == 'Y' ? "y" : "n");
		return close_with(p, TREX_PROMPT_SUBMIT);
	}
	return TREX_PROMPT_CONTINUE;
}

/* Keys that move the cursor or browse the history; -1: not one of them. */
static int motion_key(struct trex_prompt *p, trex_key key)
{
	if (key == FUNC(KEY_LEFT) || key == CTRL('b'))
		p->cursor = prev_char(p, p->cursor);
	else if (key == FUNC(KEY_RIGHT) || key == CTRL('f'))
		p->cursor = next_char(p, p->cursor);
	else if (key == FUNC(KEY_HOME) || key == CTRL('a'))
		p->cursor = 0;
	else if (key == FUNC(KEY_END) || key == CTRL('e'))
		p->cursor = p->len;
	else if (key == FUNC(KEY_UP) || key == CTRL('p'))
		return hist_move(p, 1) ? TREX_PROMPT_CHANGED : TREX_PROMPT_CONTINUE;
	else if (key == FUNC(KEY_DOWN) || key == CTRL('n'))
		return hist_move(p, -1) ? TREX_PROMPT_CHANGED : TREX_PROMPT_CONTINUE;
	else
		return -1;
	return TREX_PROMPT_CONTINUE;
}

/* Keys that delete; -1: not one of them. */
static int delete_key(struct trex_prompt *p, trex_key key)
{
	bool changed;

	if (key == FUNC(KEY_BACKSPACE) || key == 127 || key == CTRL('h'))
		changed = cut(p, prev_char(p, p->cursor), p->cursor);
	else if (key == FUNC(KEY_DC) || key == CTRL('d'))
		changed = cut(p, p->cursor, next_char(p, p->cursor));
	else if (key == CTRL('u'))
		changed = cut(p, 0, p->cursor);
	else if (key == CTRL('k'))
		changed = p->cursor < p->len && cut(p, p->cursor, p->len);
	else if (key == CTRL('w'))
		changed = cut(p, prev_word(p, p->cursor), p->cursor);
	else
		return -1;
	if (key == CTRL('k'))
		p->cursor = p->len;
	return changed ? TREX_PROMPT_CHANGED : TREX_PROMPT_CONTINUE;
}

enum trex_prompt_result trex_prompt_key(struct trex_prompt *p, trex_key key)
{
	int r;

	if (!p->active)
		return TREX_PROMPT_CONTINUE;
	if (p->spec.yes_no)
		return yes_no_key(p, key);
	if (key == KEY_ESCAPE || key == CTRL('g'))
		return close_with(p, TREX_PROMPT_CANCEL);
	if (key == '\r' || key == '\n' || key == FUNC(KEY_ENTER)) {
		hist_record(p);
		return close_with(p, TREX_PROMPT_SUBMIT);
	}
	if ((r = motion_key(p, key)) >= 0)
		return (enum trex_prompt_result)r;
	if ((r = delete_key(p, key)) >= 0)
		return (enum trex_prompt_result)r;
	if ((key & (TREX_KEY_FUNC | TREX_KEY_META)) || key < 0x20 || key == 127)
		return TREX_PROMPT_CONTINUE;
	return insert(p, key) ? TREX_PROMPT_CHANGED : TREX_PROMPT_CONTINUE;
}

int trex_prompt_cursor_col(const struct trex_prompt *p)
{
	return trex_text_cols(p->text, p->cursor);
}
