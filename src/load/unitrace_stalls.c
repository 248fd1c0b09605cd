/* Intel unitrace --stall-sampling CSV (unitrace.md §3, ze_metrics.h's
 * writer): per device an optional "=== Device #N Metrics ===" banner, a
 * header "Kernel, IP[Address], <Reason>[Events], ...", then one row per
 * (kernel, instruction offset) with the samples of each reason summed over
 * the run. Fields are padded with blanks; kernel names are quoted (they may
 * hold commas); offsets are lowercase hex without 0x. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_text.h"
#include "trex/core/grow.h"

#define MAX_COLUMNS 64 /* unitrace writes at most 16 stall types */
#define EVENTS_SUFFIX "[Events]"

/* The reason columns of every header of a file, in order of appearance. */
struct columns {
	char names[MAX_COLUMNS][64];
	uint32_t ids[MAX_COLUMNS];
	uint32_t n;
};

/* What the rows of one device section are read with. */
struct section {
	int64_t device;
	int64_t header_line; /* 0: no header yet */
	size_t nfields;
	uint32_t slot[MAX_COLUMNS]; /* field j (>= 2) -> report reason slot */
	uint32_t sbid_slot;         /* SbidStall's slot, UINT32_MAX if none */
};

static bool is_header(const struct pcsv *c)
{
	return c->nf >= 2 && pcsv_is(&c->f[0], "Kernel") && pcsv_is(&c->f[1], "IP[Address]");
}

/* "=== Device #N Metrics ===" (blanks around allowed): N in *device. */
static bool is_banner(const struct pcsv *c, int64_t *device)
{
	const char *s = c->line, *end = c->line + c->line_len;
	int64_t n = 0;
	int digits = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(end - s) < 12 || memcmp(s, "=== Device #", 12) != 0)
		return false;
	for (s += 12; s < end && *s >= '0' && *s <= '9' && digits < 12; s++, digits++)
		n = n * 10 + (*s - '0');
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (!digits || (size_t)(end - s) != 12 || memcmp(s, " Metrics ===", 12) != 0)
		return false;
	*device = n;
	return true;
}

/* "SbidStall[Events]" -> name "SbidStall"; the label drops "Stall". */
static void column_name(const struct pcsv_field *f, char *name, size_t size)
{
	size_t len = f->len, sl = strlen(EVENTS_SUFFIX);

	if (len > sl && memcmp(f->s + len - sl, EVENTS_SUFFIX, sl) == 0)
		len -= sl;
	snprintf(name, size, "%.*s", (int)len, f->s);
}

static uint32_t reason_of(struct trex_profile *p, const char *name)
{
	char label[64];
	size_t len = strlen(name);
	uint32_t flags = 0;

	snprintf(label, sizeof(label), "%s", name);
	if (len > 5 && strcmp(name + len - 5, "Stall") == 0)
		label[len - 5] = '\0';
	if (strcmp(name, "Active") == 0)
		flags = TREX_REASON_NOT_STALL;
	else if (strcmp(name, "SbidStall") == 0) /* the dump walk finds what it waits for */
		flags = TREX_REASON_DEPENDENCY;
	return trex_profile_reason_add(p, name, label, flags);
}

static uint32_t column_find(const struct columns *cols, const char *name)
{
	for (uint32_t i = 0; i < cols->n; i++)
		if (strcmp(cols->names[i], name) == 0)
			return i;
	return UINT32_MAX;
}

/* First pass: the union of every header's reason columns. */
static enum trex_status collect_columns(struct trex_profile *p, const char *text, size_t len,
                                        struct columns *cols, struct trex_error *err)
{
	struct pcsv c;
	const char *why;
	enum trex_status s = TREX_OK;

	pcsv_init(&c, text, len);
	cols->n = 0;
	while (s == TREX_OK && pcsv_next(&c)) {
		if (pcsv_split(&c, &why) != 0 || !is_header(&c))
			continue;
		for (size_t j = 2; j < c.nf && cols->n < MAX_COLUMNS; j++) {
			char name[64];

			column_name(&c.f[j], name, sizeof(name));
			if (column_find(cols, name) != UINT32_MAX)
				continue;
			snprintf(cols->names[cols->n], sizeof(cols->names[0]), "%s", name);
			cols->ids[cols->n] = reason_of(p, name);
			if (cols->ids[cols->n] == TREX_PROFILE_NONE)
				s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
			cols->n++;
		}
	}
	pcsv_free(&c);
	return s;
}

static void start_section(struct section *sec, const struct pcsv *c, const struct columns *cols)
{
	char name[64];

	sec->header_line = c->lineno;
	sec->nfields = c->nf;
	sec->sbid_slot = UINT32_MAX;
	for (size_t j = 2; j < c->nf && j < MAX_COLUMNS; j++) {
		column_name(&c->f[j], name, sizeof(name));
		sec->slot[j] = column_find(cols, name);
		if (strcmp(name, "SbidStall") == 0)
			sec->sbid_slot = sec->slot[j];
	}
}

struct reader {
	struct profile_ctx *ctx;
	const char *path;
	uint32_t report;
	const struct columns *cols;
	struct section sec;
	struct pcsv c;
	uint64_t counts[MAX_COLUMNS];
	uint64_t rows;
};

