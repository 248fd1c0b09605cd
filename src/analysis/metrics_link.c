/* Linking metric instances to the trace's kernels (analysis/metrics.h has
 * the rules). */
#include "config.h"

#include "trex/analysis/metrics.h"

#include "metrics_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/slice_info.h"
#include "trex/analysis/work.h"
#include "trex/core/display.h"

static const char *const link_names[TREX_MLINK_COUNT] = {
    [TREX_MLINK_NONE] = "-",
    [TREX_MLINK_ID] = "id",
    [TREX_MLINK_ORDER] = "order",
    [TREX_MLINK_IN_TRACE] = "trace",
    [TREX_MLINK_NO_ID] = "no such id",
    [TREX_MLINK_OTHER_NAME] = "other kernel's id",
    [TREX_MLINK_NO_KERNEL] = "no such kernel",
    [TREX_MLINK_EXTRA] = "more than the trace",
    [TREX_MLINK_AMBIGUOUS] = "ambiguous",
    [TREX_MLINK_IDLE] = "idle",
};

const char *trex_metrics_link_name(enum trex_metrics_link link)
{
	return (unsigned)link < TREX_MLINK_COUNT ? link_names[link] : "";
}

/* ---- kernel names -----------------------------------------------------------------------------
 */

/* " {a; b; c}" ending at end (exclusive): its start, or NULL. */
static const char *brace_group(const char *s, const char *end)
{
	const char *p = end;

	if (p - s < 4 || p[-1] != '}')
		return NULL;
	for (p -= 2; p > s && *p != '{'; p--) {
		if (*p != ';' && *p != ' ' && (*p < '0' || *p > '9'))
			return NULL;
	}
	return p > s && *p == '{' && p[-1] == ' ' ? p - 1 : NULL;
}

size_t trex_kernel_name_base(const char *name, size_t len)
{
	const char *s = name, *end = name + len, *g1, *g2, *p;

	if (len < 3 || end[-1] != ']')
		return len;
	/* "[4194304]": a copy's bytes */
	for (p = end - 2; p > s && *p >= '0' && *p <= '9'; p--)
		;
	if (*p == '[' && p < end - 2)
		return (size_t)(p - s);
	/* "[SIMD32 {gx; gy; gz} {lx; ly; lz}]", or without "[SIMD.." (no SIMD width) */
	if (!(g2 = brace_group(s, end - 1)) || !(g1 = brace_group(s, g2)))
		return len;
	for (p = g1; p > s && p[-1] != '['; p--) {
		if (p[-1] == ' ' || p[-1] == ']')
			return (size_t)(g1 - s);
	}
	if (p > s && g1 - p >= 4 && memcmp(p, "SIMD", 4) == 0)
		return (size_t)(p - 1 - s);
	return (size_t)(g1 - s);
}

/* "Tile #N: " of a per-tile copy: its length, else 0. */
static size_t tile_prefix(const char *name)
{
	const char *p = name;

	if (strncmp(p, "Tile #", 6) != 0)
		return 0;
	for (p += 6; *p >= '0' && *p <= '9'; p++)
		;
	return p[0] == ':' && p[1] == ' ' ? (size_t)(p + 2 - name) : 0;
}

/* Do two kernel names fit (same base, same shape where both have one)? */
static bool names_fit(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t ba = trex_kernel_name_base(a, la), bb = trex_kernel_name_base(b, lb);

	if (ba != bb || memcmp(a, b, ba) != 0)
		return false;
	return ba == la || bb == lb || (la == lb && memcmp(a + ba, b + bb, la - ba) == 0);
}

/* ---- the trace's kernels
 * ------------------------------------------------------------------------- */

struct trace_kernel {
	int64_t id;
	int64_t ts;
	uint32_t slice;
	bool has_id;
};

struct trace_side {
	struct trace_kernel *v;
	size_t n;
};

/* args.id of a unitrace GPU op ("12" or 12); false when it has none. */
static enum trex_status slice_id(const struct trex_index *idx, uint32_t slice, int64_t *id,
                                 bool *has, struct trex_error *err)
{
	struct trex_args a;
	enum trex_status s = trex_slice_args(idx, slice, &a, err);

	*has = false;
	for (size_t i = 0; s == TREX_OK && i < a.n && !*has; i++) {
		char *end;
		const char *v = a.v[i].value;

		if (strcmp(a.v[i].key, "id") != 0 || !*v)
			continue;
		*id = strtoll(v, &end, 10);
		*has = *end == '\0';
	}
	if (s == TREX_OK)
		trex_args_free(&a);
	return s;
}

