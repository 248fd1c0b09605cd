#include "config.h"

#include "trex/load/deeptools_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"

#define START_MARK " Ideal/Total Cycles "
#define END_MARK "====== Perf Summary End ======"
#define AUTOPILOT_MARK "DSM-AutoPilot BEGIN"
#define KERNEL_SUFFIX " Cmpt Exec"
#define NO_CATEGORY "NotAvailable"

/* One line of the text, without its line end. */
struct line {
	const char *s;
	size_t len;
	size_t offset; /* of its first byte */
	int64_t no;    /* 1-based */
};

struct parser {
	const char *path;
	trex_ideal_diag_fn *diag;
	void *user;
	struct trex_ideal_log *log;
	struct trex_ideal_table *open; /* the table being read, NULL outside */
	struct line open_at;           /* its first line */
	size_t cap_tables, cap_kernels, cap_cats;
	const char *phase;
	bool nomem;
};

static void report(struct parser *p, const struct line *l, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report(struct parser *p, const struct line *l, size_t col, const char *fmt, ...)
{
	struct trex_error e;
	va_list ap;

	if (!p->diag)
		return;
	va_start(ap, fmt);
	trex_error_setv(&e, TREX_FORMAT, p->path, (int64_t)(l->offset + col), fmt, ap);
	va_end(ap);
	trex_error_set_line_col(&e, l->no, (int64_t)col + 1);
	p->diag(p->user, &e);
}

static bool has(const struct line *l, const char *mark)
{
	size_t n = strlen(mark);

	for (size_t i = 0; i + n <= l->len; i++) {
		if (memcmp(l->s + i, mark, n) == 0)
			return true;
	}
	return false;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_name_char(char c)
{
	return c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* Only blanks around word? */
static bool is_word_line(const struct line *l, const char *word)
{
	size_t i = 0, n = strlen(word), j;

	while (i < l->len && is_blank(l->s[i]))
		i++;
	if (l->len - i < n || memcmp(l->s + i, word, n) != 0)
		return false;
	for (j = i + n; j < l->len && is_blank(l->s[j]); j++)
		;
	return j == l->len;
}

/* Layout inside a table: blank, a rule of '-', '=' and '~', the header. */
static bool is_layout(const struct line *l)
{
	size_t i = 0;

	while (i < l->len && is_blank(l->s[i]))
		i++;
	if (l->len - i >= 4 && memcmp(l->s + i, "Name", 4) == 0)
		return true;
	for (; i < l->len; i++) {
		if (!is_blank(l->s[i]) && l->s[i] != '-' && l->s[i] != '=' && l->s[i] != '~')
			return false;
	}
	return true;
}

static char *dup_text(struct parser *p, const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d) {
		p->nomem = true;
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* ---- tables -------------------------------------------------------------------------- */

static void open_table(struct parser *p, const struct line *l)
{
	struct trex_ideal_log *log = p->log;
	struct trex_ideal_table *v =
	    trex_grow(log->tables, &p->cap_tables, log->ntables + 1, sizeof(*v), 4);

	if (!v) {
		p->nomem = true;
		return;
	}
	log->tables = v;
	p->open = &v[log->ntables++];
	memset(p->open, 0, sizeof(*p->open));
	p->open->line = l->no;
	p->open_at = *l;
	p->open->phase = dup_text(p, p->phase, strlen(p->phase));
	p->cap_kernels = p->cap_cats = 0;
}

static bool add_category(struct parser *p, struct trex_ideal_table *t, const char *cat)
{
	char **v;

	for (size_t i = 0; i < t->ncategories; i++) {
		if (strcmp(t->categories[i], cat) == 0)
			return true;
	}
	v = trex_grow(t->categories, &p->cap_cats, t->ncategories + 1, sizeof(*v), 8);
	if (!v) {
		p->nomem = true;
		return false;
	}
	t->categories = v;
	t->categories[t->ncategories] = dup_text(p, cat, strlen(cat));
	if (!t->categories[t->ncategories])
		return false;
	t->ncategories++;
	return true;
}

/* The kernel of a data line's NAME, and its category, both malloc'd. */
static bool split_name(struct parser *p, const char *name, size_t n, char **kernel, char **cat)
{
	const char *first = NULL, *last = NULL;
	size_t klen = n;
	const char *c = NO_CATEGORY;
	size_t clen = strlen(NO_CATEGORY);

	for (size_t i = 0; i + 6 <= n; i++) {
		if (memcmp(name + i, "-opCat", 6) == 0) {
			first = first ? first : name + i;
			last = name + i;
		}
	}
	if (first) {
		klen = (size_t)(first - name);
		c = last + 6;
		clen = n - (size_t)(c - name);
	} else if (n >= 3 && memcmp(name + n - 3, "-NA", 3) == 0) {
		klen = n - 3;
	}
	*kernel = malloc(klen + sizeof(KERNEL_SUFFIX));
	*cat = dup_text(p, c, clen);
	if (!*kernel || !*cat) {
		free(*kernel);
		free(*cat);
		p->nomem = true;
		return false;
	}
	memcpy(*kernel, name, klen);
	memcpy(*kernel + klen, KERNEL_SUFFIX, sizeof(KERNEL_SUFFIX));
	return true;
}

/* Adds a kernel unless the table has it; takes kernel and cat. */
static void add_kernel(struct parser *p, const struct line *l, char *kernel, char *cat,
                       uint64_t cycles)
{
	struct trex_ideal_table *t = p->open;
	const struct trex_ideal_kernel *old = trex_ideal_table_find(t, kernel);
	struct trex_ideal_kernel *v;

	if (old) {
		if (old->cycles != cycles || strcmp(old->category, cat) != 0)
			report(p, l, 0,
			       "%s is on line %lld already, as %s with %llu cycles (this "
			       "line is ignored)",
			       kernel, (long long)old->line, old->category,
			       (unsigned long long)old->cycles);
		free(kernel);
		free(cat);
		return;
	}
	v = trex_grow(t->kernels, &p->cap_kernels, t->nkernels + 1, sizeof(*v), 64);
	if (!v || !add_category(p, t, cat)) {
		p->nomem = true;
		free(kernel);
		free(cat);
		return;
	}
	t->kernels = v;
	t->kernels[t->nkernels++] = (struct trex_ideal_kernel){kernel, cat, cycles, l->no};
}

/* NAME CYCLES: false when the line is not one. */
static bool data_line(struct parser *p, const struct line *l)
{
	size_t i = 0, name_end, num, end;
	uint64_t cycles = 0;
	char *kernel, *cat;

	while (i < l->len && is_name_char(l->s[i]))
		i++;
	name_end = i;
	while (i < l->len && is_blank(l->s[i]))
		i++;
	if (name_end == 0 || i == name_end || i == l->len || l->s[i] < '0' || l->s[i] > '9')
		return false;
	for (num = i; i < l->len && l->s[i] >= '0' && l->s[i] <= '9'; i++) {
		unsigned d = (unsigned)(l->s[i] - '0');

		if (cycles > (UINT64_MAX - d) / 10) {
			report(p, l, num, "ideal cycles beyond %llu (this line is ignored)",
			       (unsigned long long)UINT64_MAX);
			return true;
		}
		cycles = cycles * 10 + d;
	}
	for (end = i; end < l->len && is_blank(l->s[end]); end++)
		;
	if (end != l->len)
		return false;
	if (name_end == 5 && memcmp(l->s, "Total", 5) == 0) {
		p->open->total_cycles = cycles;
		return true;
	}
	if (split_name(p, l->s, name_end, &kernel, &cat)) {
		if (strstr(kernel, "Precompute") || strstr(kernel, "-LxPreload") ||
		    strcmp(kernel, KERNEL_SUFFIX) == 0) {
			free(kernel);
			free(cat);
			return true;
		}
		add_kernel(p, l, kernel, cat, cycles);
	}
	return true;
}

static void table_line(struct parser *p, const struct line *l)
{
	if (has(l, END_MARK)) {
		p->open->closed = true;
		p->open = NULL;
	} else if (!is_layout(l) && !data_line(p, l)) {
		report(p, l, 0,
		       "expected '<kernel>-opCat<category> <ideal cycles>' in the "
		       "ideal-cycles table (this line is ignored)");
	}
}

static void parse_line(struct parser *p, const struct line *l)
{
	if (has(l, AUTOPILOT_MARK)) {
		p->log->autopilot = true;
		report(p, l, 0,
		       "compiled with DSM autopilot on: acelyzer calls kernel categories "
		       "unreliable then");
	}
	if (is_word_line(l, "PREFILL"))
		p->phase = "PREFILL";
	else if (is_word_line(l, "DECODING"))
		p->phase = "DECODING";
	else if (has(l, START_MARK))
		open_table(p, l);
	else if (p->open)
		table_line(p, l);
}

/* ---- the file -------------------------------------------------------------------------- */

static void free_table(struct trex_ideal_table *t)
{
	for (size_t i = 0; i < t->nkernels; i++) {
		free(t->kernels[i].name);
		free(t->kernels[i].category);
	}
	for (size_t i = 0; i < t->ncategories; i++)
		free(t->categories[i]);
	free(t->kernels);
	free(t->categories);
	free(t->phase);
}

void trex_ideal_log_free(struct trex_ideal_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->ntables; i++)
		free_table(&log->tables[i]);
	free(log->tables);
	free(log);
}

const struct trex_ideal_kernel *trex_ideal_table_find(const struct trex_ideal_table *t,
                                                      const char *name)
{
	for (size_t i = 0; i < t->nkernels; i++) {
		if (strcmp(t->kernels[i].name, name) == 0)
			return &t->kernels[i];
	}
	return NULL;
}

/* Parses every line; *end is the position just past the text. */
static void parse_lines(struct parser *p, const char *text, size_t len, struct line *end)
{
	struct line l = {text, 0, 0, 0};

	for (size_t i = 0; i < len && !p->nomem;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		l = (struct line){text + i, n, i, l.no + 1};
		if (l.len && l.s[l.len - 1] == '\r')
			l.len--;
		parse_line(p, &l);
		i += n + 1;
	}
	*end = (struct line){text + len, 0, len, l.no ? l.no : 1};
	if (len && text[len - 1] == '\n')
		end->no++;
	else if (l.no)
		end->offset = l.offset;
}

static bool any_kernel(const struct trex_ideal_log *log)
{
	for (size_t i = 0; i < log->ntables; i++) {
		if (log->tables[i].nkernels)
			return true;
	}
	return false;
}

enum trex_status trex_deeptools_log_parse(const char *path, const char *text, size_t len,
                                          trex_ideal_diag_fn *diag, void *user,
                                          struct trex_ideal_log **out, struct trex_error *err)
{
	struct parser p = {.path = path, .diag = diag, .user = user, .phase = "UNKN"};
	struct line end; /* offset: where its line starts */

	*out = NULL;
	p.log = calloc(1, sizeof(*p.log));
	if (!p.log)
		return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
	parse_lines(&p, text, len, &end);
	if (p.open && !p.nomem)
		report(&p, &p.open_at, 0,
		       "the ideal-cycles table starting here does not end ('%s' "
		       "missing; its kernels are kept)",
		       END_MARK);
	if (p.nomem) {
		trex_ideal_log_free(p.log);
		return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
	}
	if (!any_kernel(p.log)) {
		trex_ideal_log_free(p.log);
		trex_error_set(err, TREX_FORMAT, path, (int64_t)len,
		               "no kernel in an ideal-cycles table ('%s' ... '%s') in this file",
		               START_MARK, END_MARK);
		trex_error_set_line_col(err, end.no, (int64_t)(len - end.offset) + 1);
		return TREX_FORMAT;
	}
	*out = p.log;
	return TREX_OK;
}
