#include "config.h"

#include "timeline_tracks.h"

#include <stdio.h>
#include <string.h>

#include "trex/analysis/search.h"

static const struct trex_index *idx_of(struct timeline_view *tv)
{
	return tv->idx;
}

static struct timeline_view *tl_of(struct trex_view *v)
{
	return (struct timeline_view *)v;
}

/* pattern compiled; NULL with its error in the status line. */
static struct trex_pattern *compile(struct timeline_view *tv, const char *pattern)
{
	struct trex_pattern *p = NULL;
	struct trex_error err;

	if (trex_pattern_new(pattern, &p, &err) != TREX_OK)
		trex_ui_message(tv->base.ctx, "%s", err.message);
	return p;
}

/* ---- hidden tracks ------------------------------------------------------------------- */

void tl_tracks_say_hidden(struct timeline_view *tv)
{
	uint32_t n = tv->rows.noise_tracks + tv->rows.noise_groups;
	char key[32];

	if (n == 0)
		return;
	tl_key_of(tv, TREX_ACTION_TOGGLE_HIDDEN, key, sizeof(key));
	if (tv->rows.show_hidden)
		trex_ui_message(tv->base.ctx,
		                "showing %u empty or marker-only tracks and groups; %s hides them",
		                n, key);
	else
		trex_ui_message(tv->base.ctx,
		                "%u empty or marker-only tracks and groups hidden; %s shows them",
		                n, key);
}

static void toggle_hidden(struct timeline_view *tv)
{
	if (tv->rows.noise_tracks + tv->rows.noise_groups == 0) {
		trex_ui_message(tv->base.ctx, "no empty or marker-only tracks to hide");
		return;
	}
	tv->rows.show_hidden = !tv->rows.show_hidden;
	tl_rebuild(tv);
	tl_tracks_say_hidden(tv);
}

/* ---- the tracks of the cursor's row -------------------------------------------------- */

/* The place the cursor's row stands for (a lane is its track). */
static bool cur_place(struct timeline_view *tv, struct tl_place *p)
{
	if (tv->cur_row >= tv->rows.n)
		return false;
	*p = tl_rows_place(&tv->rows, idx_of(tv), tv->cur_row);
	return true;
}

/* Whether track belongs to place (a file, a process or the track). */
static bool in_place(struct timeline_view *tv, struct tl_place p, uint32_t track)
{
	const struct trex_track *t = trex_index_track(idx_of(tv), track);

	if (p.level == 2)
		return track == p.id;
	if (p.level == 1)
		return t->process == p.id;
	return trex_index_process(idx_of(tv), t->process)->file == p.id;
}

/* What the place is called in messages: a track's name, a process's or
 * rank's label. */
static const char *place_name(struct timeline_view *tv, struct tl_place p, char *buf, size_t size)
{
	if (p.level == 2)
		tl_track_label(idx_of(tv), p.id, buf, size);
	else if (p.level == 1)
		tl_process_label(idx_of(tv), p.id, buf, size);
	else
		tl_file_label(idx_of(tv), p.id, buf, size);
	return buf;
}

/* The cursor onto the first row of the first track of place, else the
 * place's own row. */
static void cursor_to(struct timeline_view *tv, struct tl_place p)
{
	size_t r = tv->rows.n;

	for (uint32_t i = 0; i < trex_index_track_count(idx_of(tv)) && r == tv->rows.n; i++) {
		uint32_t t = tv->rows.track_order[i];

		if (in_place(tv, p, t))
			r = tl_rows_track_row(&tv->rows, idx_of(tv), t);
	}
	if (r == tv->rows.n && p.level < 2)
		r = tl_rows_lookup(&tv->rows, p.level == 0 ? TL_ROW_FILE : TL_ROW_PROCESS, p.id);
	if (r < tv->rows.n) {
		tv->cur_row = r;
		tl_select_at_cursor(tv);
	}
}

/* ---- pins and folds ------------------------------------------------------------------ */

static bool pinnable(struct timeline_view *tv, uint32_t track)
{
	return tl_rows_track_shown(&tv->rows, track);
}

static bool foldable(struct timeline_view *tv, uint32_t track)
{
	return trex_index_track(idx_of(tv), track)->lane_count > 1;
}

/* flag on every track of place that can take it, or off when all have it
 * already. Returns how many tracks can (0: nothing changed); *off: it
 * was turned off. */
