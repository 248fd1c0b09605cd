#include "config.h"

#include "trex/ui/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"
#include "trex/ui/nav.h"

#define KEYS_WIDTH 22
#define LINE_MAX 320

struct help_line {
	enum trex_role role;
	char text[LINE_MAX];
};

struct help_view {
	struct trex_view base;
	enum trex_keymap_id keymap;
	struct help_line *lines;
	size_t n, cap, top;
	int body_h;
};

static bool add_line(struct help_view *hv, enum trex_role role, const char *text)
{
	struct help_line *v = trex_grow(hv->lines, &hv->cap, hv->n + 1, sizeof(*v), 32);

	if (!v)
		return false;
	hv->lines = v;
	v[hv->n].role = role;
	snprintf(v[hv->n].text, LINE_MAX, "%s", text);
	hv->n++;
	return true;
}

/* One group: its title, then "keys  help" for each supported, bound action. */
static bool add_group(struct help_view *hv, enum trex_action_group g, const bool *supported)
{
	const struct trex_keymap *km = hv->base.ctx->km;
	bool titled = false;
	char keys[128], line[LINE_MAX];

	for (int a = 1; a < TREX_ACTION_COUNT; a++) {
		if (!supported[a] || trex_action_group((enum trex_action)a) != g)
			continue;
		if (trex_keymap_describe(km, hv->keymap, (enum trex_action)a, keys, sizeof(keys)) <=
		    0)
			continue;
		if (!titled && (!add_line(hv, TREX_ROLE_DEFAULT, "") ||
		                !add_line(hv, TREX_ROLE_HELP_GROUP, trex_action_group_title(g))))
			return false;
		titled = true;
		snprintf(line, sizeof(line), "  %-*s %s", KEYS_WIDTH, keys,
		         trex_action_help((enum trex_action)a));
		if (!add_line(hv, TREX_ROLE_DEFAULT, line))
			return false;
	}
	return true;
}

static bool help_supports(enum trex_action a)
{
	return trex_nav_is_move(a);
}

static void scroll_by(struct help_view *hv, long delta)
{
	hv->top = (size_t)trex_nav_clamp((long)hv->top + delta, (long)hv->n - hv->body_h);
}

static enum trex_handled help_dispatch(struct trex_view *v, enum trex_action a)
{
	struct help_view *hv = (struct help_view *)v;
	/* a page keeps one line of the last screen in sight */
	long page = hv->body_h > 1 ? hv->body_h - 1 : 1, delta;

	if (!trex_nav_delta(a, page, (long)hv->n, &delta))
		return TREX_IGNORED;
	scroll_by(hv, delta);
	return TREX_HANDLED;
}

static void help_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay)
{
	struct help_view *hv = (struct help_view *)v;
	struct trex_term *term = v->ctx->term;
	int rows = lay->status.y - 1, cols = lay->header.w;
	char title[128], close_keys[64], pos[64];

	hv->body_h = rows;
	scroll_by(hv, 0);
	trex_draw_fill(win, 0, 0, cols, trex_term_attr(term, TREX_ROLE_TITLE));
	trex_keymap_describe(v->ctx->km, TREX_KEYMAP_GENERIC, TREX_ACTION_VIEW_CLOSE, close_keys,
	                     sizeof(close_keys));
	snprintf(title, sizeof(title), " trex: keys of the %s (%s: close)",
	         trex_keymap_name(hv->keymap), close_keys);
	trex_draw_text(win, term, 0, 0, title, cols);
	for (int i = 0; i < rows; i++) {
		size_t li = hv->top + (size_t)i;

		if (li >= hv->n)
			break;
		wattrset(win, (int)trex_term_attr(term, hv->lines[li].role));
		trex_draw_text(win, term, 1 + i, 1, hv->lines[li].text, cols - 1);
	}
	snprintf(pos, sizeof(pos), " lines %zu-%zu of %zu", hv->n ? hv->top + 1 : 0,
	         hv->top + (size_t)rows < hv->n ? hv->top + (size_t)rows : hv->n, hv->n);
	trex_statusbar_draw(win, term, &lay->status,
	                    &(struct trex_status_text){pos, NULL, NULL, v->ctx->msg});
}

static void help_free(struct trex_view *v)
{
	struct help_view *hv = (struct help_view *)v;

	free(hv->lines);
	free(hv);
}

static const struct trex_view_ops help_ops = {
    .name = "help",
    .keymap = TREX_KEYMAP_GENERIC,
    .supports = help_supports,
    .dispatch = help_dispatch,
    .draw = help_draw,
    .free = help_free,
};

struct trex_view *trex_help_view_new(struct trex_ui_ctx *ctx, enum trex_keymap_id keymap,
                                     const bool *supported)
{
	struct help_view *hv = calloc(1, sizeof(*hv));

	if (!hv)
		return NULL;
	hv->base.ops = &help_ops;
	hv->base.ctx = ctx;
	hv->keymap = keymap;
	for (int g = 0; g < TREX_ACTION_GROUP_COUNT; g++) {
		if (!add_group(hv, (enum trex_action_group)g, supported)) {
			help_free(&hv->base);
			return NULL;
		}
	}
	return &hv->base;
}
