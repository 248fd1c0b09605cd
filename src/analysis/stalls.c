#include "config.h"

#include "trex/analysis/stalls.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/table_order.h"
#include "trex/core/grow.h"
#include "trex/load/source_files.h"

#define NONE TREX_PROFILE_NONE

static const struct trex_profile_report *report_of(const struct trex_profile *p, uint32_t k)
{
	return trex_profile_report(p, trex_profile_kernel(p, k)->report);
}

static uint32_t reason_id(const struct trex_profile *p, uint32_t k, uint32_t slot)
{
	return report_of(p, k)->reasons[slot];
}

static bool is_stall(const struct trex_profile *p, uint32_t k, uint32_t slot)
{
	return !(trex_profile_reason(p, reason_id(p, k, slot))->flags & TREX_REASON_NOT_STALL);
}

/* ---- kernels ------------------------------------------------------------------------------ */

size_t trex_stalls_kernels(const struct trex_profile *p, const struct trex_stall_opts *o,
                           uint32_t *out)
{
	size_t n = 0;

	for (uint32_t k = 0; k < trex_profile_kernel_count(p); k++) {
		const char *name = trex_profile_str(p, trex_profile_kernel(p, k)->name);

		if (!o || !o->kernel || trex_regex_match(o->kernel, name))
			out[n++] = k;
	}
	return n;
}

uint32_t trex_stalls_baseline(const struct trex_profile *p, uint32_t k,
                              const struct trex_stall_opts *o)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);
	uint32_t want = o ? o->baseline : NONE, best = NONE;

	if (want == kk->report)
		return NONE;
	for (uint32_t b = 0; b < trex_profile_kernel_count(p); b++) {
		const struct trex_profile_kernel *bk = trex_profile_kernel(p, b);

		if (bk->device != kk->device || bk->name != kk->name)
			continue;
		if (want != NONE
		        ? bk->report == want
		        : bk->report < kk->report &&
		              (best == NONE || bk->report > trex_profile_kernel(p, best)->report))
			best = b;
	}
	return best;
}

/* ---- reasons and hot instructions ------------------------------------------------------------ */

static bool slot_before(const uint64_t *totals, uint32_t a, uint32_t b)
{
	return totals[a] != totals[b] ? totals[a] > totals[b] : a < b;
}

size_t trex_stalls_reasons(const struct trex_profile *p, uint32_t k, bool stalls_only,
                           uint32_t *slots)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);
	size_t n = 0;

	for (uint32_t s = 0; s < report_of(p, k)->nreasons; s++) {
		size_t i;

		if (!kk->totals[s] || (stalls_only && !is_stall(p, k, s)))
			continue;
		for (i = n; i > 0 && slot_before(kk->totals, s, slots[i - 1]); i--)
			slots[i] = slots[i - 1];
		slots[i] = s;
		n++;
	}
	return n;
}

/* Is instruction a hotter than b for reason slot (ties: the earlier)? */
static bool hotter(const struct trex_profile *p, uint32_t slot, uint32_t a, uint32_t b)
{
	uint64_t ca = trex_profile_counts(p, a)[slot], cb = trex_profile_counts(p, b)[slot];

	return ca != cb ? ca > cb : a < b;
}

/* The coldest of heap[0..n) sits at the root. */
static void sift_down(const struct trex_profile *p, uint32_t slot, uint32_t *heap, size_t n,
                      size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, c = i;
		uint32_t t;

		if (l < n && hotter(p, slot, heap[c], heap[l]))
			c = l;
		if (r < n && hotter(p, slot, heap[c], heap[r]))
			c = r;
		if (c == i)
			return;
		t = heap[i];
		heap[i] = heap[c];
		heap[c] = t;
		i = c;
	}
}

