/* Reading stall-sampling inputs into a profile store: the registry of
 * profile formats, the files, and the shader dump walk once they are read. */
#include "config.h"

#include "trex/load/profile_load.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats.h"
#include "profile_text.h"
#include "shader_dump.h"
#include "trex/core/grow.h"

#define ASM_MAX ((size_t)1 << 30)

static const struct trex_profile_format *const registry[] = {
    &trex_profile_format_unitrace_stalls,
    &trex_profile_format_ncu_source,
    NULL,
};

static const struct trex_profile_format *pick(const char *head, size_t len)
{
	const struct trex_profile_format *best = NULL;
	int best_score = 0;

	for (size_t i = 0; registry[i]; i++) {
		int score = registry[i]->sniff(head, len);

		if (score > best_score) {
			best = registry[i];
			best_score = score;
		}
	}
	return best;
}

const char *trex_profile_sniff(const char *head, size_t len)
{
	const struct trex_profile_format *f = pick(head, len);

	return f ? f->name : NULL;
}

/* Only regular files: a pipe read here would be read no more by the trace
 * loader, and a slow one would block before Ctrl-C can stop it. */
const char *trex_profile_sniff_path(const char *path)
{
	char head[PROFILE_SNIFF_BYTES];
	struct stat st;
	size_t n;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	n = profile_text_head(path, head, sizeof(head));
	return n ? trex_profile_sniff(head, n) : NULL;
}

/* ---- what the readers share ------------------------------------------------------------- */

static void diag(const struct profile_ctx *c, const struct trex_error *e)
{
	if (c->o && c->o->diag)
		c->o->diag(c->o->user, e);
}

void profile_problem(struct profile_ctx *c, uint32_t report, const struct trex_error *problem)
{
	trex_profile_report_note(c->p, report, 0, problem);
	diag(c, problem);
}

bool profile_want_dump(struct profile_ctx *c, uint32_t report)
{
	uint32_t *v = trex_grow(c->dumped_reports, &c->cap_dumped, c->ndumped + 1, sizeof(*v), 4);

	if (!v)
		return false;
	c->dumped_reports = v;
	v[c->ndumped++] = report;
	return true;
}

static void ctx_free(struct profile_ctx *c)
{
	free(c->sbid);
	free(c->dumped_reports);
}

/* ---- shader dumps ------------------------------------------------------------------------ */

static int cmp_sbid(const void *a, const void *b)
{
	const struct sbid_stall *x = a, *y = b;

	if (x->kernel != y->kernel)
		return x->kernel < y->kernel ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The SBID-stalled addresses of kernel (c->sbid sorted by kernel). */
static size_t kernel_sbid(const struct profile_ctx *c, uint32_t kernel, uint64_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nsbid; i++)
		if (c->sbid[i].kernel == kernel)
			out[n++] = c->sbid[i].addr;
	return n;
}

static void note(const struct profile_ctx *c, enum trex_status status, const char *path,
                 const char *what, const char *name)
{
	struct trex_error e;

	trex_error_set(&e, status, path, -1, "%s%s", what, name);
	diag(c, &e);
}

