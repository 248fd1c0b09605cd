#include "config.h"

#include "trex/ui/view.h"

#include <string.h>

void trex_statusbar_draw(WINDOW *win, struct trex_term *term, const struct trex_rect *r,
                         const struct trex_status_text *s)
{
	unsigned long attr = trex_term_attr(term, TREX_ROLE_STATUS);
	int rw = s->right1 ? (int)strlen(s->right1) : 0;
	bool has_msg = s->message && s->message[0];

	if (r->h < 2)
		return;
	trex_draw_fill(win, r->y, r->x, r->w, attr);
	if (rw > r->w / 2)
		rw = 0;
	trex_draw_text(win, term, r->y, r->x, s->left1 ? s->left1 : "", r->w - rw - 1);
	if (rw)
		trex_draw_text(win, term, r->y, r->x + r->w - rw, s->right1, rw);
	trex_draw_fill(win, r->y + 1, r->x, r->w,
	               trex_term_attr(term, has_msg ? TREX_ROLE_WARNING : TREX_ROLE_DEFAULT));
	if (has_msg) {
		trex_draw_text(win, term, r->y + 1, r->x, " ", 1);
		trex_draw_text(win, term, r->y + 1, r->x + 1, s->message, r->w - 1);
	} else if (s->left2) {
		trex_draw_text(win, term, r->y + 1, r->x, s->left2, r->w);
	}
}