#define problem(r, col, ...)                                                                       \
	profile_row_problem((r)->ctx, (r)->report, &(r)->c, (r)->path, col, __VA_ARGS__)
#define SHOWN PCSV_SHOWN

/* The fields count of a row against its header's. */
static bool row_shape(struct reader *r)
{
	return profile_row_shape(r->ctx, r->report, &r->c, r->path, r->sec.nfields,
	                         r->sec.header_line);
}

/* The values of a row whose shape is right; false after reporting a bad one. */
static bool row_values(struct reader *r, uint64_t *ip)
{
	const struct pcsv *c = &r->c;

	if (c->f[0].len == 0) {
		problem(r, c->f[0].col, "expected a kernel name");
		return false;
	}
	if (!pcsv_hex(&c->f[1], ip)) {
		problem(r, c->f[1].col,
		        "expected a hexadecimal instruction offset (IP[Address]), found '%.*s'",
		        SHOWN(&c->f[1]));
		return false;
	}
	memset(r->counts, 0, sizeof(r->counts));
	for (size_t j = 2; j < c->nf && j < MAX_COLUMNS; j++) {
		uint64_t v;

		if (!pcsv_u64(&c->f[j], &v)) {
			problem(r, c->f[j].col,
			        "expected a sample count (a whole number), found '%.*s'",
			        SHOWN(&c->f[j]));
			return false;
		}
		if (r->sec.slot[j] != UINT32_MAX)
			r->counts[r->sec.slot[j]] += v;
	}
	return true;
}

static bool add_sbid(struct profile_ctx *ctx, uint32_t kernel, uint64_t addr)
{
	struct sbid_stall *v = trex_grow(ctx->sbid, &ctx->cap_sbid, ctx->nsbid + 1, sizeof(*v), 64);

	if (!v)
		return false;
	ctx->sbid = v;
	v[ctx->nsbid++] = (struct sbid_stall){kernel, addr};
	return true;
}

static enum trex_status add_row(struct reader *r, struct trex_error *err)
{
	struct trex_profile *p = r->ctx->p;
	const struct pcsv_field *name = &r->c.f[0];
	struct trex_insn_info info = {.has_addr = true};
	uint32_t id = trex_profile_intern(p, name->s, name->len), kernel;

	if (!row_shape(r) || !row_values(r, &info.addr))
		return TREX_OK;
	kernel =
	    id == TREX_PROFILE_NONE ? id : trex_profile_kernel_add(p, r->report, r->sec.device, id);
	if (kernel == TREX_PROFILE_NONE ||
	    trex_profile_insn_add(p, kernel, &info, r->counts) != 0 ||
	    (r->sec.sbid_slot != UINT32_MAX && r->counts[r->sec.sbid_slot] > 0 &&
	     !add_sbid(r->ctx, kernel, info.addr)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	r->rows++;
	trex_profile_report_note(p, r->report, 1, NULL);
	return TREX_OK;
}

static enum trex_status read_line(struct reader *r, struct trex_error *err)
{
	const char *why = NULL;
	int64_t bad, device;

	if (pcsv_blank(&r->c))
		return TREX_OK;
	if (is_banner(&r->c, &device)) {
		r->sec.device = device;
		r->sec.header_line = 0; /* each device section has its header */
		return TREX_OK;
	}
	if ((bad = pcsv_split(&r->c, &why)) < 0)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (bad > 0) {
		problem(r, bad, "%s", why);
		return TREX_OK;
	}
	if (is_header(&r->c)) {
		start_section(&r->sec, &r->c, r->cols);
		return TREX_OK;
	}
	if (!r->sec.header_line) {
		problem(r, 1, "expected a header 'Kernel, IP[Address], ...' before the rows");
		return TREX_OK;
	}
	return add_row(r, err);
}

static enum trex_status load(struct profile_ctx *ctx, const char *path, const char *text,
                             size_t len, struct trex_error *err)
{
	struct columns *cols = calloc(1, sizeof(*cols));
	struct reader r = {.ctx = ctx, .path = path, .cols = cols};
	enum trex_status s;

	if (!cols)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s = collect_columns(ctx->p, text, len, cols, err);
	if (s == TREX_OK && cols->n == 0)
		s = trex_error_set(
		    err, TREX_FORMAT, path, 0,
		    "expected a unitrace stall-sampling CSV: no 'Kernel, IP[Address], "
		    "...[Events]' header");
	if (s == TREX_OK) {
		r.report =
		    trex_profile_report_add(ctx->p, path, "unitrace-stalls", cols->ids, cols->n);
		if (r.report == TREX_PROFILE_NONE)
			s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	pcsv_init(&r.c, text, len);
	while (s == TREX_OK && pcsv_next(&r.c))
		s = read_line(&r, err);
	pcsv_free(&r.c);
	free(cols);
	if (s == TREX_OK && !profile_want_dump(ctx, r.report))
		s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return s;
}

/* A line of the first bytes holding both the IP column and a stall column. */
static int sniff(const char *head, size_t len)
{
	const char *end = head + len;

	for (const char *line = head; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (memmem(line, n, "IP[Address]", 11) && memmem(line, n, "Stall[Events]", 13))
			return 90;
		line += n + 1;
	}
	return 0;
}

const struct trex_profile_format trex_profile_format_unitrace_stalls = {
    "unitrace-stalls",
    sniff,
    load,
};
