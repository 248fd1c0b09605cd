#include "config.h"

#include "timeline_rows.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/labels.h"
#include "trex/analysis/search.h"
#include "trex/core/grow.h"
#include "trex/ui/layout.h"
#include "trex/ui/nav.h"
#include "trex/ui/text.h"

static bool push(struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	struct tl_row *v = trex_grow(r->v, &r->cap, r->n + 1, sizeof(*v), 64);

	if (!v)
		return false;
	r->v = v;
	r->v[r->n++] = (struct tl_row){(uint8_t)kind, id};
	return true;
}

/* ---- the noise rule ------------------------------------------------------------------ */

bool tl_track_is_noise(const struct trex_index *idx, uint32_t track)
{
	const struct trex_track *t = trex_index_track(idx, track);

	if (t->sample_count > 0)
		return false;
	/* the first real slice or instant ends the scan: cheap for real tracks */
	for (uint32_t i = 0; i < t->slice_count; i++) {
		const char *cat =
		    trex_index_str(idx, trex_index_slice(idx, t->first_slice + i)->cat);

		if (!cat || strcmp(cat, "Trace") != 0)
			return false;
	}
	for (uint32_t i = 0; i < t->instant_count; i++)
		if (trex_index_instant(idx, t->first_instant + i)->scope != TREX_SCOPE_GLOBAL)
			return false;
	return true;
}

/* ---- display order ------------------------------------------------------------------- */

/* Within each file the processes holding GPU tracks come first, within
 * each process the GPU tracks: the streams are where the eye lands. The
 * index's order (the trace's sort indexes) is kept inside each part. */
static void order_init(struct tl_rows *r, const struct trex_index *idx)
{
	uint32_t np = trex_index_process_count(idx), pi = 0, ti = 0;

	for (uint32_t p0 = 0, p1; p0 < np; p0 = p1) {
		uint32_t file = trex_index_process(idx, p0)->file;

		for (p1 = p0 + 1; p1 < np && trex_index_process(idx, p1)->file == file; p1++)
			;
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t p = p0; p < p1; p++)
				if ((trex_index_process(idx, p)->is_gpu != 0) == (pass == 0))
					r->proc_order[pi++] = p;
	}
	for (uint32_t i = 0; i < np; i++) {
		const struct trex_process *proc = trex_index_process(idx, r->proc_order[i]);

		for (int pass = 0; pass < 2; pass++)
			for (uint32_t t = proc->first_track;
			     t < proc->first_track + proc->track_count; t++)
				if ((trex_index_track(idx, t)->kind == TREX_TRACK_GPU) ==
				    (pass == 0))
					r->track_order[ti++] = t;
	}
}

/* ---- which rows ---------------------------------------------------------------------- */

static bool lane_has_match(const struct tl_rows *r, uint32_t lane)
{
	uint32_t n = 1;

	if (r->filter)
		trex_search_lane(r->filter, lane, &n);
	return n > 0;
}

/* Whether track gets rows (pinned tracks: in the pinned part). */
static bool track_shown(const struct tl_rows *r, uint32_t track)
{
	uint8_t f = r->track_flags[track];

	if (r->filter && !trex_search_track_has_match(r->filter, track))
		return false;
	if (f & TL_TRACK_PINNED)
		return true;
	return !((f & TL_TRACK_NOISE) && !r->show_hidden) && !(f & TL_TRACK_UNMATCHED);
}

static bool filtering(const struct tl_rows *r)
{
	return r->filter || r->track_filter;
}

/* A process shows when one of its tracks shows outside the pinned part;
 * one without tracks only when the hidden ones are shown. */
static bool process_shown(const struct tl_rows *r, const uint32_t *tracks, uint32_t count)
{
	if (count == 0)
		return r->show_hidden && !filtering(r);
	for (uint32_t i = 0; i < count; i++)
		if (!(r->track_flags[tracks[i]] & TL_TRACK_PINNED) && track_shown(r, tracks[i]))
			return true;
	return false;
}