static void sift_up(const struct trex_profile *p, uint32_t slot, uint32_t *heap, size_t i)
{
	while (i > 0 && hotter(p, slot, heap[(i - 1) / 2], heap[i])) {
		uint32_t t = heap[i];

		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* A bounded heap: O(n log top) for any kernel size. */
size_t trex_stalls_top(const struct trex_profile *p, uint32_t k, uint32_t slot, size_t top,
                       uint32_t *out)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);
	size_t n = 0;

	if (!top)
		top = TREX_STALLS_TOP_DEFAULT;
	for (uint32_t i = kk->first_insn; i < kk->first_insn + kk->ninsns; i++) {
		if (!trex_profile_counts(p, i)[slot])
			continue;
		if (n < top) {
			out[n] = i;
			sift_up(p, slot, out, n++);
		} else if (hotter(p, slot, i, out[0])) {
			out[0] = i;
			sift_down(p, slot, out, n, 0);
		}
	}
	for (size_t i = 1; i < n; i++) /* hottest first: n is at most top */
		for (size_t j = i; j > 0 && hotter(p, slot, out[j], out[j - 1]); j--) {
			uint32_t t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

uint64_t trex_stalls_insn_total(const struct trex_profile *p, uint32_t k, uint32_t i)
{
	const uint64_t *c = trex_profile_counts(p, i);
	uint64_t sum = 0;

	for (uint32_t s = 0; s < report_of(p, k)->nreasons; s++)
		if (is_stall(p, k, s))
			sum += c[s];
	return sum;
}

const char *trex_stalls_line_text(const struct trex_profile *p, const struct trex_stall_opts *o,
                                  uint32_t file, int64_t line, size_t *len)
{
	const char *s = NULL;
	uint32_t quoted;

	if (!file || line <= 0)
		return NULL;
	if (o && o->sources)
		s = trex_srcfiles_line(o->sources, trex_profile_str(p, file), line, len);
	if (s)
		return s;
	if (!(quoted = trex_profile_source_text(p, file, line)))
		return NULL;
	s = trex_profile_str(p, quoted);
	*len = strlen(s);
	return s;
}

const char *trex_stalls_addr(const struct trex_profile_insn *in, char *buf, size_t size)
{
	if (!in->has_addr)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "0x%" PRIx64, in->addr);
	return buf;
}

/* ---- source lines ---------------------------------------------------------------------------- */

struct line_key {
	const char *fname;
	uint32_t file;
	int64_t line;
	uint32_t insn;
	uint64_t stall; /* baseline entries */
};

static int cmp_line_key(const void *a, const void *b)
{
	const struct line_key *x = a, *y = b;
	int c = strcmp(x->fname, y->fname);

	if (!c)
		c = (x->line > y->line) - (x->line < y->line);
	return c ? c : (x->insn > y->insn) - (x->insn < y->insn);
}

/* Kernel k's instructions as keys, sorted by file, line and address. */
static struct line_key *insn_keys(const struct trex_profile *p, uint32_t k, size_t *n)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);
	struct line_key *keys = malloc((kk->ninsns ? kk->ninsns : 1) * sizeof(*keys));

	*n = kk->ninsns;
	if (!keys)
		return NULL;
	for (uint32_t i = 0; i < kk->ninsns; i++) {
		const struct trex_profile_insn *in = trex_profile_insn(p, kk->first_insn + i);

		keys[i] = (struct line_key){trex_profile_str(p, in->file), in->file, in->line,
		                            kk->first_insn + i, 0};
	}
	qsort(keys, *n, sizeof(*keys), cmp_line_key);
	return keys;
}

static bool same_line(const struct line_key *a, const struct line_key *b)
{
	return a->file == b->file && a->line == b->line;
}

/* The lines of kernel k from its sorted keys. */
static bool group_lines(const struct trex_profile *p, uint32_t k, const struct line_key *keys,
                        size_t n, struct trex_stall_lines *out, size_t cap)
{
	uint32_t w = report_of(p, k)->nreasons;

	out->nreasons = w;
	if (!(out->v = calloc(cap ? cap : 1, sizeof(*out->v))) ||
	    !(out->insns = malloc((n ? n : 1) * sizeof(*out->insns))) ||
	    !(out->counts = calloc((cap ? cap : 1) * (w ? w : 1), sizeof(*out->counts))))
		return false;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *c = trex_profile_counts(p, keys[i].insn);
		struct trex_stall_line *l;

		if (i == 0 || !same_line(&keys[i - 1], &keys[i])) {
			out->v[out->n] = (struct trex_stall_line){
			    keys[i].file, keys[i].line, 0, 0, (uint32_t)i, 0};
			out->n++;
		}
		l = &out->v[out->n - 1];
		l->ninsns++;
		out->insns[i] = keys[i].insn;
		l->stall += trex_stalls_insn_total(p, k, keys[i].insn);
		for (uint32_t s = 0; s < w; s++)
			out->counts[(out->n - 1) * w + s] += c[s];
	}
	return true;
}

