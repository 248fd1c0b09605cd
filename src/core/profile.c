#include "config.h"

#include "trex/core/profile.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"
#include "trex/core/strtab.h"

/* An instruction row as a reader gave it, merged at freeze. */
struct row {
	uint32_t kernel;
	uint32_t seq; /* order of arrival: later non-zero fields win */
	struct trex_insn_info info;
	uint64_t count_off; /* into counts, or UINT64_MAX without counts */
};

struct wait_row {
	uint32_t kernel, seq;
	uint64_t addr;
	struct trex_profile_wait w;
};

struct source_row {
	uint32_t file, seq;
	int64_t line;
	uint32_t text;
};

struct kernel_key {
	uint32_t report, name;
	int64_t device;
};

struct trex_profile {
	struct trex_strtab *strings;
	struct trex_profile_reason *reasons;
	size_t nreasons, cap_reasons;
	struct trex_profile_report *reports;
	size_t nreports, cap_reports;
	struct trex_profile_kernel *kernels;
	size_t nkernels, cap_kernels;
	uint32_t *kernel_slots; /* open addressing over (report, device, name) */
	size_t nslots;
	bool frozen;

	/* building */
	struct row *rows;
	size_t nrows, cap_rows;
	uint64_t *counts; /* building: per row; frozen: per instruction */
	size_t ncounts, cap_counts;
	struct wait_row *wait_rows;
	size_t nwait_rows, cap_wait_rows;
	struct source_row *sources;
	size_t nsources, cap_sources;

	/* frozen */
	struct trex_profile_insn *insns;
	uint64_t *insn_counts; /* offset of each instruction's counts */
	size_t ninsns;
	struct trex_profile_wait *waits;
	size_t nwaits;
	uint64_t *totals; /* every kernel's totals, one block per kernel */
};

struct trex_profile *trex_profile_new(void)
{
	struct trex_profile *p = calloc(1, sizeof(*p));

	if (p && !(p->strings = trex_strtab_new())) {
		free(p);
		return NULL;
	}
	return p;
}

void trex_profile_free(struct trex_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nreports; i++)
		free(p->reports[i].reasons);
	trex_strtab_free(p->strings);
	free(p->reasons);
	free(p->reports);
	free(p->kernels);
	free(p->kernel_slots);
	free(p->rows);
	free(p->counts);
	free(p->wait_rows);
	free(p->sources);
	free(p->insns);
	free(p->insn_counts);
	free(p->waits);
	free(p->totals);
	free(p);
}

uint32_t trex_profile_intern(struct trex_profile *p, const char *s, size_t len)
{
	uint32_t id = trex_strtab_intern(p->strings, s, len);

	return id == TREX_STR_ERROR ? TREX_PROFILE_NONE : id;
}

static uint32_t intern_cstr(struct trex_profile *p, const char *s)
{
	return trex_profile_intern(p, s ? s : "", s ? strlen(s) : 0);
}

uint32_t trex_profile_reason_add(struct trex_profile *p, const char *name, const char *label,
                                 uint32_t flags)
{
	uint32_t n = intern_cstr(p, name), l = intern_cstr(p, label);
	struct trex_profile_reason *v;

	if (n == TREX_PROFILE_NONE || l == TREX_PROFILE_NONE)
		return TREX_PROFILE_NONE;
	for (size_t i = 0; i < p->nreasons; i++)
		if (p->reasons[i].name == n)
			return (uint32_t)i;
	v = trex_grow(p->reasons, &p->cap_reasons, p->nreasons + 1, sizeof(*v), 16);
	if (!v)
		return TREX_PROFILE_NONE;
	p->reasons = v;
	v[p->nreasons] = (struct trex_profile_reason){n, l, flags};
	return (uint32_t)p->nreasons++;
}

uint32_t trex_profile_report_add(struct trex_profile *p, const char *path, const char *format,
                                 const uint32_t *reasons, uint32_t n)
{
	uint32_t path_id = intern_cstr(p, path), format_id = intern_cstr(p, format);
	struct trex_profile_report *v;
	uint32_t *copy = malloc((n ? n : 1) * sizeof(*copy));

	if (!copy || path_id == TREX_PROFILE_NONE || format_id == TREX_PROFILE_NONE)
		goto oom;
	v = trex_grow(p->reports, &p->cap_reports, p->nreports + 1, sizeof(*v), 4);
	if (!v)
		goto oom;
	p->reports = v;
	memcpy(copy, reasons, n * sizeof(*copy));
	memset(&v[p->nreports], 0, sizeof(*v));
	v[p->nreports].path = path_id;
	v[p->nreports].format = format_id;
	v[p->nreports].reasons = copy;
	v[p->nreports].nreasons = n;
	return (uint32_t)p->nreports++;
oom:
	free(copy);
	return TREX_PROFILE_NONE;
}