/* The rows of track (or, emit false, only its lanes marked drawn): its
 * lanes down to its depth limit, then its instants. */
static bool push_track(struct tl_rows *r, const struct trex_index *idx, uint32_t track, bool emit)
{
	const struct trex_track *t = trex_index_track(idx, track);
	bool collapsed = r->track_flags[track] & TL_TRACK_COLLAPSED;
	uint32_t limit = r->max_depth[track] ? r->max_depth[track] : t->lane_count, shown = 0;

	if (t->kind == TREX_TRACK_COUNTER)
		return !emit || r->filter || push(r, TL_ROW_COUNTER, track);
	/* an empty track (shown on request: it is noise) gets one empty row */
	if (t->lane_count == 0 && t->instant_count == 0)
		return !emit || r->filter || push(r, TL_ROW_INSTANTS, track);
	for (uint32_t l = 0; l < t->lane_count && l < limit && !(collapsed && shown); l++) {
		if (!lane_has_match(r, t->first_lane + l))
			continue;
		r->lane_drawn[t->first_lane + l] = 1;
		shown++;
		if (emit && !push(r, TL_ROW_LANE, t->first_lane + l))
			return false;
	}
	/* instants never match a filter (they are not slices) */
	if (!emit || r->filter || t->instant_count == 0 || (collapsed && shown))
		return true;
	return push(r, TL_ROW_INSTANTS, track);
}

static bool push_pinned(struct tl_rows *r, const struct trex_index *idx)
{
	uint32_t nt = trex_index_track_count(idx);

	for (uint32_t i = 0; i < nt; i++) {
		uint32_t t = r->track_order[i];

		if ((r->track_flags[t] & TL_TRACK_PINNED) && track_shown(r, t) &&
		    !push_track(r, idx, t, true))
			return false;
	}
	r->n_pinned = r->n;
	return true;
}

/* One process: its row unless its file is collapsed, its tracks' rows
 * unless it is collapsed too; tracks: its tracks in display order. */
static bool push_process(struct tl_rows *r, const struct trex_index *idx, uint32_t p,
                         const uint32_t *tracks)
{
	const struct trex_process *proc = trex_index_process(idx, p);
	bool file_open = !r->file_collapsed[proc->file];
	bool open = file_open && !r->process_collapsed[p];

	if (!process_shown(r, tracks, proc->track_count))
		return true;
	if (file_open && !push(r, TL_ROW_PROCESS, p))
		return false;
	for (uint32_t i = 0; i < proc->track_count; i++)
		if (!(r->track_flags[tracks[i]] & TL_TRACK_PINNED) && track_shown(r, tracks[i]) &&
		    !push_track(r, idx, tracks[i], open))
			return false;
	return true;
}

/* Under a filter a file with nothing shown has no row either. */
static bool file_shown(const struct tl_rows *r, const struct trex_index *idx, uint32_t pi,
                       uint32_t pend, const uint32_t *tracks)
{
	if (!filtering(r))
		return true;
	for (; pi < pend; pi++) {
		uint32_t n = trex_index_process(idx, r->proc_order[pi])->track_count;

		if (process_shown(r, tracks, n))
			return true;
		tracks += n;
	}
	return false;
}

bool tl_rows_build(struct tl_rows *r, const struct trex_index *idx)
{
	uint32_t np = trex_index_process_count(idx), ti = 0;

	r->n = 0;
	memset(r->lane_drawn, 0, (size_t)trex_index_lane_count(idx) + 1);
	if (!push_pinned(r, idx))
		return false;
	for (uint32_t p0 = 0, p1; p0 < np; p0 = p1) {
		uint32_t file = trex_index_process(idx, r->proc_order[p0])->file;
		bool shown;

		for (p1 = p0 + 1;
		     p1 < np && trex_index_process(idx, r->proc_order[p1])->file == file; p1++)
			;
		shown = file_shown(r, idx, p0, p1, r->track_order + ti);
		if (shown && !push(r, TL_ROW_FILE, file))
			return false;
		for (uint32_t pi = p0; pi < p1; pi++) {
			uint32_t p = r->proc_order[pi];

			if (shown && !push_process(r, idx, p, r->track_order + ti))
				return false;
			ti += trex_index_process(idx, p)->track_count;
		}
	}
	return true;
}