size_t trex_stall_lines_find(const struct trex_stall_lines *l, uint32_t file, int64_t line)
{
	for (size_t i = 0; i < l->n; i++) /* callers look up a handful of lines */
		if (l->v[i].file == file && l->v[i].line == line)
			return i;
	return SIZE_MAX;
}

struct line_order {
	const struct trex_profile *p;
	const struct trex_stall_line *v;
};

static int cmp_line_index(const void *a, const void *b, void *arg)
{
	const struct line_order *o = arg;
	const struct trex_stall_line *x = &o->v[*(const size_t *)a], *y = &o->v[*(const size_t *)b];
	int c = strcmp(trex_profile_str(o->p, x->file), trex_profile_str(o->p, y->file));

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Lines the baseline added went to the end: every line back in order. */
static bool reorder_lines(const struct trex_profile *p, struct trex_stall_lines *l)
{
	size_t *order = malloc((l->n ? l->n : 1) * sizeof(*order));
	struct trex_stall_line *v = malloc((l->n ? l->n : 1) * sizeof(*v));
	uint64_t *counts =
	    malloc((l->n ? l->n : 1) * (l->nreasons ? l->nreasons : 1) * sizeof(*counts));
	struct line_order lo = {p, l->v};

	if (!order || !v || !counts) {
		free(order);
		free(v);
		free(counts);
		return false;
	}
	for (size_t i = 0; i < l->n; i++)
		order[i] = i;
	qsort_r(order, l->n, sizeof(*order), cmp_line_index, &lo);
	for (size_t i = 0; i < l->n; i++) {
		v[i] = l->v[order[i]];
		memcpy(counts + i * l->nreasons, l->counts + order[i] * l->nreasons,
		       l->nreasons * sizeof(*counts));
	}
	free(order);
	free(l->v);
	free(l->counts);
	l->v = v;
	l->counts = counts;
	return true;
}

/* The baseline's stall samples per line into l (its own lines added). */
static bool add_baseline(const struct trex_profile *p, uint32_t base, struct trex_stall_lines *l)
{
	size_t n, added = 0;
	struct line_key *keys = insn_keys(p, base, &n);

	if (!keys)
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t at = trex_stall_lines_find(l, keys[i].file, keys[i].line);

		if (at == SIZE_MAX) { /* the caller made room for every baseline line */
			at = l->n++;
			l->v[at] = (struct trex_stall_line){keys[i].file, keys[i].line, 0, 0, 0, 0};
			added++;
		}
		l->v[at].base += trex_stalls_insn_total(p, base, keys[i].insn);
	}
	free(keys);
	return !added || reorder_lines(p, l);
}

enum trex_status trex_stalls_lines(const struct trex_profile *p, uint32_t k, uint32_t base,
                                   struct trex_stall_lines *out, struct trex_error *err)
{
	size_t n;
	struct line_key *keys;
	size_t cap;
	bool ok;

	memset(out, 0, sizeof(*out));
	keys = insn_keys(p, k, &n);
	cap = n + (base != NONE ? trex_profile_kernel(p, base)->ninsns : 0);
	ok = keys && group_lines(p, k, keys, n, out, cap);
	free(keys);
	if (ok && base != NONE)
		ok = add_baseline(p, base, out);
	if (!ok) {
		trex_stall_lines_free(out);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	return TREX_OK;
}

void trex_stall_lines_free(struct trex_stall_lines *l)
{
	free(l->v);
	free(l->insns);
	free(l->counts);
	memset(l, 0, sizeof(*l));
}
