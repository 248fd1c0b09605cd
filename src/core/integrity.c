/* Integrity counters and their examples: the counter table's helpers, the
 * example lists of builders and files, and the index's query API for them
 * (index.h). */
#include "config.h"

#include "trex/core/index.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "integrity_internal.h"

/* ---- counters -------------------------------------------------------------------- */

static const struct {
	const char *name, *label;
	size_t offset;
} counters[TREX_INTEG_COUNT] = {
#define COUNTER_ROW(field, label) {#field, label, offsetof(struct trex_integrity, field)},
    TREX_INTEGRITY_INFO(COUNTER_ROW)
#undef COUNTER_ROW
};

const char *trex_integrity_name(enum trex_integrity_counter c)
{
	return (unsigned)c < TREX_INTEG_COUNT ? counters[c].name : NULL;
}

const char *trex_integrity_label(enum trex_integrity_counter c)
{
	return (unsigned)c < TREX_INTEG_COUNT ? counters[c].label : "";
}

uint64_t trex_integrity_get(const struct trex_integrity *in, enum trex_integrity_counter c)
{
	uint64_t v;

	if ((unsigned)c >= TREX_INTEG_COUNT)
		return 0;
	memcpy(&v, (const char *)in + counters[c].offset, sizeof(v));
	return v;
}

void trex_integrity_count(struct trex_integrity *in, enum trex_integrity_counter c, uint64_t n)
{
	uint64_t v = trex_integrity_get(in, c) + n;

	if ((unsigned)c < TREX_INTEG_COUNT)
		memcpy((char *)in + counters[c].offset, &v, sizeof(v));
}

/* The damage counters are the contiguous tail of the table (index.h). */
bool trex_integrity_is_damage(enum trex_integrity_counter c)
{
	return c >= TREX_INTEG_missing_fields && c < TREX_INTEG_COUNT;
}

bool trex_integrity_damaged(const struct trex_integrity *in)
{
	for (int c = TREX_INTEG_missing_fields; c < TREX_INTEG_COUNT; c++) {
		if (trex_integrity_get(in, (enum trex_integrity_counter)c))
			return true;
	}
	return false;
}

/* ---- example lists ----------------------------------------------------------------- */

bool trex_problem_is_span(const struct trex_problem *p)
{
	return p->counter == TREX_INTEG_syntax_errors || p->counter == TREX_INTEG_bytes_skipped ||
	       p->counter == TREX_INTEG_events_lost || p->counter == TREX_INTEG_bytes_ignored;
}

/* Spans noted in their own right (the others are copies of these). */
static bool primary_span(const struct trex_problem *p)
{
	return p->counter == TREX_INTEG_syntax_errors || p->counter == TREX_INTEG_bytes_ignored;
}

/* Longer wins; at equal length the earlier in the file. */
void trex_problems_offer_largest(struct trex_problem_list *l, const struct trex_problem *p)
{
	if (l->has_largest && (p->length < l->largest.length ||
	                       (p->length == l->largest.length && p->offset >= l->largest.offset)))
		return;
	l->largest = *p;
	l->has_largest = true;
}

static bool add_one(struct trex_problem_list *l, const struct trex_problem *p, uint8_t counter)
{
	if ((unsigned)counter >= TREX_INTEG_COUNT || l->per[counter] >= TREX_PROBLEM_EXAMPLES)
		return true;
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 8;
		struct trex_problem *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return false;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = *p;
	l->v[l->n++].counter = counter;
	l->per[counter]++;
	return true;
}

bool trex_problems_add(struct trex_problem_list *l, const struct trex_problem *p)
{
	bool ok = add_one(l, p, p->counter);

	if (!primary_span(p))
		return ok;
	trex_problems_offer_largest(l, p);
	if (ok && p->counter == TREX_INTEG_syntax_errors && p->length > 0)
		ok = add_one(l, p, TREX_INTEG_bytes_skipped);
	if (ok && p->events_lost > 0)
		ok = add_one(l, p, TREX_INTEG_events_lost);
	return ok;
}

void trex_problems_finish(struct trex_problem_list *l)
{
	/* per counter, the examples in the order they came: a stable
	 * distribution by counter through a copy */
	struct trex_problem *tmp = l->n > 1 ? malloc(l->n * sizeof(*tmp)) : NULL;
	uint32_t at = 0;

	for (int c = 0; c < TREX_INTEG_COUNT; c++) {
		l->first[c] = at;
		for (uint32_t i = 0; i < l->n; i++) {
			if (l->v[i].counter != c)
				continue;
			if (tmp)
				tmp[at] = l->v[i];
			at++;
		}
	}
	l->first[TREX_INTEG_COUNT] = l->n;
	if (tmp)
		memcpy(l->v, tmp, l->n * sizeof(*tmp));
	else if (l->n > 1) /* no memory for the copy: no examples rather than wrong ones */
		memset(l->first, 0, sizeof(l->first));
	free(tmp);
}