void trex_profile_report_note(struct trex_profile *p, uint32_t report, uint64_t rows,
                              const struct trex_error *problem)
{
	struct trex_profile_report *r;

	if (report >= p->nreports)
		return;
	r = &p->reports[report];
	r->rows += rows;
	if (!problem)
		return;
	if (r->problems < TREX_PROFILE_PROBLEMS)
		r->problem[r->problems] = *problem;
	r->problems++;
}

/* ---- kernels: a small hash of (report, device, name) ---------------------------------- */

static size_t key_hash(const struct kernel_key *k)
{
	uint64_t h = (uint64_t)k->report * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)k->device + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
	h ^= (uint64_t)k->name * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

static bool key_equal(const struct trex_profile_kernel *k, const struct kernel_key *key)
{
	return k->report == key->report && k->device == key->device && k->name == key->name;
}

static void slots_place(uint32_t *slots, size_t nslots, const struct trex_profile_kernel *kernels,
                        uint32_t id)
{
	struct kernel_key key = {kernels[id].report, kernels[id].name, kernels[id].device};
	size_t i = key_hash(&key) & (nslots - 1);

	while (slots[i] != TREX_PROFILE_NONE)
		i = (i + 1) & (nslots - 1);
	slots[i] = id;
}

/* Keeps the slots at most half full. */
static bool slots_grow(struct trex_profile *p)
{
	size_t n = p->nslots ? 2 * p->nslots : 64;
	uint32_t *slots;

	if (2 * (p->nkernels + 1) <= p->nslots)
		return true;
	if (!(slots = malloc(n * sizeof(*slots))))
		return false;
	memset(slots, 0xff, n * sizeof(*slots));
	for (size_t k = 0; k < p->nkernels; k++)
		slots_place(slots, n, p->kernels, (uint32_t)k);
	free(p->kernel_slots);
	p->kernel_slots = slots;
	p->nslots = n;
	return true;
}

static uint32_t kernel_lookup(const struct trex_profile *p, const struct kernel_key *key)
{
	if (!p->nslots)
		return TREX_PROFILE_NONE;
	for (size_t i = key_hash(key) & (p->nslots - 1);; i = (i + 1) & (p->nslots - 1)) {
		uint32_t id = p->kernel_slots[i];

		if (id == TREX_PROFILE_NONE || key_equal(&p->kernels[id], key))
			return id;
	}
}

uint32_t trex_profile_kernel_add(struct trex_profile *p, uint32_t report, int64_t device,
                                 uint32_t name)
{
	struct kernel_key key = {report, name, device};
	uint32_t id = kernel_lookup(p, &key);
	struct trex_profile_kernel *v;

	if (id != TREX_PROFILE_NONE)
		return id;
	if (report >= p->nreports || !slots_grow(p))
		return TREX_PROFILE_NONE;
	v = trex_grow(p->kernels, &p->cap_kernels, p->nkernels + 1, sizeof(*v), 16);
	if (!v)
		return TREX_PROFILE_NONE;
	p->kernels = v;
	memset(&v[p->nkernels], 0, sizeof(*v));
	v[p->nkernels].report = report;
	v[p->nkernels].device = device;
	v[p->nkernels].name = name;
	id = (uint32_t)p->nkernels++;
	slots_place(p->kernel_slots, p->nslots, p->kernels, id);
	return id;
}

void trex_profile_kernel_set(struct trex_profile *p, uint32_t kernel, uint32_t listing,
                             uint32_t flags)
{
	if (kernel >= p->nkernels)
		return;
	p->kernels[kernel].listing = listing;
	p->kernels[kernel].flags |= flags;
}

/* ---- rows ---------------------------------------------------------------------------- */

