#include "config.h"

#include "timeline_compare_tracks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_view.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/search.h"
#include "trex/core/strtab.h"

/* ---- matching ------------------------------------------------------------------------------ */

/* The text that names item of idx at one level (file, process, track). */
typedef void (*key_fn)(const struct trex_index *idx, uint32_t item, char *buf, size_t size);

static void file_key(const struct trex_index *idx, uint32_t file, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRId64, trex_index_file(idx, file)->rank);
}

static void process_key(const struct trex_index *idx, uint32_t process, char *buf, size_t size)
{
	char title[256];
	size_t len;

	file_key(idx, trex_index_process(idx, process)->file, buf, size);
	len = strlen(buf);
	snprintf(buf + len, size - len, "\x1f%s",
	         trex_process_title(idx, process, title, sizeof(title)));
}

/* Whether a track has a name of its own: not none, not the "thread
 * <tid>" the index makes for a CPU thread without one (tids differ between
 * runs; a stream's number does not). */
static bool has_own_name(const struct trex_index *idx, const struct trex_track *t)
{
	const char *name = trex_index_str(idx, t->name), *tid = trex_index_str(idx, t->tid);

	if (!name || !*name)
		return false;
	return t->kind != TREX_TRACK_THREAD || strncmp(name, "thread ", 7) != 0 || !tid ||
	       strcmp(name + 7, tid) != 0;
}

/* Its process and its name; "" for a track without one (matched by order). */
static void track_key(const struct trex_index *idx, uint32_t track, char *buf, size_t size)
{
	const struct trex_track *t = trex_index_track(idx, track);
	char label[256];
	size_t len;

	process_key(idx, t->process, buf, size);
	len = strlen(buf);
	snprintf(buf + len, size - len, "\x1f%s",
	         has_own_name(idx, t) ? tl_track_label(idx, track, label, sizeof(label)) : "");
}

/* An item's key: its text's id, then which of that text it is. */
struct keyed {
	uint64_t key;
	uint32_t item;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->item > b->item) - (a->item < b->item);
}

/* v[0..n): the keys of idx's items through key, text ids from tab, sorted;
 * the n-th item of one text (in id order) gets n in the low half. */
static bool side_keys(struct trex_strtab *tab, const struct trex_index *idx, uint32_t n, key_fn key,
                      struct keyed *v)
{
	char buf[640];

	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;

		key(idx, i, buf, sizeof(buf));
		id = trex_strtab_intern(tab, buf, strlen(buf));
		if (id == TREX_STR_ERROR)
			return false;
		v[i] = (struct keyed){(uint64_t)id << 32, i};
	}
	qsort(v, n, sizeof(*v), cmp_keyed);
	for (uint32_t i = 1; i < n; i++)
		if (v[i].key >> 32 == v[i - 1].key >> 32)
			v[i].key = v[i - 1].key + 1;
	return true;
}

/* out[s][item]: the counterpart of side s's item, TREX_NONE without one. */
static bool match_level(const struct trex_index *const idx[2], const uint32_t n[2], key_fn key,
                        uint32_t *out[2])
{
	struct trex_strtab *tab = trex_strtab_new();
	struct keyed *v[2] = {NULL, NULL};
	bool ok = tab != NULL;

	for (int s = 0; s < 2; s++) {
		out[s] = malloc(((size_t)n[s] + 1) * sizeof(*out[s]));
		v[s] = malloc(((size_t)n[s] + 1) * sizeof(*v[s]));
		ok = ok && out[s] && v[s] && side_keys(tab, idx[s], n[s], key, v[s]);
		for (uint32_t i = 0; out[s] && i < n[s]; i++)
			out[s][i] = TREX_NONE;
	}
	for (uint32_t i = 0, j = 0; ok && i < n[1]; i++) {
		while (j < n[0] && v[0][j].key < v[1][i].key)
			j++;
		if (j < n[0] && v[0][j].key == v[1][i].key) {
			out[1][v[1][i].item] = v[0][j].item;
			out[0][v[0][j].item] = v[1][i].item;
		}
	}
	trex_strtab_free(tab);
	free(v[0]);
	free(v[1]);
	return ok;
}

