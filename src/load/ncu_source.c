/* Nsight Compute's source page as CSV (`ncu --import R.ncu-rep --page
 * source --csv --print-source sass|cuda|cuda,sass`; the layouts are those
 * of the public scripts that read them, tests/data/stalls/README.md):
 *
 *   "Kernel Name","<kernel>"            (sass; older and newer exports)
 *   "Address","Source","Warp Stall Sampling (All Samples)",...,"stall_barrier",...
 *   "0x7fc48541d900","      IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ","42",...
 *
 *   "File Path","<source file>"         (cuda,sass: per file of the kernel)
 *   "Function Name","<kernel>"
 *   "Line No","Source","Address","Source",...
 *   "12","<source line>","-","-",...    a source line: its instructions follow
 *   "","","0x...","<SASS>",...          (the line's row holds their sums)
 *
 * and for `cuda` alone the source rows without addresses. Every field is
 * quoted; counts may have thousands separators; "-" and "" mean none.
 * Sample columns are stall_<reason> (warp states sampled); their
 * "(Not Issued)" twins and the totals are left out, being sums and
 * subsets of them. Lines starting "==" (ncu's log) are skipped. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_text.h"
#include "trex/core/grow.h"

#define MAX_REASONS 64
#define NONE_COL SIZE_MAX

struct header {
	int64_t line; /* 0: none yet */
	size_t nfields;
	size_t addr, lineno; /* columns, NONE_COL when absent */
	size_t cuda, sass;   /* the Source columns */
	size_t slot[256];    /* field -> reason slot, NONE_COL */
};

struct reasons {
	char names[MAX_REASONS][96];
	uint32_t ids[MAX_REASONS];
	uint32_t n;
};

struct kernel_base {
	uint32_t name;
	uint64_t base;
};

struct reader {
	struct profile_ctx *ctx;
	const char *path;
	uint32_t report;
	struct reasons *rs;
	struct header h;
	struct pcsv c;
	uint32_t kernel_name; /* string id of the current kernel */
	uint32_t file;        /* of the current File Path */
	int64_t line;         /* of the last source row */
	struct kernel_base *bases;
	size_t nbases, cap_bases;
	uint64_t counts[MAX_REASONS];
};

static bool is_log_line(const struct pcsv *c)
{
	size_t i = 0;

	while (i < c->line_len && (c->line[i] == ' ' || c->line[i] == '\t'))
		i++;
	return c->line_len - i >= 2 && c->line[i] == '=' && c->line[i + 1] == '=';
}

static bool is_kernel_row(const struct pcsv *c)
{
	return c->nf >= 2 &&
	       (pcsv_is(&c->f[0], "Kernel Name") || pcsv_is(&c->f[0], "Function Name"));
}

static bool is_file_row(const struct pcsv *c)
{
	return c->nf >= 2 && pcsv_is(&c->f[0], "File Path");
}

static bool is_header(const struct pcsv *c)
{
	bool first = c->nf >= 2 && (pcsv_is(&c->f[0], "Address") || pcsv_is(&c->f[0], "Line No") ||
	                            pcsv_is(&c->f[0], "#"));

	for (size_t j = 1; first && j < c->nf; j++)
		if (pcsv_is(&c->f[j], "Source"))
			return true;
	return false;
}

static bool starts(const struct pcsv_field *f, const char *prefix)
{
	size_t n = strlen(prefix);

	return f->len >= n && memcmp(f->s, prefix, n) == 0;
}

static bool ends(const struct pcsv_field *f, const char *suffix)
{
	size_t n = strlen(suffix);

	return f->len >= n && memcmp(f->s + f->len - n, suffix, n) == 0;
}

/* stall_<reason>, not its "(Not Issued)" twin. */
static bool is_reason_column(const struct pcsv_field *f)
{
	return starts(f, "stall_") && !ends(f, "(Not Issued)") && f->len < 96;
}

/* The all-samples total, the reason of exports without stall_ columns. */
static bool is_total_column(const struct pcsv_field *f)
{
	return starts(f, "Warp Stall Sampling (All") && f->len < 96;
}