static uint32_t toggle_flag(struct timeline_view *tv, struct tl_place p, uint8_t flag,
                            bool (*can)(struct timeline_view *, uint32_t), bool *off)
{
	uint32_t n = 0, have = 0, nt = trex_index_track_count(idx_of(tv));

	for (uint32_t t = 0; t < nt; t++)
		if (in_place(tv, p, t) && can(tv, t)) {
			n++;
			have += (tv->rows.track_flags[t] & flag) != 0;
		}
	*off = n > 0 && have == n;
	for (uint32_t t = 0; n > 0 && t < nt; t++)
		if (in_place(tv, p, t) && can(tv, t))
			tv->rows.track_flags[t] = (uint8_t)(*off ? tv->rows.track_flags[t] & ~flag
			                                         : tv->rows.track_flags[t] | flag);
	if (n > 0) {
		tl_rebuild(tv);
		cursor_to(tv, p);
	}
	return n;
}

/* What toggle_here did, for its message. */
struct toggled {
	struct tl_place p;
	uint32_t n; /* tracks that can take the flag, 0: nothing done */
	bool off;   /* the flag was turned off */
	char name[160], key[32];
};

/* toggle_flag on the cursor's place; false when the cursor is on no row. */
static bool toggle_here(struct timeline_view *tv, uint8_t flag,
                        bool (*can)(struct timeline_view *, uint32_t), enum trex_action a,
                        struct toggled *t)
{
	if (!cur_place(tv, &t->p))
		return false;
	t->n = toggle_flag(tv, t->p, flag, can, &t->off);
	place_name(tv, t->p, t->name, sizeof(t->name));
	tl_key_of(tv, a, t->key, sizeof(t->key));
	return true;
}

static void pin(struct timeline_view *tv)
{
	struct toggled t;

	if (!toggle_here(tv, TL_TRACK_PINNED, pinnable, TREX_ACTION_PIN_TRACK, &t))
		return;
	if (t.n == 0)
		trex_ui_message(tv->base.ctx, "no track here to pin");
	else if (t.off)
		trex_ui_message(tv->base.ctx, "unpinned %.100s", t.name);
	else if (t.p.level == 2)
		trex_ui_message(tv->base.ctx, "pinned %.100s above the other tracks (%s unpins)",
		                t.name, t.key);
	else
		trex_ui_message(tv->base.ctx, "pinned the %u tracks of %.100s (%s unpins)", t.n,
		                t.name, t.key);
}

static void collapse(struct timeline_view *tv)
{
	struct toggled t;

	if (!toggle_here(tv, TL_TRACK_COLLAPSED, foldable, TREX_ACTION_COLLAPSE_TRACK, &t))
		return;
	if (t.n == 0)
		trex_ui_message(tv->base.ctx, "%.100s has no nested levels to fold", t.name);
	else if (t.off)
		trex_ui_message(tv->base.ctx, "%.100s unfolded", t.name);
	else if (t.p.level == 2)
		trex_ui_message(tv->base.ctx, "%.100s folded into one row (%s unfolds)", t.name,
		                t.key);
	else
		trex_ui_message(tv->base.ctx,
		                "%u tracks of %.100s folded, one row each (%s unfolds)", t.n,
		                t.name, t.key);
}

/* ---- depth limits -------------------------------------------------------------------- */

/* Levels track shows now (folded: one). */
static uint32_t levels_shown(struct timeline_view *tv, uint32_t track)
{
	uint32_t lanes = trex_index_track(idx_of(tv), track)->lane_count;
	uint32_t max = tv->rows.max_depth[track];

	if (tv->rows.track_flags[track] & TL_TRACK_COLLAPSED)
		return lanes ? 1 : 0;
	return max && max < lanes ? max : lanes;
}

/* The most levels a track of place shows now, and has. */
static void place_levels(struct timeline_view *tv, struct tl_place p, uint32_t *most,
                         uint32_t *lanes_max)
{
	*most = *lanes_max = 0;
	for (uint32_t t = 0; t < trex_index_track_count(idx_of(tv)); t++)
		if (in_place(tv, p, t)) {
			uint32_t shown = levels_shown(tv, t),
			         lanes = trex_index_track(idx_of(tv), t)->lane_count;

			*most = shown > *most ? shown : *most;
			*lanes_max = lanes > *lanes_max ? lanes : *lanes_max;
		}
}

/* Every track of place shows at most want levels (unfolded). */
static void set_levels(struct timeline_view *tv, struct tl_place p, uint32_t want)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx_of(tv)); t++)
		if (in_place(tv, p, t)) {
			uint32_t lanes = trex_index_track(idx_of(tv), t)->lane_count;

			tv->rows.track_flags[t] &= (uint8_t)~TL_TRACK_COLLAPSED;
			tv->rows.max_depth[t] = (uint16_t)(want >= lanes ? 0 : want);
		}
	tl_rebuild(tv);
}

/* Sets the levels shown of every track of the place to one less or one
 * more than the most any of them shows. */