bool tl_track_match_init(struct tl_track_match *m, const struct trex_index *a,
                         const struct trex_index *b)
{
	const struct trex_index *const idx[2] = {a, b};
	const uint32_t files[2] = {trex_index_file_count(a), trex_index_file_count(b)},
	               procs[2] = {trex_index_process_count(a), trex_index_process_count(b)},
	               tracks[2] = {trex_index_track_count(a), trex_index_track_count(b)};

	memset(m, 0, sizeof(*m));
	if (match_level(idx, files, file_key, m->file) &&
	    match_level(idx, procs, process_key, m->process) &&
	    match_level(idx, tracks, track_key, m->track))
		return true;
	tl_track_match_free(m);
	return false;
}

void tl_track_match_free(struct tl_track_match *m)
{
	for (int s = 0; s < 2; s++) {
		free(m->file[s]);
		free(m->process[s]);
		free(m->track[s]);
	}
	memset(m, 0, sizeof(*m));
}

/* ---- following --------------------------------------------------------------------------- */

/* to's track filter as from's: the same pattern, and to's tracks with a
 * counterpart matching as it does (their texts name another run's file). */
static bool follow_filter(struct timeline_view *to, const struct timeline_view *from,
                          const uint32_t *track_of)
{
	const char *want = from->track_filter ? trex_pattern_text(from->track_filter) : NULL;
	const char *have = to->track_filter ? trex_pattern_text(to->track_filter) : NULL;
	bool changed = false;

	if (!want != !have || (want && strcmp(want, have) != 0)) {
		struct trex_pattern *p = NULL;
		struct trex_error err;

		if (want && trex_pattern_new(want, &p, &err) != TREX_OK)
			return false; /* from compiled it: only out of memory */
		if (to->track_filter != to->track_filter_saved)
			trex_pattern_free(to->track_filter);
		to->track_filter = p;
		tl_rows_set_track_filter(&to->rows, to->idx, p);
		changed = true;
	}
	for (uint32_t t = 0; want && t < trex_index_track_count(to->idx); t++) {
		uint8_t *f = &to->rows.track_flags[t];
		uint8_t bit;

		if (track_of[t] == TREX_NONE)
			continue;
		bit = from->rows.track_flags[track_of[t]] & TL_TRACK_UNMATCHED;
		if ((*f & TL_TRACK_UNMATCHED) != bit) {
			*f = (uint8_t)((*f & ~TL_TRACK_UNMATCHED) | bit);
			changed = true;
		}
	}
	return changed;
}

/* Pins, folds and depth limits of to's tracks with a counterpart. */
static bool follow_track_flags(struct timeline_view *to, const struct timeline_view *from,
                               const uint32_t *track_of)
{
	const uint8_t keep = TL_TRACK_PINNED | TL_TRACK_COLLAPSED;
	bool changed = false;

	for (uint32_t t = 0; t < trex_index_track_count(to->idx); t++) {
		uint32_t c = track_of[t], lanes = trex_index_track(to->idx, t)->lane_count;
		uint8_t flags;
		uint16_t depth;

		if (c == TREX_NONE)
			continue;
		flags = (uint8_t)((to->rows.track_flags[t] & ~keep) |
		                  (from->rows.track_flags[c] & keep));
		depth = from->rows.max_depth[c] >= lanes ? 0 : from->rows.max_depth[c];
		if (flags != to->rows.track_flags[t] || depth != to->rows.max_depth[t]) {
			to->rows.track_flags[t] = flags;
			to->rows.max_depth[t] = depth;
			changed = true;
		}
	}
	return changed;
}

/* Collapsed ranks and processes of to with a counterpart. */
static bool follow_groups(bool *to, const bool *from, const uint32_t *of, uint32_t n)
{
	bool changed = false;

	for (uint32_t i = 0; i < n; i++)
		if (of[i] != TREX_NONE && to[i] != from[of[i]]) {
			to[i] = from[of[i]];
			changed = true;
		}
	return changed;
}

bool tl_compare_follow_tracks(struct timeline_view *to, const struct timeline_view *from,
                              const struct tl_track_match *m, int to_side)
{
	bool changed = to->rows.show_hidden != from->rows.show_hidden;

	to->rows.show_hidden = from->rows.show_hidden;
	changed |= follow_groups(to->rows.file_collapsed, from->rows.file_collapsed,
	                         m->file[to_side], trex_index_file_count(to->idx));
	changed |= follow_groups(to->rows.process_collapsed, from->rows.process_collapsed,
	                         m->process[to_side], trex_index_process_count(to->idx));
	changed |= follow_filter(to, from, m->track[to_side]);
	changed |= follow_track_flags(to, from, m->track[to_side]);
	if (changed)
		tl_rebuild(to);
	return changed;
}