/* One kernel from its .asm file, if the dump has one. */
static enum trex_status dump_kernel(struct profile_ctx *c, const struct shader_dump *d,
                                    uint32_t kernel, uint64_t *sbid, struct trex_error *err)
{
	const char *name = trex_profile_str(c->p, trex_profile_kernel(c->p, kernel)->name);
	const char *asm_path = shader_dump_find(d, name);
	char *text;
	size_t len, n;
	struct trex_error e;

	if (!asm_path) {
		note(c, TREX_OK, c->o->dump_dir, "no .asm file whose //.kernel names ", name);
		return TREX_OK;
	}
	if (profile_text_read(asm_path, ASM_MAX, &text, &len, &e) != TREX_OK) {
		diag(c, &e);
		return e.status == TREX_NOMEM
		           ? trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory")
		           : TREX_OK;
	}
	n = kernel_sbid(c, kernel, sbid);
	if (!shader_dump_apply(c->p, kernel, asm_path, text, len, sbid, n)) {
		free(text);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	free(text);
	return TREX_OK;
}

static bool wants_dump(const struct profile_ctx *c, uint32_t report)
{
	for (size_t i = 0; i < c->ndumped; i++)
		if (c->dumped_reports[i] == report)
			return true;
	return false;
}

static enum trex_status apply_dump(struct profile_ctx *c, const struct shader_dump *d,
                                   struct trex_error *err)
{
	uint64_t *sbid = malloc((c->nsbid ? c->nsbid : 1) * sizeof(*sbid));
	enum trex_status s =
	    sbid ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");

	if (c->nsbid)
		qsort(c->sbid, c->nsbid, sizeof(*c->sbid), cmp_sbid);
	for (uint32_t k = 0; s == TREX_OK && k < trex_profile_kernel_count(c->p); k++)
		if (wants_dump(c, trex_profile_kernel(c->p, k)->report) &&
		    !trex_profile_kernel(c->p, k)->listing)
			s = dump_kernel(c, d, k, sbid, err);
	free(sbid);
	c->ndumped = 0; /* every report that wanted the dump has it */
	return s;
}

/* ---- files ------------------------------------------------------------------------------- */

static enum trex_status load_one(struct profile_ctx *c, const char *path, const char *text,
                                 size_t len, struct trex_error *err)
{
	const struct trex_profile_format *f =
	    pick(text, len < PROFILE_SNIFF_BYTES ? len : PROFILE_SNIFF_BYTES);

	if (!f)
		return trex_error_set(
		    err, TREX_FORMAT, path, 0,
		    "expected a stall report: a unitrace --stall-sampling CSV or an "
		    "Nsight Compute source-page CSV (ncu --page source --csv)");
	return f->load(c, path, text, len, err);
}

enum trex_status trex_profile_load_text(struct trex_profile *p, const char *path, const char *text,
                                        size_t len, const struct trex_profile_load_opts *o,
                                        struct trex_error *err)
{
	struct profile_ctx c = {.p = p, .o = o};
	struct shader_dump *d = NULL;
	enum trex_status s = load_one(&c, path, text, len, err);

	if (s == TREX_OK && o && o->dump_dir && c.ndumped &&
	    (s = shader_dump_open(o->dump_dir, &d, err)) == TREX_OK)
		s = apply_dump(&c, d, err);
	shader_dump_free(d);
	ctx_free(&c);
	return s;
}

static enum trex_status load_file(struct profile_ctx *c, const char *path, struct trex_error *err)
{
	char *text;
	size_t len;
	enum trex_status s = profile_text_read(path, PROFILE_TEXT_MAX, &text, &len, err);

	if (s == TREX_OK)
		s = load_one(c, path, text, len, err);
	free(text);
	return s;
}

enum trex_status trex_profile_load_paths(const char *const *paths, size_t n,
                                         const struct trex_profile_load_opts *o,
                                         struct trex_profile **out, struct trex_error *err)
{
	struct trex_profile *p = trex_profile_new();
	struct profile_ctx c = {.p = p, .o = o};
	struct shader_dump *d = NULL;
	enum trex_status s =
	    p ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");

	*out = NULL;
	if (s == TREX_OK && o && o->dump_dir) /* a wrong --dump fails before the reading */
		s = shader_dump_open(o->dump_dir, &d, err);
	for (size_t i = 0; s == TREX_OK && i < n; i++)
		s = load_file(&c, paths[i], err);
	if (s == TREX_OK && d)
		s = apply_dump(&c, d, err);
	if (s == TREX_OK)
		s = trex_profile_freeze(p, err);
	shader_dump_free(d);
	ctx_free(&c);
	if (s != TREX_OK) {
		trex_profile_free(p);
		return s;
	}
	*out = p;
	return TREX_OK;
}