static uint32_t reason_of(struct trex_profile *p, const char *name)
{
	const char *label = strncmp(name, "stall_", 6) == 0 ? name + 6 : "samples";
	uint32_t flags = 0;

	if (strcmp(label, "selected") == 0)
		flags = TREX_REASON_NOT_STALL;
	else if (strcmp(label, "long_sb") == 0 || strcmp(label, "short_sb") == 0 ||
	         strcmp(label, "wait") == 0)
		flags = TREX_REASON_DEPENDENCY;
	return trex_profile_reason_add(p, name, label, flags);
}

static uint32_t reason_find(const struct reasons *rs, const struct pcsv_field *f)
{
	for (uint32_t i = 0; i < rs->n; i++)
		if (pcsv_is(f, rs->names[i]))
			return i;
	return UINT32_MAX;
}

static bool add_reason(struct trex_profile *p, struct reasons *rs, const struct pcsv_field *f)
{
	if (reason_find(rs, f) != UINT32_MAX || rs->n == MAX_REASONS)
		return true;
	snprintf(rs->names[rs->n], sizeof(rs->names[0]), "%.*s", (int)f->len, f->s);
	rs->ids[rs->n] = reason_of(p, rs->names[rs->n]);
	return rs->ids[rs->n++] != TREX_PROFILE_NONE;
}

/* ---- first pass: the reasons and each kernel's lowest address ------------------------- */

static bool header_reasons(struct trex_profile *p, const struct pcsv *c, struct reasons *rs)
{
	bool any = false;

	for (size_t j = 0; j < c->nf; j++)
		any = any || is_reason_column(&c->f[j]);
	for (size_t j = 0; j < c->nf; j++)
		if (any ? is_reason_column(&c->f[j]) : is_total_column(&c->f[j]))
			if (!add_reason(p, rs, &c->f[j]))
				return false;
	return true;
}

static bool note_base(struct reader *r, uint32_t name, uint64_t addr)
{
	struct kernel_base *v;

	for (size_t i = 0; i < r->nbases; i++)
		if (r->bases[i].name == name) {
			if (addr < r->bases[i].base)
				r->bases[i].base = addr;
			return true;
		}
	if (!(v = trex_grow(r->bases, &r->cap_bases, r->nbases + 1, sizeof(*v), 8)))
		return false;
	r->bases = v;
	v[r->nbases++] = (struct kernel_base){name, addr};
	return true;
}

static uint64_t base_of(const struct reader *r, uint32_t name)
{
	for (size_t i = 0; i < r->nbases; i++)
		if (r->bases[i].name == name)
			return r->bases[i].base;
	return 0;
}

/* The string id of a field without its blanks. */
static uint32_t trimmed_id(struct trex_profile *p, const struct pcsv_field *f)
{
	const char *s = f->s;
	size_t len = f->len;

	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return trex_profile_intern(p, s, len);
}

static size_t column(const struct pcsv *c, const char *name, size_t from)
{
	for (size_t j = from; j < c->nf; j++)
		if (pcsv_is(&c->f[j], name))
			return j;
	return NONE_COL;
}

static enum trex_status first_pass(struct reader *r, const char *text, size_t len,
                                   struct trex_error *err)
{
	struct pcsv c;
	const char *why;
	size_t addr_col = NONE_COL;
	uint32_t name = 0;
	bool ok = true;