void trex_problems_free(struct trex_problem_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- the build's candidates --------------------------------------------------------- */

static int cand_cmp(const struct trex_problem_cand *a, const struct trex_problem_cand *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return (a->value > b->value) - (a->value < b->value);
}

void trex_earliest_offer(struct trex_earliest *e, const struct trex_problem_cand *cand)
{
	uint32_t i;

	if (e->n == TREX_PROBLEM_EXAMPLES && cand_cmp(cand, &e->c[e->n - 1]) >= 0)
		return;
	if (e->n < TREX_PROBLEM_EXAMPLES)
		e->n++;
	for (i = e->n - 1; i > 0 && cand_cmp(cand, &e->c[i - 1]) < 0; i--)
		e->c[i] = e->c[i - 1];
	e->c[i] = *cand;
}

void trex_earliest_merge(struct trex_earliest *dst, const struct trex_earliest *src)
{
	for (uint32_t i = 0; i < src->n; i++)
		trex_earliest_offer(dst, &src->c[i]);
}

/* ---- queries ------------------------------------------------------------------------ */

static const struct trex_problem_list *file_problems(const struct trex_index *idx, uint32_t file)
{
	return idx->problems && file < idx->nfiles ? &idx->problems[file] : NULL;
}

uint32_t trex_index_problem_count(const struct trex_index *idx, uint32_t file,
                                  enum trex_integrity_counter c)
{
	const struct trex_problem_list *l = file_problems(idx, file);

	if (!l || (unsigned)c >= TREX_INTEG_COUNT)
		return 0;
	return l->first[c + 1] - l->first[c];
}

const struct trex_problem *trex_index_problem(const struct trex_index *idx, uint32_t file,
                                              enum trex_integrity_counter c, uint32_t i)
{
	if (i >= trex_index_problem_count(idx, file, c))
		return NULL;
	return &file_problems(idx, file)->v[file_problems(idx, file)->first[c] + i];
}

const struct trex_problem *trex_index_damage(const struct trex_index *idx, uint32_t file,
                                             bool largest)
{
	const struct trex_problem_list *l = file_problems(idx, file);
	const struct trex_problem *skip, *cut;

	if (!l || !l->has_largest)
		return NULL;
	if (largest)
		return &l->largest;
	skip = trex_index_problem(idx, file, TREX_INTEG_syntax_errors, 0);
	cut = trex_index_problem(idx, file, TREX_INTEG_bytes_ignored, 0);
	if (!skip || (cut && cut->offset >= 0 && cut->offset < skip->offset))
		return cut;
	return skip;
}

/* Text appended to a fixed buffer, counting what would not fit as
 * snprintf does. */
struct text_out {
	char *buf;
	size_t size;
	int n;
};

static void out_printf(struct text_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void out_printf(struct text_out *o, const char *fmt, ...)
{
	size_t at = o->n >= 0 && (size_t)o->n < o->size ? (size_t)o->n : o->size ? o->size - 1 : 0;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(o->size ? o->buf + at : NULL, o->size - at, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += k;
}

/* "PATH:LINE:COL: (byte N, compressed byte C) WHAT" or "PATH: WHAT" */
static void format_where(struct text_out *o, const char *path, const struct trex_problem *p)
{
	struct trex_error e;
	char line[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 96];

	trex_error_clear(&e);
	trex_error_set(&e, TREX_FORMAT, path, p->offset, "%s", p->what);
	trex_error_set_line_col(&e, p->line, p->col);
	e.disk_offset = p->offset >= 0 ? p->disk_offset : -1;
	trex_error_format(&e, line, sizeof(line));
	out_printf(o, "%s", line);
}

int trex_problem_format(const struct trex_index *idx, uint32_t file, const struct trex_problem *p,
                        char *buf, size_t size)
{
	const struct trex_file *f = trex_index_file(idx, file);
	const struct trex_track *tr =
	    p->track != TREX_NONE ? trex_index_track(idx, p->track) : NULL;
	struct text_out o = {buf, size, 0};
	const char *sep = " [";

	if (size)
		buf[0] = '\0';
	format_where(&o, f ? trex_index_str(idx, f->path) : "", p);
	if (tr) {
		out_printf(&o, "%strack %s", sep, trex_index_str(idx, tr->name));
		sep = ", ";
	}
	if (p->has_ts) {
		out_printf(&o, "%sts %" PRId64 " ns", sep, p->ts);
		sep = ", ";
	}
	if (p->name != TREX_NONE) {
		out_printf(&o, "%s\"%s\"", sep, trex_index_str(idx, p->name));
		sep = ", ";
	}
	if (sep[0] == ',')
		out_printf(&o, "]");
	if (trex_problem_is_span(p))
		out_printf(&o, " (%" PRIu64 " byte%s, %" PRIu64 " event%s lost)", p->length,
		           p->length == 1 ? "" : "s", p->events_lost,
		           p->events_lost == 1 ? "" : "s");
	return o.n;
}

/* ---- from builders to the index --------------------------------------------------------- */

static uint32_t map_or_none(const uint32_t *map, uint32_t n, uint32_t id)
{
	return id < n ? map[id] : TREX_NONE;
}

static int64_t add_clamped(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

static void map_problem(struct trex_problem *p, const uint32_t *smap, uint32_t ns,
                        const uint32_t *tmap, uint32_t nt, int64_t base)
{
	p->track = map_or_none(tmap, nt, p->track);
	p->name = map_or_none(smap, ns, p->name);
	p->slice = TREX_NONE;
	if (p->has_ts)
		p->ts = add_clamped(p->ts, base);
}

bool trex_problems_merge_part(struct trex_problem_list *file, const struct trex_problem_list *part,
                              const uint32_t *smap, uint32_t ns, const uint32_t *tmap, uint32_t nt,
                              int64_t base)
{
	/* taken as they are, copies of spans included: each part kept the
	 * first of every counter in file order, so the file keeps its first */
	for (uint32_t i = 0; i < part->n; i++) {
		struct trex_problem p = part->v[i];

		map_problem(&p, smap, ns, tmap, nt, base);
		if (!add_one(file, &p, p.counter))
			return false;
	}
	if (part->has_largest) {
		struct trex_problem p = part->largest;

		map_problem(&p, smap, ns, tmap, nt, base);
		trex_problems_offer_largest(file, &p);
	}
	return true;
}

void trex_problems_remap_tracks(struct trex_problem_list *l, const uint32_t *track_new,
                                uint32_t ntracks)
{
	for (uint32_t i = 0; i < l->n; i++)
		l->v[i].track = map_or_none(track_new, ntracks, l->v[i].track);
	if (l->has_largest)
		l->largest.track = map_or_none(track_new, ntracks, l->largest.track);
}

void trex_earliest_remap_tracks(struct trex_earliest *e, const uint32_t *track_new,
                                uint32_t ntracks)
{
	for (uint32_t i = 0; i < e->n; i++)
		e->c[i].track = map_or_none(track_new, ntracks, e->c[i].track);
}

/* What the build's candidate of counter k says. */
static void cand_what(enum trex_integrity_counter k, const struct trex_problem_cand *c, char *buf,
                      size_t size)
{
	switch (k) {
	case TREX_INTEG_overlaps:
		snprintf(buf, size,
		         "starts inside an earlier slice and ends %" PRId64 " ns after it",
		         c->value);
		break;
	case TREX_INTEG_zero_duration:
		snprintf(buf, size, "zero duration");
		break;
	case TREX_INTEG_reversed:
		snprintf(buf, size, "negative duration %" PRId64 " ns, clamped to 0", c->value);
		break;
	case TREX_INTEG_unmatched_begin:
		snprintf(buf, size, "B without an E: runs to the file's last event");
		break;
	case TREX_INTEG_unmatched_end:
		snprintf(buf, size, "%s",
		         c->value ? "async e without an open b of its id"
		                  : "E without an open B on its track");
		break;
	case TREX_INTEG_orphan_flow_start:
		snprintf(buf, size, "flow start (id %" PRId64 ") without a step or end", c->value);
		break;
	case TREX_INTEG_orphan_flow_end:
		snprintf(buf, size, "flow step or end (id %" PRId64 ") without a start", c->value);
		break;
	case TREX_INTEG_unbound_flow_points:
		snprintf(buf, size, "flow %s on no slice of its track", c->value ? "end" : "start");
		break;
	case TREX_INTEG_saturated_numbers:
		snprintf(buf, size, "end beyond int64 ns (dur %" PRId64 " ns), clamped", c->value);
		break;
	default:
		snprintf(buf, size, "%s", trex_integrity_label(k));
		break;
	}
}

bool trex_problems_add_cands(struct trex_problem_list *l, enum trex_integrity_counter k,
                             const struct trex_earliest *e)
{
	for (uint32_t i = 0; i < e->n; i++) {
		struct trex_problem p;

		memset(&p, 0, sizeof(p));
		p.counter = (uint8_t)k;
		p.offset = -1;
		p.disk_offset = -1;
		p.ts = e->c[i].ts;
		p.has_ts = true;
		p.track = e->c[i].track;
		p.name = e->c[i].name;
		p.slice = TREX_NONE;
		cand_what(k, &e->c[i], p.what, sizeof(p.what));
		if (!trex_problems_add(l, &p))
			return false;
	}
	return true;
}

/* Counters whose example is an event kept as a slice, found again by
 * (track, ts, name). */
static bool about_kept_slice(uint8_t k)
{
	switch (k) {
	case TREX_INTEG_overlaps:
	case TREX_INTEG_zero_duration:
	case TREX_INTEG_reversed:
	case TREX_INTEG_unmatched_begin:
	case TREX_INTEG_saturated_numbers:
	case TREX_INTEG_unknown_keys:
	case TREX_INTEG_bad_values:
	case TREX_INTEG_bad_dur:
	case TREX_INTEG_bad_ids:
	case TREX_INTEG_invalid_utf8:
		return true;
	default:
		return false;
	}
}

/* The shallowest slice on track starting at ts named name (any name when
 * name is TREX_NONE); TREX_NONE if none. */
static uint32_t find_slice(const struct trex_index *idx, uint32_t track, int64_t ts, uint32_t name)
{
	const struct trex_track *tr = trex_index_track(idx, track);

	for (uint32_t d = 0; tr && d < tr->lane_count && ts > INT64_MIN; d++) {
		const struct trex_lane *lane = trex_index_lane(idx, tr->first_lane + d);
		uint32_t end = lane->first + lane->count;

		for (uint32_t i = trex_lane_find_start_after(idx, lane, ts - 1); i < end; i++) {
			const struct trex_slice *s = trex_index_slice(idx, i);

			if (s->ts != ts)
				break;
			if (name == TREX_NONE || s->name == name)
				return i;
		}
	}
	return TREX_NONE;
}

static void resolve_slices(const struct trex_index *idx, struct trex_problem_list *l)
{
	for (uint32_t i = 0; i < l->n; i++) {
		struct trex_problem *p = &l->v[i];

		if (p->track != TREX_NONE && p->has_ts && about_kept_slice(p->counter))
			p->slice = find_slice(idx, p->track, p->ts, p->name);
	}
}

static int cmp_offset_ptr(const void *pa, const void *pb)
{
	const struct trex_problem *a = *(const struct trex_problem *const *)pa;
	const struct trex_problem *b = *(const struct trex_problem *const *)pb;

	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* line:col and compressed offsets of every example with an offset, in one
 * pass over the file, when its codec knows them. */
static void locate(const struct trex_file *f, struct trex_problem_list *l)
{
	size_t n = 0;
	struct trex_problem **ps = malloc(((size_t)l->n + 1) * sizeof(*ps));
	uint64_t *off = malloc(((size_t)l->n + 1) * sizeof(*off));
	int64_t *pos = malloc(3 * ((size_t)l->n + 1) * sizeof(*pos));
	struct trex_error err;

	for (uint32_t i = 0; ps && i < l->n; i++) {
		if (l->v[i].offset >= 0)
			ps[n++] = &l->v[i];
	}
	if (ps && l->has_largest && l->largest.offset >= 0)
		ps[n++] = &l->largest;
	if (!ps || !off || !pos || n == 0 || !f->codec || !f->codec_ctx || !f->codec->positions) {
		free(ps);
		free(off);
		free(pos);
		return;
	}
	qsort(ps, n, sizeof(*ps), cmp_offset_ptr);
	for (size_t i = 0; i < n; i++)
		off[i] = (uint64_t)ps[i]->offset;
	trex_error_clear(&err);
	if (f->codec->positions(f->codec_ctx, off, n, pos, pos + n, pos + 2 * n, &err) == TREX_OK) {
		for (size_t i = 0; i < n; i++) {
			ps[i]->line = pos[i];
			ps[i]->col = pos[n + i];
			ps[i]->disk_offset = pos[2 * n + i];
		}
	}
	free(ps);
	free(off);
	free(pos);
}

void trex_problems_complete(struct trex_index *idx, uint32_t file)
{
	struct trex_problem_list *l = &idx->problems[file];

	resolve_slices(idx, l);
	locate(&idx->files[file], l);
	trex_problems_finish(l);
}