/* ---- state --------------------------------------------------------------------------- */

static void count_noise(struct tl_rows *r, const struct trex_index *idx)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		if (trex_index_track(idx, t)->kind == TREX_TRACK_COUNTER)
			trex_counter_range(idx, t, &r->counter_min[t], &r->counter_max[t]);
		if (tl_track_is_noise(idx, t)) {
			r->track_flags[t] |= TL_TRACK_NOISE;
			r->noise_tracks++;
		}
	}
	for (uint32_t p = 0; p < trex_index_process_count(idx); p++) {
		const struct trex_process *proc = trex_index_process(idx, p);
		uint32_t t = 0;

		while (t < proc->track_count &&
		       (r->track_flags[proc->first_track + t] & TL_TRACK_NOISE))
			t++;
		r->noise_groups += t == proc->track_count;
	}
}

bool tl_rows_init(struct tl_rows *r, const struct trex_index *idx)
{
	size_t nf = trex_index_file_count(idx) + 1, np = trex_index_process_count(idx) + 1;
	size_t nt = trex_index_track_count(idx) + 1, nl = trex_index_lane_count(idx) + 1;

	memset(r, 0, sizeof(*r));
	r->file_collapsed = calloc(nf, sizeof(bool));
	r->process_collapsed = calloc(np, sizeof(bool));
	r->counter_min = calloc(nt, sizeof(double));
	r->counter_max = calloc(nt, sizeof(double));
	r->track_flags = calloc(nt, sizeof(uint8_t));
	r->max_depth = calloc(nt, sizeof(uint16_t));
	r->proc_order = calloc(np, sizeof(uint32_t));
	r->track_order = calloc(nt, sizeof(uint32_t));
	r->lane_drawn = calloc(nl, sizeof(uint8_t));
	if (!r->file_collapsed || !r->process_collapsed || !r->counter_min || !r->counter_max ||
	    !r->track_flags || !r->max_depth || !r->proc_order || !r->track_order || !r->lane_drawn)
		return false;
	order_init(r, idx);
	/* once per view: the sparkline scale of every series, the noise */
	count_noise(r, idx);
	return tl_rows_build(r, idx);
}

void tl_rows_free(struct tl_rows *r)
{
	free(r->v);
	free(r->file_collapsed);
	free(r->process_collapsed);
	free(r->counter_min);
	free(r->counter_max);
	free(r->track_flags);
	free(r->max_depth);
	free(r->proc_order);
	free(r->track_order);
	free(r->lane_drawn);
	memset(r, 0, sizeof(*r));
}

size_t tl_rows_find(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	size_t i = tl_rows_lookup(r, kind, id);

	return i < r->n ? i : 0;
}

size_t tl_rows_lookup(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == kind && r->v[i].id == id)
			return i;
	return r->n;
}

uint32_t tl_row_track(const struct trex_index *idx, const struct tl_row *row)
{
	if (row->kind == TL_ROW_LANE)
		return trex_index_lane(idx, row->id)->track;
	if (row->kind == TL_ROW_COUNTER || row->kind == TL_ROW_INSTANTS)
		return row->id;
	return TREX_NONE;
}

size_t tl_rows_track_row(const struct tl_rows *r, const struct trex_index *idx, uint32_t track)
{
	for (size_t i = 0; i < r->n; i++)
		if (tl_row_track(idx, &r->v[i]) == track)
			return i;
	return r->n;
}

bool tl_rows_track_shown(const struct tl_rows *r, uint32_t track)
{
	return track_shown(r, track);
}

bool tl_rows_lane_drawn(const struct tl_rows *r, uint32_t lane)
{
	return r->lane_drawn[lane] != 0;
}

