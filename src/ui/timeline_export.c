/* What the timeline shows, for the trace-export dialog's scopes
 * (export_dialog.h): the marked range, the tracks that have rows, the
 * slice filter and the selection. */
#include "config.h"

#include "export_dialog.h"

#include <stdio.h>
#include <string.h>

#include "timeline_view.h"
#include "timeline_compare.h"
#include "trex/analysis/search.h"

/* The selected slice's track, else the track of the cursor's row. */
static void selection(struct timeline_view *tv, struct export_view_state *st)
{
	const struct trex_index *idx = tv->idx;

	st->selected_track = TREX_NONE;
	if (tv->selected != TREX_NONE) {
		st->selected_track = trex_index_slice(idx, tv->selected)->track;
		st->selected_slice = true;
	} else if (tv->cur_row < tv->rows.n) {
		st->selected_track = tl_row_track(idx, &tv->rows.v[tv->cur_row]);
	}
	if (st->selected_track != TREX_NONE) {
		size_t n;

		tl_track_path(idx, st->selected_track, st->selected_label,
		              sizeof(st->selected_label));
		n = strlen(st->selected_label);
		while (n && st->selected_label[n - 1] == ' ') /* Kineto's "stream 7 " */
			st->selected_label[--n] = '\0';
	}
}

bool trex_timeline_export_state(struct trex_view *v, struct export_view_state *st, uint8_t *shown)
{
	struct timeline_view *tv = (struct timeline_view *)tl_compare_a(v);
	const struct trex_index *idx = v->ctx->idx; /* with --compare: run A, the one exported */
	char key[TREX_KEY_NAME_MAX];

	v = &tv->base;
	memset(st, 0, sizeof(*st));
	st->selected_track = TREX_NONE;
	if (strcmp(v->ops->name, "timeline") != 0)
		return false;
	st->timeline = true;
	st->has_range = tv->details.mark == TL_MARK_RANGE;
	st->range_start = tv->details.mark_a;
	st->range_end = tv->details.mark_b;
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++) {
		shown[i] = tl_rows_track_shown(&tv->rows, i);
		st->shown_count += shown[i];
	}
	st->tracks_shown = shown;
	if (tv->filter) {
		st->filter = trex_search_pattern(tv->filter);
		st->filter_matches = trex_search_count(tv->filter);
	}
	selection(tv, st);
	snprintf(st->mark_key, sizeof(st->mark_key), "%s",
	         tl_key_of(tv, TREX_ACTION_MARK_RANGE, key, sizeof(key)));
	return true;
}