static bool unitrace_file(const struct trex_index *idx, uint32_t slice)
{
	uint32_t file = trex_index_track_file(idx, trex_index_slice(idx, slice)->track);

	return strcmp(trex_index_str(idx, trex_index_file(idx, file)->dialect), "unitrace") == 0;
}

/* Every piece of device work; with ids, unitrace's instance ids too. */
static enum trex_status collect_trace(const struct trex_index *idx, bool ids,
                                      struct trace_side *out, struct trex_error *err)
{
	struct trex_work w;
	uint32_t n = trex_index_slice_count(idx);
	enum trex_status s = TREX_OK;

	trex_work_count(idx, &w);
	out->n = 0;
	out->v = malloc((w.kernels + w.memcpys + w.memsets + 1) * sizeof(*out->v));
	if (!out->v)
		s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t i = 0; s == TREX_OK && i < n; i++) {
		struct trace_kernel *k;

		if (!trex_work_is_device(&w, i))
			continue;
		k = &out->v[out->n++];
		*k = (struct trace_kernel){0, trex_index_slice(idx, i)->ts, i, false};
		if (ids && unitrace_file(idx, i))
			s = slice_id(idx, i, &k->id, &k->has_id, err);
	}
	return s;
}

static int by_id(const void *a, const void *b)
{
	const struct trace_kernel *x = a, *y = b;

	if (x->has_id != y->has_id)
		return x->has_id ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

static int by_time(const void *a, const void *b)
{
	const struct trace_kernel *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

/* ---- by id
 * --------------------------------------------------------------------------------------- */

static const char *slice_name(const struct trex_index *idx, uint32_t slice)
{
	return trex_index_str(idx, trex_index_slice(idx, slice)->name);
}

/* The trace kernels with id: [*lo, *hi) of t (sorted by id). */
static void id_range(const struct trace_side *t, int64_t id, size_t *lo, size_t *hi)
{
	size_t a = 0, b = t->n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (t->v[mid].has_id && t->v[mid].id < id)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < t->n && t->v[a].has_id && t->v[a].id == id)
		a++;
	*hi = a;
}

static void link_by_id(const struct trex_index *idx, struct trex_metrics *m, uint32_t inst,
                       const struct trace_side *t)
{
	const struct trex_metrics_instance *in = trex_metrics_instance(m, inst);
	const char *kernel = trex_metrics_str(m, in->kernel);
	uint32_t whole = TREX_METRICS_NONE, tile = TREX_METRICS_NONE;
	size_t lo, hi, nwhole = 0, ntile = 0;

	id_range(t, in->id, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const char *name = slice_name(idx, t->v[i].slice);
		size_t tp = tile_prefix(name);

		if (!names_fit(kernel, name + tp))
			continue;
		if (tp) {
			tile = t->v[i].slice;
			ntile++;
		} else {
			whole = t->v[i].slice;
			nwhole++;
		}
	}
	if (nwhole == 1 || (!nwhole && ntile == 1))
		trex_metrics_set_link(m, inst, nwhole ? whole : tile, TREX_MLINK_ID);
	else if (nwhole || ntile)
		trex_metrics_set_link(m, inst, TREX_METRICS_NONE, TREX_MLINK_AMBIGUOUS);
	else
		trex_metrics_set_link(m, inst, TREX_METRICS_NONE,
		                      lo < hi ? TREX_MLINK_OTHER_NAME : TREX_MLINK_NO_ID);
}

/* ---- by order
 * ------------------------------------------------------------------------------------ */

/* Which trace names fit one kernel name, decided once per name id:
 * 0 not yet, 1 no, 2 yes. */
struct fit_cache {
	uint8_t *v;
	uint32_t n;
};

static bool fit_cache_init(struct fit_cache *c, const struct trex_index *idx)
{
	c->n = trex_strtab_count(trex_index_strings(idx));
	c->v = calloc(c->n ? c->n : 1, 1);
	return c->v != NULL;
}

static bool fits(struct fit_cache *c, const struct trex_index *idx, const char *kernel,
                 uint32_t slice)
{
	uint32_t name = trex_index_slice(idx, slice)->name;

	if (!c->v[name])
		c->v[name] = names_fit(kernel, slice_name(idx, slice)) ? 2 : 1;
	return c->v[name] == 2;
}

/* The instances without an id of one source, device and kernel, from first
 * on (the caller marks them done): each the next trace kernel that fits, in
 * time order. */
static void link_by_order(const struct trex_index *idx, struct trex_metrics *m, uint32_t first,
                          const struct trace_side *t, bool *done, struct fit_cache *c)
{
	const struct trex_metrics_instance *f = trex_metrics_instance(m, first);
	const char *kernel = trex_metrics_str(m, f->kernel);
	size_t k = 0;
	bool any = false;

	memset(c->v, 0, c->n);
	for (size_t i = 0; i < t->n && !any; i++)
		any = fits(c, idx, kernel, t->v[i].slice);
	for (uint32_t i = first; i < trex_metrics_instance_count(m); i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, i);

		if (done[i] || in->source != f->source || in->device != f->device ||
		    in->kernel != f->kernel)
			continue;
		done[i] = true;
		while (k < t->n && !fits(c, idx, kernel, t->v[k].slice))
			k++;
		if (k < t->n)
			trex_metrics_set_link(m, i, t->v[k++].slice, TREX_MLINK_ORDER);
		else
			trex_metrics_set_link(m, i, TREX_METRICS_NONE,
			                      any ? TREX_MLINK_EXTRA : TREX_MLINK_NO_KERNEL);
	}
}