static void depth(struct timeline_view *tv, int dir)
{
	struct tl_place p;
	uint32_t most, lanes_max, want;
	char name[160], lk[32], mk[32];

	if (!cur_place(tv, &p))
		return;
	place_levels(tv, p, &most, &lanes_max);
	place_name(tv, p, name, sizeof(name));
	if (lanes_max <= 1) {
		trex_ui_message(tv->base.ctx, "%.100s has no nested levels", name);
		return;
	}
	if ((dir < 0 && most <= 1) || (dir > 0 && most >= lanes_max)) {
		trex_ui_message(tv->base.ctx,
		                dir < 0 ? "%.100s shows one level already"
		                        : "%.100s shows all its levels already",
		                name);
		return;
	}
	want = dir < 0 ? most - 1 : most + 1;
	set_levels(tv, p, want);
	tl_key_of(tv, TREX_ACTION_DEPTH_LESS, lk, sizeof(lk));
	tl_key_of(tv, TREX_ACTION_DEPTH_MORE, mk, sizeof(mk));
	if (want >= lanes_max)
		trex_ui_message(tv->base.ctx, "%.100s: all %u levels shown (%s fewer)", name,
		                lanes_max, lk);
	else
		trex_ui_message(tv->base.ctx, "%.100s: %u of %u levels shown (%s fewer, %s more)",
		                name, want, lanes_max, lk, mk);
}

/* ---- the track finder ---------------------------------------------------------------- */

/* The cursor onto the next place after from matching p; false if none. */
static bool find_from(struct timeline_view *tv, struct trex_pattern *p, struct tl_place from)
{
	struct tl_place found;
	size_t r;

	if (!tl_rows_find_next(&tv->rows, idx_of(tv), p, from, &found)) {
		trex_ui_message(tv->base.ctx, "no track or rank matches %s", trex_pattern_text(p));
		return false;
	}
	r = tl_rows_reveal(&tv->rows, idx_of(tv), found);
	if (r >= tv->rows.n)
		return false;
	tv->cur_row = r;
	if (r >= tv->rows.n_pinned)
		tv->top_row = r; /* at the top, its levels under it (the draw clamps) */
	tl_select_at_cursor(tv);
	return true;
}

/* The place the finder's prompt opened on. */
static struct tl_place origin(struct timeline_view *tv)
{
	size_t r =
	    tl_rows_lookup(&tv->rows, (enum tl_row_kind)tv->find_from.kind, tv->find_from.id);

	if (r < tv->rows.n)
		return tl_rows_place(&tv->rows, idx_of(tv), r);
	return (struct tl_place){-1, TREX_NONE}; /* from the start */
}

static void find_changed(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = tl_of(v);
	struct trex_pattern *p;

	tv->base.ctx->msg[0] = '\0';
	if (!*text || !(p = compile(tv, text)))
		return;
	find_from(tv, p, origin(tv));
	trex_pattern_free(p);
}

static void find_submit(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = tl_of(v);
	struct tl_place here;
	struct trex_pattern *p;
	char key[32];

	if (!*text) { /* as in less and vi: the last pattern again, to the next match */
		if (!tv->find_pattern)
			trex_ui_message(tv->base.ctx, "no track pattern yet");
		else if (cur_place(tv, &here))
			find_from(tv, tv->find_pattern, here);
		return;
	}
	if (!(p = compile(tv, text)))
		return;
	trex_pattern_free(tv->find_pattern);
	tv->find_pattern = p;
	if (find_from(tv, p, origin(tv)))
		trex_ui_message(tv->base.ctx, "%s then Enter: the next track matching %s",
		                tl_key_of(tv, TREX_ACTION_FIND_TRACK, key, sizeof(key)), text);
}

static void find_cancel(struct trex_view *v)
{
	struct timeline_view *tv = tl_of(v);
	size_t r =
	    tl_rows_lookup(&tv->rows, (enum tl_row_kind)tv->find_from.kind, tv->find_from.id);

	if (r < tv->rows.n) {
		tv->cur_row = r;
		tv->top_row = tv->find_top;
	}
	tl_select_at_cursor(tv);
	v->ctx->msg[0] = '\0';
}

static void open_find(struct timeline_view *tv)
{
	static const struct trex_prompt_spec spec = {
	    .label = "track: ",
	    .history = TREX_PROMPT_HISTORY_TRACK,
	    .on_change = find_changed,
	    .on_submit = find_submit,
	    .on_cancel = find_cancel,
	};

	tv->find_from = tv->cur_row < tv->rows.n ? tv->rows.v[tv->cur_row]
	                                         : (struct tl_row){TL_ROW_FILE, TREX_NONE};
	tv->find_top = tv->top_row;
	trex_ui_prompt(tv->base.ctx, &tv->base, &spec);
}

/* ---- the track filter ---------------------------------------------------------------- */

/* p becomes the track filter (the one before freed unless the prompt
 * keeps it to come back to); rows rebuilt. Returns the tracks matching. */