enum tl_hidden tl_rows_slice_hidden(const struct tl_rows *r, const struct trex_index *idx,
                                    uint32_t slice)
{
	const struct trex_slice *s = trex_index_slice(idx, slice);
	uint8_t f = r->track_flags[s->track];

	if (r->filter && !trex_search_slice_matches(r->filter, slice))
		return TL_HIDDEN_FILTER;
	if (!(f & TL_TRACK_PINNED) && (f & TL_TRACK_NOISE) && !r->show_hidden)
		return TL_HIDDEN_NOISE;
	if (!(f & TL_TRACK_PINNED) && (f & TL_TRACK_UNMATCHED))
		return TL_HIDDEN_TRACK_FILTER;
	if (!r->lane_drawn[trex_index_track(idx, s->track)->first_lane + s->depth])
		return TL_HIDDEN_DEPTH;
	return TL_SHOWN;
}

/* ---- labels and the track finder ----------------------------------------------------- */

void tl_file_label(const struct trex_index *idx, uint32_t file, char *buf, size_t size)
{
	char name[512];

	/* the base name, or as much of the path as tells runs of one rank apart */
	snprintf(buf, size, "rank %lld %s", (long long)trex_index_file(idx, file)->rank,
	         trex_file_name(idx, file, name, sizeof(name)));
}

void tl_process_label(const struct trex_index *idx, uint32_t process, char *buf, size_t size)
{
	const struct trex_process *p = trex_index_process(idx, process);
	const char *pid = trex_index_str(idx, p->pid),
	           *name = trex_process_title(idx, process, (char[128]){""}, 128);

	/* events with an empty pid (Kineto's global instants) still need a label */
	snprintf(buf, size, "%s %s", *pid || *name ? pid : "(no pid)", name);
}

const char *tl_track_name(const struct trex_index *idx, uint32_t track)
{
	const struct trex_track *t = trex_index_track(idx, track);
	const char *name = trex_index_str(idx, t->name);

	return name && *name ? name : trex_index_str(idx, t->tid);
}

const char *tl_track_label(const struct trex_index *idx, uint32_t track, char *buf, size_t size)
{
	size_t n;

	snprintf(buf, size, "%s", tl_track_name(idx, track));
	for (n = strlen(buf); n > 0 && buf[n - 1] == ' ';)
		buf[--n] = '\0';
	return buf;
}

void tl_track_text(const struct trex_index *idx, uint32_t track, int level, char *buf, size_t size)
{
	uint32_t process = trex_index_track(idx, track)->process;
	size_t len;

	tl_file_label(idx, trex_index_process(idx, process)->file, buf, size);
	len = strlen(buf);
	if (level >= 1 && len + 1 < size) {
		buf[len++] = ' ';
		tl_process_label(idx, process, buf + len, size - len);
		len += strlen(buf + len);
	}
	if (level >= 2 && len + 1 < size)
		snprintf(buf + len, size - len, " %s", tl_track_name(idx, track));
}

uint32_t tl_rows_set_track_filter(struct tl_rows *r, const struct trex_index *idx,
                                  struct trex_pattern *p)
{
	uint32_t n = 0;
	char text[1024];

	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		bool match = true;

		if (p) {
			tl_track_text(idx, t, 2, text, sizeof(text));
			match = trex_pattern_match(p, text);
		}
		r->track_flags[t] = (uint8_t)((r->track_flags[t] & ~TL_TRACK_UNMATCHED) |
		                              (match ? 0 : TL_TRACK_UNMATCHED));
		n += match;
	}
	r->track_filter = p != NULL;
	return n;
}

struct tl_place tl_rows_place(const struct tl_rows *r, const struct trex_index *idx, size_t i)
{
	const struct tl_row *row = &r->v[i];

	if (row->kind == TL_ROW_FILE)
		return (struct tl_place){0, row->id};
	if (row->kind == TL_ROW_PROCESS)
		return (struct tl_place){1, row->id};
	return (struct tl_place){2, tl_row_track(idx, row)};
}