/* ---- linking
 * ------------------------------------------------------------------------------------- */

static bool needs_link(const struct trex_metrics_instance *in)
{
	return in->link != TREX_MLINK_IN_TRACE;
}

static enum trex_status link_all(const struct trex_index *idx, struct trex_metrics *m,
                                 struct trace_side *t, bool *done, struct trex_error *err)
{
	uint32_t n = trex_metrics_instance_count(m);
	struct fit_cache c;

	qsort(t->v, t->n, sizeof(*t->v), by_id);
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, i);

		done[i] = !needs_link(in) || (in->flags & TREX_MINST_IDLE);
		if (needs_link(in) && (in->flags & TREX_MINST_IDLE))
			trex_metrics_set_link(m, i, TREX_METRICS_NONE, TREX_MLINK_IDLE);
		else if (!done[i] && (in->flags & TREX_MINST_HAS_ID)) {
			link_by_id(idx, m, i, t);
			done[i] = true;
		}
	}
	qsort(t->v, t->n, sizeof(*t->v), by_time);
	if (!fit_cache_init(&c, idx))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		if (!done[i])
			link_by_order(idx, m, i, t, done, &c);
	}
	free(c.v);
	return TREX_OK;
}

enum trex_status trex_metrics_link(const struct trex_index *idx, struct trex_metrics *m,
                                   struct trex_metrics_match *match, struct trex_error *err)
{
	uint32_t n = trex_metrics_instance_count(m);
	bool ids = false, any = false;
	struct trace_side t = {0};
	bool *done;
	enum trex_status s;

	for (uint32_t i = 0; i < n; i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, i);

		any |= needs_link(in);
		ids |= needs_link(in) && (in->flags & TREX_MINST_HAS_ID) &&
		       !(in->flags & TREX_MINST_IDLE);
	}
	s = any ? collect_trace(idx, ids, &t, err) : TREX_OK;
	done = s == TREX_OK ? calloc(n ? n : 1, sizeof(*done)) : NULL;
	if (s == TREX_OK && !done)
		s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (s == TREX_OK && any)
		s = link_all(idx, m, &t, done, err);
	free(done);
	free(t.v);
	if (s == TREX_OK && match)
		trex_metrics_match_count(idx, m, match);
	return s;
}

/* ---- counting
 * -------------------------------------------------------------------------------------- */

uint64_t trex_metrics_matched(const struct trex_metrics_match *mm)
{
	return mm->count[TREX_MLINK_ID] + mm->count[TREX_MLINK_ORDER] +
	       mm->count[TREX_MLINK_IN_TRACE];
}