static uint32_t set_track_filter(struct timeline_view *tv, struct trex_pattern *p)
{
	uint32_t n;

	if (tv->track_filter != tv->track_filter_saved)
		trex_pattern_free(tv->track_filter);
	tv->track_filter = p;
	n = tl_rows_set_track_filter(&tv->rows, idx_of(tv), p);
	tl_rebuild(tv);
	return n;
}

static void track_filter_changed(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = tl_of(v);
	struct trex_pattern *p = NULL;
	uint32_t n;

	tv->base.ctx->msg[0] = '\0';
	if (*text && !(p = compile(tv, text)))
		return; /* the last good filter stays on screen while the pattern is bad */
	n = set_track_filter(tv, p);
	if (p)
		trex_ui_message(tv->base.ctx, "%u of %u tracks match", n,
		                trex_index_track_count(idx_of(tv)));
}

/* The filter from before the prompt opened comes back. */
static void restore_track_filter(struct timeline_view *tv)
{
	if (tv->track_filter != tv->track_filter_saved)
		set_track_filter(tv, tv->track_filter_saved);
	tv->track_filter_saved = NULL;
}

static void track_filter_submit(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = tl_of(v);
	struct trex_pattern *p = NULL;
	uint32_t n;

	if (*text && !(p = compile(tv, text))) {
		restore_track_filter(tv); /* a bad pattern: its error shows */
		return;
	}
	n = set_track_filter(tv, p);
	if (tv->track_filter_saved != tv->track_filter)
		trex_pattern_free(tv->track_filter_saved);
	tv->track_filter_saved = NULL;
	if (p)
		trex_ui_message(tv->base.ctx, "track filter: %u of %u tracks match", n,
		                trex_index_track_count(idx_of(tv)));
	else
		trex_ui_message(tv->base.ctx, "track filter cleared");
}

static void track_filter_cancel(struct trex_view *v)
{
	restore_track_filter(tl_of(v));
	v->ctx->msg[0] = '\0';
}

static void open_track_filter(struct timeline_view *tv)
{
	struct trex_prompt_spec spec = {
	    .label = "tracks: ",
	    .initial = tv->track_filter ? trex_pattern_text(tv->track_filter) : NULL,
	    .history = TREX_PROMPT_HISTORY_TRACK,
	    .on_change = track_filter_changed,
	    .on_submit = track_filter_submit,
	    .on_cancel = track_filter_cancel,
	};

	tv->track_filter_saved = tv->track_filter;
	trex_ui_prompt(tv->base.ctx, &tv->base, &spec);
}

bool tl_tracks_drop_filter(struct timeline_view *tv)
{
	if (!tv->track_filter)
		return false;
	set_track_filter(tv, NULL);
	return true;
}

void tl_tracks_status(struct timeline_view *tv, char *buf, size_t size)
{
	size_t len = strlen(buf);

	if (tv->track_filter && len < size)
		snprintf(buf + len, size - len, "  TRACKS: %s",
		         trex_pattern_text(tv->track_filter));
}

/* ---- actions ------------------------------------------------------------------------- */

bool tl_tracks_supports(enum trex_action a)
{
	switch (a) {
	case TREX_ACTION_FIND_TRACK:
	case TREX_ACTION_FILTER_TRACKS:
	case TREX_ACTION_PIN_TRACK:
	case TREX_ACTION_COLLAPSE_TRACK:
	case TREX_ACTION_DEPTH_LESS:
	case TREX_ACTION_DEPTH_MORE:
	case TREX_ACTION_TOGGLE_HIDDEN:
		return true;
	default:
		return false;
	}
}

void tl_tracks_action(struct timeline_view *tv, enum trex_action a)
{
	switch (a) {
	case TREX_ACTION_FIND_TRACK:
		open_find(tv);
		break;
	case TREX_ACTION_FILTER_TRACKS:
		open_track_filter(tv);
		break;
	case TREX_ACTION_PIN_TRACK:
		pin(tv);
		break;
	case TREX_ACTION_COLLAPSE_TRACK:
		collapse(tv);
		break;
	case TREX_ACTION_DEPTH_LESS:
	case TREX_ACTION_DEPTH_MORE:
		depth(tv, a == TREX_ACTION_DEPTH_LESS ? -1 : 1);
		break;
	case TREX_ACTION_TOGGLE_HIDDEN:
		toggle_hidden(tv);
		break;
	default:
		break;
	}
}

void tl_tracks_free(struct timeline_view *tv)
{
	if (tv->track_filter_saved != tv->track_filter)
		trex_pattern_free(tv->track_filter_saved);
	trex_pattern_free(tv->track_filter);
	trex_pattern_free(tv->find_pattern);
	tv->track_filter = tv->track_filter_saved = tv->find_pattern = NULL;
}