/* The finder's places in display order, each with whether it is the
 * outermost match of p: a track whose process or file already matches
 * is not a stop of its own ("rank 3" stops at the rank, not at each of
 * its tracks). Returns how many; *places is malloc'd. */
struct finder_place {
	struct tl_place at;
	bool stop;
};

static size_t finder_places(const struct tl_rows *r, const struct trex_index *idx,
                            struct trex_pattern *p, struct finder_place *out)
{
	uint32_t np = trex_index_process_count(idx), ti = 0;
	size_t n = 0;
	char text[1024];
	bool file_match = false;

	for (uint32_t pi = 0; pi < np; pi++) {
		uint32_t pr = r->proc_order[pi];
		const struct trex_process *proc = trex_index_process(idx, pr);
		const uint32_t *tracks = r->track_order + ti;
		bool proc_match;

		ti += proc->track_count;
		if (pi == 0 || trex_index_process(idx, r->proc_order[pi - 1])->file != proc->file) {
			tl_file_label(idx, proc->file, text, sizeof(text));
			file_match = trex_pattern_match(p, text);
			out[n++] = (struct finder_place){{0, proc->file}, file_match};
		}
		if (!process_shown(r, tracks, proc->track_count))
			continue;
		if (proc->track_count)
			tl_track_text(idx, tracks[0], 1, text, sizeof(text));
		proc_match = proc->track_count && trex_pattern_match(p, text);
		out[n++] = (struct finder_place){{1, pr}, proc_match && !file_match};
		for (uint32_t i = 0; i < proc->track_count; i++) {
			if (!track_shown(r, tracks[i]))
				continue;
			tl_track_text(idx, tracks[i], 2, text, sizeof(text));
			out[n++] = (struct finder_place){{2, tracks[i]},
			                                 !file_match && !proc_match &&
			                                     trex_pattern_match(p, text)};
		}
	}
	return n;
}

bool tl_rows_find_next(const struct tl_rows *r, const struct trex_index *idx,
                       struct trex_pattern *p, struct tl_place from, struct tl_place *found)
{
	size_t cap = (size_t)trex_index_file_count(idx) + trex_index_process_count(idx) +
	             trex_index_track_count(idx) + 1;
	struct finder_place *v = malloc(cap * sizeof(*v));
	size_t n, start = 0;
	bool ok = false;

	if (!v)
		return false;
	n = finder_places(r, idx, p, v);
	for (size_t i = 0; i < n; i++)
		if (v[i].at.level == from.level && v[i].at.id == from.id)
			start = i + 1;
	for (size_t k = 0; k < n && !ok; k++) {
		size_t i = (start + k) % n;

		if (v[i].stop) {
			*found = v[i].at;
			ok = true;
		}
	}
	free(v);
	return ok;
}

size_t tl_rows_reveal(struct tl_rows *r, const struct trex_index *idx, struct tl_place place)
{
	uint32_t process = place.level == 1   ? place.id
	                   : place.level == 2 ? trex_index_track(idx, place.id)->process
	                                      : TREX_NONE;
	uint32_t file = process != TREX_NONE ? trex_index_process(idx, process)->file : place.id;
	bool pinned = place.level == 2 && (r->track_flags[place.id] & TL_TRACK_PINNED);

	if (!pinned &&
	    (r->file_collapsed[file] || (place.level == 2 && r->process_collapsed[process]))) {
		r->file_collapsed[file] = false;
		if (place.level == 2)
			r->process_collapsed[process] = false;
		if (!tl_rows_build(r, idx))
			return r->n;
	}
	if (place.level == 0)
		return tl_rows_lookup(r, TL_ROW_FILE, file);
	if (place.level == 1)
		return tl_rows_lookup(r, TL_ROW_PROCESS, process);
	return tl_rows_track_row(r, idx, place.id);
}

/* ---- row names ----------------------------------------------------------------------- */

static bool first_of_track(const struct tl_rows *r, const struct trex_index *idx, size_t i,
                           uint32_t track)
{
	return i == 0 || i == r->n_pinned || tl_row_track(idx, &r->v[i - 1]) != track;
}