uint64_t trex_metrics_unmatched(const struct trex_metrics_match *mm)
{
	return mm->instances - trex_metrics_matched(mm) - mm->count[TREX_MLINK_IDLE] -
	       mm->count[TREX_MLINK_NONE];
}

/* One slice of each name among the trace's kernels, into names[]; returns
 * how many. */
static size_t distinct_names(const struct trex_index *idx, const struct trace_side *t,
                             uint32_t *names)
{
	uint32_t nstr = trex_strtab_count(trex_index_strings(idx));
	bool *seen = calloc(nstr ? nstr : 1, sizeof(*seen));
	size_t n = 0;

	for (size_t i = 0; seen && i < t->n; i++) {
		uint32_t name = trex_index_slice(idx, t->v[i].slice)->name;

		if (!seen[name]) {
			seen[name] = true;
			names[n++] = t->v[i].slice;
		}
	}
	free(seen);
	return n;
}

enum trex_status mx_trace_names(const struct trex_index *idx, uint32_t **out, size_t *n,
                                struct trex_error *err)
{
	struct trace_side t = {0};
	enum trex_status s = collect_trace(idx, false, &t, err);

	*out = NULL;
	*n = 0;
	if (s == TREX_OK && !(*out = malloc((t.n ? t.n : 1) * sizeof(**out))))
		s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (s == TREX_OK)
		*n = distinct_names(idx, &t, *out);
	free(t.v);
	return s;
}

bool mx_names_fit(const char *kernel, const char *trace_name)
{
	return names_fit(kernel, trace_name + tile_prefix(trace_name));
}

bool mx_fits_any(const struct trex_index *idx, const uint32_t *names, size_t n, const char *kernel)
{
	for (size_t i = 0; i < n; i++) {
		if (mx_names_fit(kernel, slice_name(idx, names[i])))
			return true;
	}
	return false;
}

static void count_reports(const struct trex_index *idx, const struct trex_metrics *m,
                          const uint32_t *names, size_t nnames, struct trex_metrics_match *mm)
{
	for (uint32_t r = 0; r < trex_metrics_report_count(m); r++) {
		const struct trex_report *rep = trex_metrics_report(m, r);

		for (uint32_t row = 0; trex_report_joins(rep) && row < rep->nrows; row++) {
			mm->report_rows++;
			mm->report_found += mx_fits_any(
			    idx, names, nnames, trex_metrics_report_cell(m, r, row, 0, NULL));
		}
	}
}

/* The kernels (string ids of m) of linked instances, each once. */
static size_t linked_kernels(const struct trex_metrics *m, uint32_t *out)
{
	size_t n = 0;

	for (uint32_t i = 0; i < trex_metrics_instance_count(m); i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, i);
		size_t k = 0;

		if (in->slice == TREX_METRICS_NONE)
			continue;
		while (k < n && out[k] != in->kernel)
			k++;
		if (k == n)
			out[n++] = in->kernel;
	}
	return n;
}

static bool kernel_fits_any(const struct trex_metrics *m, const uint32_t *kernels, size_t n,
                            const char *s)
{
	for (size_t i = 0; i < n; i++) {
		if (names_fit(trex_metrics_str(m, kernels[i]), s + tile_prefix(s)))
			return true;
	}
	return false;
}

/* Trace kernels of the linked kernels' names that no instance links to
 * (each trace name looked at once). */
static uint64_t trace_without(const struct trex_index *idx, const struct trex_metrics *m,
                              const struct trace_side *t)
{
	uint32_t nslices = trex_index_slice_count(idx);
	struct fit_cache c;
	bool *linked = calloc(nslices ? nslices : 1, sizeof(*linked));
	uint32_t n = trex_metrics_instance_count(m);
	uint32_t *kernels = malloc((n ? n : 1) * sizeof(*kernels));
	size_t nk = kernels ? linked_kernels(m, kernels) : 0;
	uint64_t without = 0;

	if (!linked || !kernels || !fit_cache_init(&c, idx)) {
		free(linked);
		free(kernels);
		return 0;
	}
	for (uint32_t i = 0; i < trex_metrics_instance_count(m); i++) {
		uint32_t sl = trex_metrics_instance(m, i)->slice;

		if (sl < nslices)
			linked[sl] = true;
	}
	for (size_t w = 0; w < t->n; w++) {
		uint32_t name = trex_index_slice(idx, t->v[w].slice)->name;

		if (!c.v[name])
			c.v[name] =
			    kernel_fits_any(m, kernels, nk, slice_name(idx, t->v[w].slice)) ? 2 : 1;
		without += !linked[t->v[w].slice] && c.v[name] == 2;
	}
	free(c.v);
	free(kernels);
	free(linked);
	return without;
}

