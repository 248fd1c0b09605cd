#include "config.h"

#include "diff_goto.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/diff.h"
#include "trex/analysis/kernels.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/steps.h"
#include "trex/analysis/table.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

/* Room for normalised names: a rule never makes a name longer. */
struct name_room {
	char *buf;
	size_t cap;
};

/* Whether name id id of idx reads want through rules; verdict[id] caches
 * it (0: not known yet, 1: no, 2: yes). false with *st TREX_NOMEM when
 * there is no room. */
static bool name_is(const struct trex_index *idx, uint32_t id, unsigned rules, const char *want,
                    uint8_t *verdict, struct name_room *room, enum trex_status *st)
{
	size_t len = 0;
	const char *s;

	if (!verdict[id]) {
		s = trex_strtab_get(trex_index_strings(idx), id, &len);
		if (len + 1 > room->cap) {
			char *b = realloc(room->buf, len + 1);

			if (!b) {
				*st = TREX_NOMEM;
				return false;
			}
			room->buf = b;
			room->cap = len + 1;
		}
		trex_diff_normalize(s ? s : "", s ? len : 0, rules, room->buf, room->cap);
		verdict[id] = strcmp(room->buf, want) == 0 ? 2 : 1;
	}
	return verdict[id] == 2;
}

uint32_t diff_goto_longest(const struct trex_index *idx, uint8_t kind, const char *name,
                           unsigned rules, enum trex_status *st)
{
	const struct trex_strtab *strs = trex_index_strings(idx);
	uint32_t exact = rules ? TREX_STR_ERROR : trex_strtab_find(strs, name, strlen(name));
	uint8_t *verdict = rules ? calloc(trex_strtab_count(strs) + 1, 1) : NULL;
	struct name_room room = {NULL, 0};
	uint32_t best = TREX_NONE;

	*st = TREX_OK;
	if (rules && !verdict) {
		*st = TREX_NOMEM;
		exact = TREX_STR_ERROR;
	}
	for (uint32_t i = 0; i < trex_index_slice_count(idx) && *st == TREX_OK; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		bool match = s->kind == kind &&
		             (rules ? name_is(idx, s->name, rules, name, verdict, &room, st)
		                    : exact != TREX_STR_ERROR && s->name == exact);

		if (match && (best == TREX_NONE || s->dur > trex_index_slice(idx, best)->dur))
			best = i;
	}
	free(verdict);
	free(room.buf);
	return best;
}

/* Whether track is a GPU stream of rank called stream. */
static bool is_stream(const struct trex_index *idx, uint32_t track, int64_t rank,
                      const char *stream)
{
	const struct trex_track *tr = trex_index_track(idx, track);
	char dev[256], str[256], label[600];

	if (tr->kind != TREX_TRACK_GPU ||
	    trex_index_file(idx, trex_index_track_file(idx, track))->rank != rank)
		return false;
	snprintf(label, sizeof(label), "%s %s",
	         trex_device_name(idx, tr->process, dev, sizeof(dev)),
	         trex_track_label(idx, track, str, sizeof(str)));
	return strcmp(label, stream) == 0;
}

struct launch {
	int64_t ts;
	uint32_t id;
};

static int cmp_launch(const void *x, const void *y)
{
	const struct launch *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

uint32_t diff_goto_stream_kernel(const struct trex_index *idx, int64_t rank, const char *stream,
                                 int64_t pos)
{
	uint32_t nt = trex_index_track_count(idx), n = 0, found = TREX_NONE;
	bool *in = calloc(nt ? nt : 1, sizeof(*in));
	struct launch *v = NULL;

	if (!in || pos < 0)
		goto out;
	for (uint32_t t = 0; t < nt; t++)
		in[t] = is_stream(idx, t, rank, stream);
	v = malloc((trex_index_slice_count(idx) + 1) * sizeof(*v));
	if (!v)
		goto out;
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		if (s->kind == TREX_KIND_KERNEL && in[s->track])
			v[n++] = (struct launch){s->ts, i};
	}
	if ((uint64_t)pos < n) {
		qsort(v, n, sizeof(*v), cmp_launch);
		found = v[pos].id;
	}
out:
	free(in);
	free(v);
	return found;
}

uint32_t diff_goto_step(const struct trex_index *idx, const char *pattern, int64_t rank, int64_t n,
                        enum trex_status *st, struct trex_error *err)
{
	struct trex_step_opts opts = {pattern};
	struct trex_table t;
	uint32_t *ids = NULL, found = TREX_NONE;

	*st = trex_steps_table(idx, &opts, &t, &ids, err);
	if (*st != TREX_OK)
		return TREX_NONE;
	for (size_t r = 0, col = 0; r < t.nrows && found == TREX_NONE; r++) {
		while (col < t.ncols && strcmp(t.cols[col].key, "rank") != 0)
			col++;
		if (col < t.ncols && trex_table_cell(&t, r, col)->count == rank && n-- == 0)
			found = ids[r];
	}
	free(ids);
	trex_table_free(&t);
	return found;
}