static bool last_of_track(const struct tl_rows *r, const struct trex_index *idx, size_t i,
                          uint32_t track)
{
	return i + 1 >= r->n || i + 1 == r->n_pinned || tl_row_track(idx, &r->v[i + 1]) != track;
}

/* Levels of track a filter would show that its collapse or depth limit hides. */
static uint32_t hidden_levels(const struct tl_rows *r, const struct trex_index *idx, uint32_t track)
{
	const struct trex_track *t = trex_index_track(idx, track);
	uint32_t n = 0;

	for (uint32_t l = t->first_lane; l < t->first_lane + t->lane_count; l++)
		n += lane_has_match(r, l) && !r->lane_drawn[l];
	return n;
}

static int cols_of(const char *s)
{
	return trex_text_cols(s, strlen(s));
}

/* prefix name suffix in width columns: the long suffix when everything
 * fits, else the short one with the name cut (with an ellipsis) to make
 * room, unless that leaves the name under four columns: then no suffix. */
static void compose(char *buf, size_t size, int width, bool utf8, const char *prefix,
                    const char *name, const char *suffix, const char *short_suffix)
{
	int pw = cols_of(prefix), room = width - pw - cols_of(short_suffix) - 1;

	if (pw + cols_of(name) + cols_of(suffix) <= width || !*short_suffix)
		snprintf(buf, size, "%s%s%s", prefix, name, suffix);
	else if (pw + cols_of(name) + cols_of(short_suffix) <= width)
		snprintf(buf, size, "%s%s%s", prefix, name, short_suffix);
	else if (room < 4)
		snprintf(buf, size, "%s%s", prefix, name);
	else
		snprintf(buf, size, "%s%.*s%s%s", prefix,
		         (int)trex_text_fit(name, strlen(name), room), name,
		         utf8 ? "\xe2\x80\xa6" : "~", short_suffix);
}

/* Whether row i is the last lane row of its track (instants may follow). */
static bool last_lane(const struct tl_rows *r, const struct trex_index *idx, size_t i,
                      uint32_t track)
{
	return r->v[i].kind == TL_ROW_LANE &&
	       (last_of_track(r, idx, i, track) || r->v[i + 1].kind != TL_ROW_LANE);
}

static void track_label(const struct tl_rows *r, const struct trex_index *idx, size_t i, bool utf8,
                        int width, char *buf, size_t size)
{
	const struct tl_row *row = &r->v[i];
	uint32_t track = tl_row_track(idx, row);
	uint32_t hidden = last_lane(r, idx, i, track) ? hidden_levels(r, idx, track) : 0;
	bool last = last_of_track(r, idx, i, track);
	char prefix[64], name[32], more[16] = "", suffix[64], short_suffix[32], text[256];

	if (hidden)
		snprintf(more, sizeof(more), " +%u", hidden);
	snprintf(suffix, sizeof(suffix), "%s", more);
	snprintf(short_suffix, sizeof(short_suffix), "%s", more);
	if (first_of_track(r, idx, i, track)) {
		bool collapsed = r->track_flags[track] & TL_TRACK_COLLAPSED;
		int pl = snprintf(prefix, sizeof(prefix), "%s",
		                  collapsed ? (utf8 ? "  \xe2\x96\xb8 " : "  + ") : "   ");

		if (i < r->n_pinned && trex_index_file_count(idx) > 1)
			snprintf(prefix + pl, sizeof(prefix) - (size_t)pl, "r%lld ",
			         (long long)trex_index_file(idx, trex_index_track_file(idx, track))
			             ->rank);
		if (row->kind == TL_ROW_LANE && trex_index_lane(idx, row->id)->depth > 0) {
			uint32_t d = trex_index_lane(idx, row->id)->depth + 1;

			snprintf(suffix, sizeof(suffix), " (depth %u)%s", d, more);
			snprintf(short_suffix, sizeof(short_suffix), " d%u%s", d, more);
		}
		compose(buf, size, width, utf8, prefix,
		        tl_track_label(idx, track, text, sizeof(text)), suffix, short_suffix);
		return;
	}
	snprintf(prefix, sizeof(prefix), "   %s ",
	         utf8 ? (last ? "\xe2\x94\x94" : "\xe2\x94\x9c") : (last ? "`-" : "|-"));
	if (row->kind == TL_ROW_INSTANTS)
		snprintf(name, sizeof(name), "instants");
	else
		snprintf(name, sizeof(name), "depth %u", trex_index_lane(idx, row->id)->depth + 1);
	compose(buf, size, width, utf8, prefix, name, suffix, short_suffix);
}