void trex_metrics_match_count(const struct trex_index *idx, const struct trex_metrics *m,
                              struct trex_metrics_match *match)
{
	struct trace_side t = {0};
	struct trex_error ignored;
	uint32_t *names = NULL;
	size_t nnames;

	memset(match, 0, sizeof(*match));
	for (uint32_t i = 0; i < trex_metrics_instance_count(m); i++) {
		match->instances++;
		match->count[trex_metrics_instance(m, i)->link]++;
	}
	if (!idx || collect_trace(idx, false, &t, &ignored) != TREX_OK ||
	    !(names = malloc((t.n ? t.n : 1) * sizeof(*names)))) {
		free(t.v);
		return;
	}
	nnames = distinct_names(idx, &t, names);
	count_reports(idx, m, names, nnames, match);
	match->trace_without = trace_without(idx, m, &t);
	free(names);
	free(t.v);
}

/* ---- the line
 * ---------------------------------------------------------------------------------------- */

static void add(char *buf, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	va_list ap;

	if (*used >= size)
		return;
	va_start(ap, fmt);
	*used += (size_t)vsnprintf(buf + *used, size - *used, fmt, ap);
	va_end(ap);
}

static const struct {
	enum trex_metrics_link link;
	const char *why;
} unmatched_why[] = {
    {TREX_MLINK_NO_ID, "an id no trace kernel has"},
    {TREX_MLINK_OTHER_NAME, "the id of another kernel"},
    {TREX_MLINK_NO_KERNEL, "a kernel the trace lacks"},
    {TREX_MLINK_EXTRA, "more instances than the trace"},
    {TREX_MLINK_AMBIGUOUS, "several trace kernels that fit"},
};

const char *trex_metrics_match_line(const struct trex_metrics_match *mm, char *buf, size_t size)
{
	uint64_t matched = trex_metrics_matched(mm), un = trex_metrics_unmatched(mm);
	uint64_t idle = mm->count[TREX_MLINK_IDLE];
	size_t used = 0;
	const char *sep = " (";

	buf[0] = '\0';
	add(buf, size, &used, "%" PRIu64 " of %" PRIu64 " metric %s matched trace kernels", matched,
	    mm->instances - idle, trex_plural(mm->instances - idle, "instance", "instances"));
	if (mm->count[TREX_MLINK_ID])
		add(buf, size, &used, "%s%" PRIu64 " by instance id", sep,
		    mm->count[TREX_MLINK_ID]),
		    sep = ", ";
	if (mm->count[TREX_MLINK_ORDER])
		add(buf, size, &used, "%s%" PRIu64 " by order", sep, mm->count[TREX_MLINK_ORDER]),
		    sep = ", ";
	if (mm->count[TREX_MLINK_IN_TRACE])
		add(buf, size, &used, "%s%" PRIu64 " trace events", sep,
		    mm->count[TREX_MLINK_IN_TRACE]),
		    sep = ", ";
	add(buf, size, &used, "%s", sep[0] == ',' ? ")" : "");
	if (un) {
		sep = ": ";
		add(buf, size, &used, "; %" PRIu64 " did not", un);
		for (size_t i = 0; i < sizeof(unmatched_why) / sizeof(unmatched_why[0]); i++) {
			uint64_t c = mm->count[unmatched_why[i].link];

			if (c)
				add(buf, size, &used, "%s%" PRIu64 " %s %s", sep, c,
				    c == 1 ? "has" : "have", unmatched_why[i].why),
				    sep = ", ";
		}
	}
	if (idle)
		add(buf, size, &used, "; %" PRIu64 " idle (NoKernel) left out", idle);
	if (mm->report_rows)
		add(buf, size, &used,
		    "; %" PRIu64 " of %" PRIu64 " report rows name a trace kernel",
		    mm->report_found, mm->report_rows);
	return buf;
}