int trex_profile_insn_add(struct trex_profile *p, uint32_t kernel,
                          const struct trex_insn_info *info, const uint64_t *counts)
{
	struct row *v;
	uint32_t width;

	if (kernel >= p->nkernels)
		return -1;
	width = p->reports[p->kernels[kernel].report].nreasons;
	v = trex_grow(p->rows, &p->cap_rows, p->nrows + 1, sizeof(*v), 256);
	if (!v)
		return -1;
	p->rows = v;
	v[p->nrows] = (struct row){kernel, (uint32_t)p->nrows, *info, UINT64_MAX};
	if (counts && width) {
		uint64_t *c =
		    trex_grow(p->counts, &p->cap_counts, p->ncounts + width, sizeof(*c), 1024);

		if (!c)
			return -1;
		p->counts = c;
		memcpy(c + p->ncounts, counts, width * sizeof(*c));
		v[p->nrows].count_off = p->ncounts;
		p->ncounts += width;
	}
	p->nrows++;
	return 0;
}

int trex_profile_wait_add(struct trex_profile *p, uint32_t kernel, uint64_t addr, uint64_t producer,
                          uint32_t file, int64_t line)
{
	struct wait_row *v =
	    trex_grow(p->wait_rows, &p->cap_wait_rows, p->nwait_rows + 1, sizeof(*v), 32);

	if (!v)
		return -1;
	p->wait_rows = v;
	v[p->nwait_rows] =
	    (struct wait_row){kernel, (uint32_t)p->nwait_rows, addr, {producer, file, line}};
	p->nwait_rows++;
	return 0;
}

int trex_profile_source_add(struct trex_profile *p, uint32_t file, int64_t line, uint32_t text)
{
	struct source_row *v =
	    trex_grow(p->sources, &p->cap_sources, p->nsources + 1, sizeof(*v), 64);

	if (!v)
		return -1;
	p->sources = v;
	v[p->nsources] = (struct source_row){file, (uint32_t)p->nsources, line, text};
	p->nsources++;
	return 0;
}

/* ---- freezing -------------------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* Kernel, then rows with an address before those without, then address
 * (ordinal), then arrival. */
static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = cmp_u64(x->kernel, y->kernel);

	if (!c)
		c = (int)y->info.has_addr - (int)x->info.has_addr;
	if (!c)
		c = cmp_u64(x->info.addr, y->info.addr);
	return c ? c : cmp_u64(x->seq, y->seq);
}

static int cmp_wait(const void *a, const void *b)
{
	const struct wait_row *x = a, *y = b;
	int c = cmp_u64(x->kernel, y->kernel);

	if (!c)
		c = cmp_u64(x->addr, y->addr);
	return c ? c : cmp_u64(x->seq, y->seq);
}

static int cmp_source(const void *a, const void *b)
{
	const struct source_row *x = a, *y = b;
	int c = cmp_u64(x->file, y->file);

	if (!c)
		c = (x->line > y->line) - (x->line < y->line);
	return c ? c : cmp_u64(x->seq, y->seq);
}

static void merge_info(struct trex_profile_insn *in, const struct trex_insn_info *info)
{
	if (info->text)
		in->text = info->text;
	if (info->block)
		in->block = info->block;
	if (info->file)
		in->file = info->file;
	if (info->line)
		in->line = info->line;
}

static bool same_insn(const struct row *a, const struct row *b)
{
	return a->kernel == b->kernel && a->info.has_addr == b->info.has_addr &&
	       a->info.addr == b->info.addr;
}

/* Counts of every instruction: its kernel's report width each, zeroed. */
static bool alloc_insn_counts(struct trex_profile *p, uint64_t **counts)
{
	uint64_t total = 0;

	for (size_t k = 0; k < p->nkernels; k++)
		total += (uint64_t)p->kernels[k].ninsns * p->reports[p->kernels[k].report].nreasons;
	*counts = calloc(total ? total : 1, sizeof(**counts));
	return *counts != NULL;
}