void tl_rows_label(const struct tl_rows *r, const struct trex_index *idx, size_t i, bool utf8,
                   int width, char *buf, size_t size)
{
	const struct tl_row *row = &r->v[i];
	const char *open = utf8 ? "\xe2\x96\xbe" : "-", *closed = utf8 ? "\xe2\x96\xb8" : "+";
	char text[512];

	if (width <= 0)
		width = INT_MAX / 4;
	if (row->kind == TL_ROW_FILE) {
		tl_file_label(idx, row->id, text, sizeof(text));
		snprintf(buf, size, "%s %s", r->file_collapsed[row->id] ? closed : open, text);
	} else if (row->kind == TL_ROW_PROCESS) {
		tl_process_label(idx, row->id, text, sizeof(text));
		snprintf(buf, size, " %s %s", r->process_collapsed[row->id] ? closed : open, text);
	} else {
		track_label(r, idx, i, utf8, width, buf, size);
	}
}

bool tl_rows_is_depth_row(const struct tl_rows *r, const struct trex_index *idx, size_t i)
{
	const struct tl_row *row = &r->v[i];

	return row->kind != TL_ROW_FILE && row->kind != TL_ROW_PROCESS &&
	       !first_of_track(r, idx, i, tl_row_track(idx, row));
}

struct tl_body tl_rows_body(const struct tl_rows *r, int body_h)
{
	int pin_h;

	if (r->n_pinned == 0 || body_h < 3)
		return (struct tl_body){0, 0, body_h};
	pin_h = r->n_pinned < (size_t)(body_h / 2) ? (int)r->n_pinned : body_h / 2;
	return (struct tl_body){pin_h, pin_h + 1, body_h - pin_h - 1};
}

void tl_rows_scroll(const struct tl_rows *r, const struct tl_body *b, size_t cur, size_t *pin_top,
                    size_t *top_row)
{
	size_t np = b->pin_h ? r->n_pinned : 0, top = *top_row > np ? *top_row - np : 0;

	if (b->pin_h)
		*pin_top = trex_nav_follow(*pin_top, cur < np ? cur : *pin_top, b->pin_h, np);
	else
		*pin_top = 0;
	/* the rest keeps its place while the cursor is among the pinned rows */
	*top_row = np + trex_nav_follow(top, cur >= np ? cur - np : top, b->scroll_h, r->n - np);
}

size_t tl_rows_at_line(const struct tl_rows *r, const struct tl_body *b, size_t pin_top,
                       size_t top_row, int y)
{
	size_t i;

	if (y < b->pin_h) {
		i = pin_top + (size_t)y;
		return i < r->n_pinned ? i : TL_LINE_NONE;
	}
	if (b->pin_h && y == b->pin_h)
		return TL_LINE_SEPARATOR;
	i = top_row + (size_t)(y - b->scroll_y);
	return y >= b->scroll_y && i < r->n ? i : TL_LINE_NONE;
}

long tl_rows_line_of(const struct tl_rows *r, const struct tl_body *b, size_t pin_top,
                     size_t top_row, size_t row)
{
	if (b->pin_h && row < r->n_pinned) {
		long line = (long)row - (long)pin_top;

		return line < b->pin_h ? line : -1; /* a pinned row scrolled off: above */
	}
	if (row < top_row) /* above the scrolled part, never inside the pinned one */
		return -(long)(top_row - row);
	return b->scroll_y + (long)(row - top_row);
}