	pcsv_init(&c, text, len);
	while (ok && pcsv_next(&c)) {
		uint64_t addr;

		if (is_log_line(&c) || pcsv_split(&c, &why) != 0)
			continue;
		if (is_kernel_row(&c))
			ok = (name = trimmed_id(r->ctx->p, &c.f[1])) != TREX_PROFILE_NONE;
		else if (is_header(&c)) {
			addr_col = column(&c, "Address", 0);
			ok = header_reasons(r->ctx->p, &c, r->rs);
		} else if (addr_col < c.nf && pcsv_hex(&c.f[addr_col], &addr))
			ok = note_base(r, name, addr);
	}
	pcsv_free(&c);
	return ok ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* ---- second pass: the rows ------------------------------------------------------------------ */

#define problem(r, col, ...)                                                                       \
	profile_row_problem((r)->ctx, (r)->report, &(r)->c, (r)->path, col, __VA_ARGS__)
#define SHOWN PCSV_SHOWN

static void start_header(struct reader *r)
{
	const struct pcsv *c = &r->c;
	struct header *h = &r->h;

	h->line = c->lineno;
	h->nfields = c->nf;
	h->addr = column(c, "Address", 0);
	h->lineno = pcsv_is(&c->f[0], "Address") ? NONE_COL : 0;
	h->cuda = h->sass = NONE_COL;
	for (size_t j = 0; j < c->nf; j++) {
		if (!pcsv_is(&c->f[j], "Source"))
			continue;
		if (h->addr != NONE_COL && j > h->addr && h->sass == NONE_COL)
			h->sass = j;
		else if ((h->addr == NONE_COL || j < h->addr) && h->cuda == NONE_COL)
			h->cuda = j;
	}
	for (size_t j = 0; j < c->nf && j < 256; j++) {
		uint32_t slot = reason_find(r->rs, &c->f[j]);

		h->slot[j] = slot == UINT32_MAX ? NONE_COL : slot;
	}
}

static bool is_none(const struct pcsv_field *f)
{
	return f->len == 0 || pcsv_is(f, "-") || pcsv_is(f, "n/a") || pcsv_is(f, "N/A");
}

/* The sample columns of a row into r->counts; false after a bad one. */
static bool read_counts(struct reader *r)
{
	const struct pcsv *c = &r->c;

	memset(r->counts, 0, sizeof(r->counts));
	for (size_t j = 0; j < c->nf && j < 256; j++) {
		uint64_t v;

		if (r->h.slot[j] == NONE_COL || is_none(&c->f[j]))
			continue;
		if (!pcsv_u64(&c->f[j], &v)) {
			problem(r, c->f[j].col,
			        "expected a sample count (a whole number), found '%.*s'",
			        SHOWN(&c->f[j]));
			return false;
		}
		r->counts[r->h.slot[j]] += v;
	}
	return true;
}

/* The fields count of a row against its header's. */
static bool row_shape(struct reader *r)
{
	return profile_row_shape(r->ctx, r->report, &r->c, r->path, r->h.nfields, r->h.line);
}

static uint32_t field_id(struct reader *r, size_t col)
{
	if (col == NONE_COL || col >= r->c.nf || is_none(&r->c.f[col]))
		return 0;
	return trimmed_id(r->ctx->p, &r->c.f[col]);
}

static enum trex_status oom(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* A source line's row: it names the line of the instructions after it
 * (their sums are its counts); without an Address column it is the row. */
static enum trex_status source_row(struct reader *r, uint32_t kernel, int64_t line,
                                   struct trex_error *err)
{
	uint32_t text = field_id(r, r->h.cuda);
	struct trex_insn_info info = {.addr = (uint64_t)line, .file = r->file, .line = line};

	r->line = line;
	if (text == TREX_PROFILE_NONE ||
	    (text && trex_profile_source_add(r->ctx->p, r->file, line, text) != 0))
		return oom(err);
	if (r->h.addr == NONE_COL &&
	    trex_profile_insn_add(r->ctx->p, kernel, &info, r->counts) != 0)
		return oom(err);
	return TREX_OK;
}

static enum trex_status sass_row(struct reader *r, uint32_t kernel, uint64_t addr,
                                 struct trex_error *err)
{
	struct trex_insn_info info = {.addr = addr - base_of(r, r->kernel_name), .has_addr = true};

	info.text = field_id(r, r->h.sass != NONE_COL ? r->h.sass : r->h.cuda);
	info.file = r->file;
	info.line = r->line;
	if (info.text == TREX_PROFILE_NONE ||
	    trex_profile_insn_add(r->ctx->p, kernel, &info, r->counts) != 0)
		return oom(err);
	return TREX_OK;
}

/* The line number of a row, 0 when it names none; -1 after a bad one. */
static int64_t row_line(struct reader *r)
{
	const struct pcsv_field *f;
	uint64_t v;

	if (r->h.lineno == NONE_COL || is_none(&r->c.f[r->h.lineno]))
		return 0;
	f = &r->c.f[r->h.lineno];
	if (!pcsv_u64(f, &v) || v == 0 || v > INT32_MAX) {
		problem(r, f->col, "expected a source line number, found '%.*s'", SHOWN(f));
		return -1;
	}
	return (int64_t)v;
}

static enum trex_status data_row(struct reader *r, struct trex_error *err)
{
	const struct pcsv_field *af;
	uint32_t kernel;
	uint64_t addr;
	int64_t line;

	if (!row_shape(r) || (line = row_line(r)) < 0 || !read_counts(r))
		return TREX_OK;
	kernel = trex_profile_kernel_add(r->ctx->p, r->report, 0, r->kernel_name);
	if (kernel == TREX_PROFILE_NONE)
		return oom(err);
	af = r->h.addr == NONE_COL ? NULL : &r->c.f[r->h.addr];
	trex_profile_report_note(r->ctx->p, r->report, 1, NULL);
	if (af && !is_none(af)) {
		if (pcsv_hex(af, &addr))
			return sass_row(r, kernel, addr, err);
		problem(r, af->col, "expected an instruction address (0x...), found '%.*s'",
		        SHOWN(af));
		return TREX_OK;
	}
	if (line > 0)
		return source_row(r, kernel, line, err);
	problem(r, 1, "expected an instruction address or a source line number");
	return TREX_OK;
}

static enum trex_status read_line(struct reader *r, struct trex_error *err)
{
	const char *why = NULL;
	int64_t bad;

	if (pcsv_blank(&r->c) || is_log_line(&r->c))
		return TREX_OK;
	if ((bad = pcsv_split(&r->c, &why)) < 0)
		return oom(err);
	if (bad > 0) {
		problem(r, bad, "%s", why);
		return TREX_OK;
	}
	if (is_kernel_row(&r->c)) {
		r->kernel_name = field_id(r, 1);
		r->h.line = 0;
		r->line = 0;
		return r->kernel_name == TREX_PROFILE_NONE ? oom(err) : TREX_OK;
	}
	if (is_file_row(&r->c)) {
		r->file = field_id(r, 1);
		r->line = 0;
		return r->file == TREX_PROFILE_NONE ? oom(err) : TREX_OK;
	}
	if (is_header(&r->c)) {
		start_header(r);
		return TREX_OK;
	}
	if (!r->h.line) {
		problem(r, 1,
		        "expected a header (\"Address\",\"Source\",... or \"Line No\",\"Source\","
		        "...) before the rows");
		return TREX_OK;
	}
	return data_row(r, err);
}

static enum trex_status load(struct profile_ctx *ctx, const char *path, const char *text,
                             size_t len, struct trex_error *err)
{
	struct reasons *rs = calloc(1, sizeof(*rs));
	struct reader r = {.ctx = ctx, .path = path, .rs = rs};
	enum trex_status s = rs ? first_pass(&r, text, len, err) : oom(err);

	if (s == TREX_OK && rs->n == 0)
		s = trex_error_set(
		    err, TREX_FORMAT, path, 0,
		    "expected an Nsight Compute source page with warp stall sampling "
		    "columns (stall_*), found none (profile with --section "
		    "WarpStateStats,SourceCounters)");
	if (s == TREX_OK && (r.report = trex_profile_report_add(ctx->p, path, "ncu-source", rs->ids,
	                                                        rs->n)) == TREX_PROFILE_NONE)
		s = oom(err);
	pcsv_init(&r.c, text, len);
	while (s == TREX_OK && pcsv_next(&r.c))
		s = read_line(&r, err);
	pcsv_free(&r.c);
	free(r.bases);
	free(rs);
	return s;
}

/* The first line that is not ncu's log: one of the source page's rows. */
static int sniff(const char *head, size_t len)
{
	static const char *const starts_of[] = {"\"Kernel Name\",",
	                                        "\"Function Name\",",
	                                        "\"File Path\",",
	                                        "\"Address\",\"Source\"",
	                                        "\"Line No\",\"Source\"",
	                                        "\"#\",\"Source\"",
	                                        NULL};
	const char *end = head + len;

	for (const char *line = head; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (n >= 2 && line[0] == '=' && line[1] == '=') {
			line += n + 1;
			continue;
		}
		if (n == 0 || (n == 1 && line[0] == '\r')) {
			line += n + 1;
			continue;
		}
		for (size_t i = 0; starts_of[i]; i++)
			if (n >= strlen(starts_of[i]) &&
			    memcmp(line, starts_of[i], strlen(starts_of[i])) == 0)
				return 95;
		return 0;
	}
	return 0;
}

const struct trex_profile_format trex_profile_format_ncu_source = {
    "ncu-source",
    sniff,
    load,
};