/* The instructions, one per (kernel, address): rows merged in arrival order. */
static bool merge_rows(struct trex_profile *p)
{
	size_t n = 0;

	if (p->nrows) /* qsort's base must not be NULL, even for no rows */
		qsort(p->rows, p->nrows, sizeof(*p->rows), cmp_row);
	p->insns = calloc(p->nrows ? p->nrows : 1, sizeof(*p->insns));
	if (!p->insns)
		return false;
	for (size_t r = 0; r < p->nrows; r++) {
		if (r == 0 || !same_insn(&p->rows[r - 1], &p->rows[r])) {
			struct trex_profile_kernel *k = &p->kernels[p->rows[r].kernel];

			if (k->ninsns == 0)
				k->first_insn = (uint32_t)n;
			k->ninsns++;
			p->insns[n].addr = p->rows[r].info.addr;
			p->insns[n].has_addr = p->rows[r].info.has_addr;
			n++;
		}
		merge_info(&p->insns[n - 1], &p->rows[r].info);
	}
	p->ninsns = n;
	return true;
}

/* Sums the rows' counts into the instructions' (same order as merge_rows). */
static bool sum_counts(struct trex_profile *p)
{
	uint64_t *counts, off = 0;
	uint32_t width = 0;
	size_t i = 0;

	if (!alloc_insn_counts(p, &counts))
		return false;
	if (!(p->insn_counts = malloc((p->ninsns ? p->ninsns : 1) * sizeof(uint64_t)))) {
		free(counts);
		return false;
	}
	for (size_t r = 0; r < p->nrows; r++) {
		const struct row *row = &p->rows[r];

		if (r > 0 && !same_insn(&p->rows[r - 1], row)) {
			off += width; /* the previous instruction's */
			i++;
		}
		width = p->reports[p->kernels[row->kernel].report].nreasons;
		p->insn_counts[i] = off;
		if (row->count_off != UINT64_MAX)
			for (uint32_t c = 0; c < width; c++)
				counts[off + c] += p->counts[row->count_off + c];
	}
	free(p->counts);
	p->counts = counts;
	return true;
}

static bool kernel_totals(struct trex_profile *p)
{
	size_t need = 0;

	for (size_t k = 0; k < p->nkernels; k++)
		need += p->reports[p->kernels[k].report].nreasons;
	if (!(p->totals = calloc(need ? need : 1, sizeof(*p->totals))))
		return false;
	need = 0;
	for (size_t k = 0; k < p->nkernels; k++) {
		struct trex_profile_kernel *kr = &p->kernels[k];
		const struct trex_profile_report *rep = &p->reports[kr->report];

		kr->totals = p->totals + need;
		need += rep->nreasons;
		for (uint32_t i = kr->first_insn; i < kr->first_insn + kr->ninsns; i++) {
			const uint64_t *c = p->counts + p->insn_counts[i];

			if (p->insns[i].line)
				kr->flags |= TREX_KERNEL_SOURCE;
			for (uint32_t r = 0; r < rep->nreasons; r++)
				kr->totals[r] += c[r];
		}
		for (uint32_t r = 0; r < rep->nreasons; r++)
			if (!(p->reasons[rep->reasons[r]].flags & TREX_REASON_NOT_STALL))
				kr->stall_total += kr->totals[r];
	}
	return true;
}

static bool same_wait(const struct wait_row *a, const struct wait_row *b)
{
	return a->kernel == b->kernel && a->addr == b->addr && a->w.producer == b->w.producer;
}

/* Attaches the waits to their instructions (a wait of an unknown
 * instruction is dropped: nothing shows it), each producer once. */
static bool attach_waits(struct trex_profile *p)
{
	if (p->nwait_rows)
		qsort(p->wait_rows, p->nwait_rows, sizeof(*p->wait_rows), cmp_wait);
	p->waits = malloc((p->nwait_rows ? p->nwait_rows : 1) * sizeof(*p->waits));
	if (!p->waits)
		return false;
	for (size_t w = 0; w < p->nwait_rows; w++) {
		const struct wait_row *wr = &p->wait_rows[w];
		uint32_t i = trex_profile_insn_find(p, wr->kernel, wr->addr);
		bool dup = false;

		for (size_t d = w; d-- > 0 && p->wait_rows[d].kernel == wr->kernel &&
		                   p->wait_rows[d].addr == wr->addr;)
			dup = dup || same_wait(&p->wait_rows[d], wr);
		if (i == TREX_PROFILE_NONE || dup)
			continue;
		if (p->insns[i].nwaits == 0)
			p->insns[i].first_wait = (uint32_t)p->nwaits;
		p->insns[i].nwaits++;
		p->waits[p->nwaits++] = wr->w;
	}
	free(p->wait_rows);
	p->wait_rows = NULL;
	return true;
}

enum trex_status trex_profile_freeze(struct trex_profile *p, struct trex_error *err)
{
	bool ok;

	if (p->frozen)
		return TREX_OK;
	p->frozen = true; /* insn_find (attach_waits) reads the frozen layout */
	ok = merge_rows(p) && sum_counts(p) && kernel_totals(p) && attach_waits(p);
	if (ok && p->nsources)
		qsort(p->sources, p->nsources, sizeof(*p->sources), cmp_source);
	free(p->rows);
	p->rows = NULL;
	if (!ok)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return TREX_OK;
}

/* ---- reading --------------------------------------------------------------------------- */

const char *trex_profile_str(const struct trex_profile *p, uint32_t id)
{
	if (id >= trex_strtab_count(p->strings))
		return "";
	return trex_strtab_get(p->strings, id, NULL);
}

uint32_t trex_profile_str_find(const struct trex_profile *p, const char *s, size_t len)
{
	uint32_t id = trex_strtab_find(p->strings, s, len);

	return id == TREX_STR_ERROR ? TREX_PROFILE_NONE : id;
}

uint32_t trex_profile_reason_count(const struct trex_profile *p)
{
	return (uint32_t)p->nreasons;
}

const struct trex_profile_reason *trex_profile_reason(const struct trex_profile *p, uint32_t id)
{
	return id < p->nreasons ? &p->reasons[id] : NULL;
}

uint32_t trex_profile_report_count(const struct trex_profile *p)
{
	return (uint32_t)p->nreports;
}

const struct trex_profile_report *trex_profile_report(const struct trex_profile *p, uint32_t id)
{
	return id < p->nreports ? &p->reports[id] : NULL;
}

uint32_t trex_profile_kernel_count(const struct trex_profile *p)
{
	return (uint32_t)p->nkernels;
}

const struct trex_profile_kernel *trex_profile_kernel(const struct trex_profile *p, uint32_t id)
{
	return id < p->nkernels ? &p->kernels[id] : NULL;
}

const struct trex_profile_insn *trex_profile_insn(const struct trex_profile *p, uint32_t i)
{
	return i < p->ninsns ? &p->insns[i] : NULL;
}

const uint64_t *trex_profile_counts(const struct trex_profile *p, uint32_t i)
{
	return p->counts + p->insn_counts[i];
}

uint32_t trex_profile_insn_find(const struct trex_profile *p, uint32_t kernel, uint64_t addr)
{
	const struct trex_profile_kernel *k;
	uint32_t lo, hi;

	if (kernel >= p->nkernels)
		return TREX_PROFILE_NONE;
	k = &p->kernels[kernel];
	lo = k->first_insn;
	hi = k->first_insn + k->ninsns;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct trex_profile_insn *in = &p->insns[mid];

		if (in->has_addr && in->addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k->first_insn + k->ninsns && p->insns[lo].has_addr && p->insns[lo].addr == addr)
		return lo;
	return TREX_PROFILE_NONE;
}

const struct trex_profile_wait *trex_profile_wait_at(const struct trex_profile *p, uint32_t w)
{
	return w < p->nwaits ? &p->waits[w] : NULL;
}

uint32_t trex_profile_source_text(const struct trex_profile *p, uint32_t file, int64_t line)
{
	size_t lo = 0, hi = p->nsources;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct source_row *s = &p->sources[mid];

		if (s->file < file || (s->file == file && s->line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nsources && p->sources[lo].file == file && p->sources[lo].line == line)
		return p->sources[lo].text;
	return 0;
}

size_t trex_profile_memory(const struct trex_profile *p)
{
	size_t n = sizeof(*p) + trex_strtab_memory(p->strings);

	n += p->cap_reasons * sizeof(*p->reasons) + p->cap_reports * sizeof(*p->reports);
	n += p->cap_kernels * sizeof(*p->kernels) + p->nslots * sizeof(*p->kernel_slots);
	n += p->ninsns * (sizeof(*p->insns) + sizeof(*p->insn_counts));
	n += p->nwaits * sizeof(*p->waits) + p->cap_sources * sizeof(*p->sources);
	for (size_t k = 0; k < p->nkernels; k++)
		n += (size_t)p->kernels[k].ninsns * p->reports[p->kernels[k].report].nreasons *
		     sizeof(uint64_t) * 2; /* counts and totals */
	return n;
}
