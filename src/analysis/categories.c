#include "config.h"

#include "trex/core/grow.h"
#include "trex/analysis/categories.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "trex/analysis/labels.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define BAR_PCT_PER_CHAR 5.0
#define DIAG_MAX 600

enum rule_kind { R_REGEX, R_EQUALS, R_PREFIX, R_SUFFIX };

struct rule {
	enum rule_kind kind;
	uint32_t cat;    /* index into cats */
	uint32_t section; /* INI: section number, for duplicate tags */
	pcre2_code *re;  /* R_REGEX */
	char *tag;       /* INI tags, spaces removed */
	size_t len;
};

struct trex_catset {
	char **cats;
	size_t ncats, cap_cats;
	struct rule *rules;
	size_t nrules, cap_rules;
	bool ini;
};

void trex_catset_free(struct trex_catset *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->nrules; i++) {
		pcre2_code_free(cs->rules[i].re);
		free(cs->rules[i].tag);
	}
	for (size_t i = 0; i < cs->ncats; i++)
		free(cs->cats[i]);
	free(cs->rules);
	free(cs->cats);
	free(cs);
}

static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p = trex_grow(*v, cap, n + 1, size, 16);

	if (!p)
		return false;
	*v = p;
	return true;
}

/* Index of category name (len bytes), added when new; UINT32_MAX on OOM. */
static uint32_t cat_id(struct trex_catset *cs, const char *name, size_t len)
{
	for (size_t i = 0; i < cs->ncats; i++) {
		if (strlen(cs->cats[i]) == len && memcmp(cs->cats[i], name, len) == 0)
			return (uint32_t)i;
	}
	if (!grow((void **)&cs->cats, &cs->cap_cats, cs->ncats, sizeof(*cs->cats)) ||
	    !(cs->cats[cs->ncats] = strndup(name, len)))
		return UINT32_MAX;
	return (uint32_t)cs->ncats++;
}

static struct rule *add_rule(struct trex_catset *cs)
{
	struct rule *r;

	if (!grow((void **)&cs->rules, &cs->cap_rules, cs->nrules, sizeof(*cs->rules)))
		return NULL;
	r = &cs->rules[cs->nrules++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* ---- matching ------------------------------------------------------------------------ */

static bool regex_matches(const pcre2_code *re, const char *name)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc;

	if (!md)
		return false;
	rc = pcre2_match(re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

static size_t strip_spaces(const char *s, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] != ' ' && s[i] != '\t')
			out[n++] = s[i];
	}
	out[n] = '\0';
	return n;
}

/* unitrace semantics: the longest prefix or exact tag, else the longest
 * suffix tag; of equal lengths the later rule. */
static const struct rule *ini_match(const struct trex_catset *cs, const char *s, size_t n)
{
	const struct rule *best = NULL;

	for (size_t i = 0; i < cs->nrules; i++) {
		const struct rule *r = &cs->rules[i];
		bool hit = (r->kind == R_EQUALS && r->len == n && memcmp(r->tag, s, n) == 0) ||
		           (r->kind == R_PREFIX && r->len <= n && memcmp(r->tag, s, r->len) == 0);

		if (hit && (!best || r->len >= best->len))
			best = r;
	}
	if (best)
		return best;
	for (size_t i = 0; i < cs->nrules; i++) {
		const struct rule *r = &cs->rules[i];

		if (r->kind == R_SUFFIX && r->len <= n && memcmp(r->tag, s + n - r->len, r->len) == 0 &&
		    (!best || r->len >= best->len))
			best = r;
	}
	return best;
}

const char *trex_catset_match(const struct trex_catset *cs, const char *name)
{
	const struct rule *r = NULL;

	if (cs->ini) {
		size_t len = strlen(name);
		char *s = malloc(len + 1);

		if (!s)
			return NULL;
		r = ini_match(cs, s, strip_spaces(name, len, s));
		free(s);
		return r ? cs->cats[r->cat] : NULL;
	}
	for (size_t i = 0; i < cs->nrules; i++) {
		if (regex_matches(cs->rules[i].re, name))
			return cs->cats[cs->rules[i].cat];
	}
	return NULL;
}

/* ---- building ------------------------------------------------------------------------- */

/* Compiles a regex rule; PCRE2's message in msg on failure. */
static bool add_regex(struct trex_catset *cs, uint32_t cat, const char *re, size_t len,
                      char *msg, size_t msg_size, bool *nomem)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, len, 0, &code, &off, NULL);
	struct rule *r;

	if (!c) {
		PCRE2_UCHAR text[160];

		pcre2_get_error_message(code, text, sizeof(text));
		snprintf(msg, msg_size, "bad regex at offset %zu: %s", (size_t)off, (char *)text);
		return false;
	}
	r = add_rule(cs);
	if (!r) {
		pcre2_code_free(c);
		*nomem = true;
		return false;
	}
	r->kind = R_REGEX;
	r->cat = cat;
	r->re = c;
	return true;
}

enum trex_status trex_catset_builtin(struct trex_catset **out, struct trex_error *err)
{
	static const struct {
		const char *cat, *re;
	} builtin[] = {
#define TREX_CATEGORY_ROW(id, cat, re) {cat, re},
	    TREX_CATEGORY_BUILTIN_INFO(TREX_CATEGORY_ROW)
#undef TREX_CATEGORY_ROW
	};
	struct trex_catset *cs = calloc(1, sizeof(*cs));
	char msg[200];
	bool nomem = !cs;

	for (size_t i = 0; i < ARRAY_LEN(builtin) && !nomem; i++) {
		uint32_t cat = cat_id(cs, builtin[i].cat, strlen(builtin[i].cat));

		nomem = cat == UINT32_MAX;
		if (!nomem && !add_regex(cs, cat, builtin[i].re, strlen(builtin[i].re), msg,
		                         sizeof(msg), &nomem) && !nomem) {
			trex_catset_free(cs);
			return trex_error_set(err, TREX_FORMAT, NULL, -1, "built-in category %s: %s",
			                      builtin[i].cat, msg);
		}
	}
	if (nomem) {
		trex_catset_free(cs);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "categories: out of memory");
	}
	*out = cs;
	return TREX_OK;
}

/* ---- parsing files ---------------------------------------------------------------------- */

struct parser {
	struct trex_catset *cs;
	const char *path;
	trex_catset_diag_fn *diag;
	void *user;
	size_t line;
	bool nomem;
	/* INI state */
	bool in_section, skip_section;
	enum rule_kind kind;
	uint32_t cat, section;
	char **headers; /* seen "[...]" texts, spaces removed, for duplicates */
	size_t nheaders, cap_headers;
};

static void report(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct parser *p, const char *fmt, ...)
{
	char msg[DIAG_MAX], line[DIAG_MAX + 64];
	va_list ap;

	if (!p->diag)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s:%zu: %s", p->path, p->line, msg);
	p->diag(p->user, line);
}

static void trim(const char **s, size_t *len)
{
	while (*len && (**s == ' ' || **s == '\t' || **s == '\r'))
		(*s)++, (*len)--;
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r'))
		(*len)--;
}

/* "%.*s" for report(): a bounded copy of a line piece. */
static const char *piece(const char *s, size_t len, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), s);
	return buf;
}

static bool ini_verb(const char *v, size_t len, enum rule_kind *kind)
{
	static const struct {
		const char *verb;
		enum rule_kind kind;
	} verbs[] = {{"equalsto", R_EQUALS}, {"startswith", R_PREFIX}, {"endswith", R_SUFFIX}};
	char buf[32];
	size_t n = 0;

	for (size_t i = 0; i < len && n < sizeof(buf) - 1; i++) {
		if (v[i] != ' ' && v[i] != '\t')
			buf[n++] = v[i];
	}
	buf[n] = '\0';
	for (size_t i = 0; i < ARRAY_LEN(verbs); i++) {
		if (strcmp(buf, verbs[i].verb) == 0) {
			*kind = verbs[i].kind;
			return true;
		}
	}
	return false;
}

static bool seen_header(struct parser *p, const char *s, size_t len)
{
	char *h = malloc(len + 1);

	if (!h) {
		p->nomem = true;
		return false;
	}
	strip_spaces(s, len, h);
	for (size_t i = 0; i < p->nheaders; i++) {
		if (strcmp(p->headers[i], h) == 0) {
			free(h);
			return true;
		}
	}
	if (!grow((void **)&p->headers, &p->cap_headers, p->nheaders, sizeof(*p->headers))) {
		free(h);
		p->nomem = true;
		return false;
	}
	p->headers[p->nheaders++] = h;
	return false;
}

/* "[CAT[.SUB] if VERB]" */
static void ini_section(struct parser *p, const char *s, size_t len)
{
	const char *body = s + 1, *cat, *verb;
	size_t blen, clen;
	char buf[200];

	p->in_section = true;
	p->skip_section = true;
	if (s[len - 1] != ']') {
		report(p, "section header without ']': %s", piece(s, len, buf, sizeof(buf)));
		return;
	}
	blen = len - 2;
	verb = NULL;
	for (size_t i = 0; i + 4 <= blen; i++) {
		if (memcmp(body + i, " if ", 4) == 0) {
			verb = body + i + 4;
			break;
		}
	}
	if (!verb) {
		report(p, "expected [CATEGORY if equals to|starts with|ends with], not %s",
		       piece(s, len, buf, sizeof(buf)));
		return;
	}
	if (!ini_verb(verb, (size_t)(body + blen - verb), &p->kind)) {
		report(p, "unknown rule '%s' (expected equals to, starts with or ends with)",
		       piece(verb, (size_t)(body + blen - verb), buf, sizeof(buf)));
		return;
	}
	if (seen_header(p, body, blen)) {
		report(p, "duplicate section %s (ignored)", piece(s, len, buf, sizeof(buf)));
		return;
	}
	cat = body;
	clen = (size_t)(verb - 4 - body);
	trim(&cat, &clen);
	for (size_t i = 0; i < clen; i++) {
		if (cat[i] == '.')
			clen = i;
	}
	if (!clen) {
		report(p, "section without a category: %s", piece(s, len, buf, sizeof(buf)));
		return;
	}
	p->cat = cat_id(p->cs, cat, clen);
	p->nomem |= p->cat == UINT32_MAX;
	p->section++;
	p->skip_section = false;
}

static void ini_tag(struct parser *p, const char *s, size_t len)
{
	const char *kv = NULL;
	struct rule *r;
	char *tag, buf[200];
	size_t n;

	if (!p->in_section) {
		report(p, "tag before any [section]: %s", piece(s, len, buf, sizeof(buf)));
		return;
	}
	if (p->skip_section)
		return;
	for (size_t i = 0; i + 1 < len && !kv; i++) {
		if (s[i] == ':' && s[i + 1] == '=')
			kv = s + i;
	}
	if (kv)
		len = (size_t)(kv - s);
	tag = malloc(len + 1);
	if (!tag) {
		p->nomem = true;
		return;
	}
	n = strip_spaces(s, len, tag);
	if (!n)
		report(p, "empty tag");
	for (size_t i = 0; n && i < p->cs->nrules; i++) {
		const struct rule *o = &p->cs->rules[i];

		if (o->section == p->section && o->len == n && memcmp(o->tag, tag, n) == 0) {
			report(p, "duplicate tag '%s' in this section (ignored)", tag);
			n = 0;
		}
	}
	r = n ? add_rule(p->cs) : NULL;
	if (!r) {
		p->nomem |= n != 0;
		free(tag);
		return;
	}
	r->kind = p->kind;
	r->cat = p->cat;
	r->section = p->section;
	r->tag = tag;
	r->len = n;
}

/* "CATEGORY = REGEX" */
static void rules_line(struct parser *p, const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len), *re;
	size_t clen, rlen;
	char msg[200], buf[200];
	uint32_t cat;

	if (!eq) {
		report(p, "expected CATEGORY = REGEX, not %s", piece(s, len, buf, sizeof(buf)));
		return;
	}
	clen = (size_t)(eq - s);
	re = eq + 1;
	rlen = len - clen - 1;
	trim(&s, &clen);
	trim(&re, &rlen);
	if (!clen || !rlen) {
		report(p, "expected CATEGORY = REGEX, not %s", piece(s, len, buf, sizeof(buf)));
		return;
	}
	cat = cat_id(p->cs, s, clen);
	if (cat == UINT32_MAX) {
		p->nomem = true;
		return;
	}
	if (!add_regex(p->cs, cat, re, rlen, msg, sizeof(msg), &p->nomem) && !p->nomem)
		report(p, "%s", msg);
}

static bool is_comment(const char *s, size_t len, bool ini)
{
	return len == 0 || s[0] == '#' || (ini && s[0] == ';');
}

/* Is the first rule line an INI section header? */
static bool looks_ini(const char *text, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		size_t l = nl ? (size_t)(nl - s) : len - i;

		i += l + 1;
		trim(&s, &l);
		if (!is_comment(s, l, true))
			return s[0] == '[';
	}
	return false;
}

static void parse_lines(struct parser *p, const char *text, size_t len)
{
	for (size_t i = 0; i < len && !p->nomem;) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		size_t l = nl ? (size_t)(nl - s) : len - i;

		i += l + 1;
		p->line++;
		trim(&s, &l);
		if (is_comment(s, l, p->cs->ini))
			continue;
		if (!p->cs->ini)
			rules_line(p, s, l);
		else if (s[0] == '[')
			ini_section(p, s, l);
		else
			ini_tag(p, s, l);
	}
}

enum trex_status trex_catset_parse(const char *path, const char *text, size_t len,
                                   trex_catset_diag_fn *diag, void *user,
                                   struct trex_catset **out, struct trex_error *err)
{
	struct parser p = {.path = path, .diag = diag, .user = user};
	enum trex_status st = TREX_OK;

	p.cs = calloc(1, sizeof(*p.cs));
	if (!p.cs)
		return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
	p.cs->ini = looks_ini(text, len);
	parse_lines(&p, text, len);
	for (size_t i = 0; i < p.nheaders; i++)
		free(p.headers[i]);
	free(p.headers);
	if (p.nomem)
		st = trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
	else if (p.cs->nrules == 0)
		st = trex_error_set(err, TREX_FORMAT, path, -1, "no category rules in this file");
	if (st != TREX_OK) {
		trex_catset_free(p.cs);
		return st;
	}
	*out = p.cs;
	return TREX_OK;
}

/* ---- the table ---------------------------------------------------------------------------- */

static const struct trex_column cat_cols_head[] = {
    {"total_ns", "Time", TREX_COL_DURATION, true},
    {"share_pct", "Share %", TREX_COL_PERCENT, true},
    {"calls", "Calls", TREX_COL_COUNT, true},
};
enum { C_TOTAL, C_SHARE, C_CALLS, NHEAD };
static const struct trex_column bar_col = {"bar", "", TREX_COL_TEXT, false};
static const struct trex_column name_col = {"category", "Category", TREX_COL_TEXT, false};

struct cat_acc {
	const char *name;
	__int128 total;
	int64_t calls;
	int64_t *dev; /* per device column, ns */
};

struct cat_ctx {
	const struct trex_index *idx;
	const struct trex_catset *cs;
	uint8_t *cat_kind;   /* per category string: kind + 1, 0xff by name, 0 unknown */
	uint32_t *name_cat;  /* per name string: category index + 1, 0 unknown */
	uint32_t *proc_col;  /* per process: device column or UINT32_MAX */
	uint32_t ndev;
	struct cat_acc *acc; /* per category, then uncategorized unless the set has it */
	size_t nacc;
	uint32_t none;       /* acc index of uncategorized */
};

static bool gpu_work(struct cat_ctx *c, const struct trex_slice *s)
{
	uint8_t *k = &c->cat_kind[s->cat];
	enum trex_kind kind;

	if (*k == 0) {
		const char *cat = trex_index_str(c->idx, s->cat);

		*k = trex_kind_needs_name(cat) ? 0xff : (uint8_t)(trex_kind_of(cat, NULL) + 1);
	}
	kind = *k == 0xff ? trex_kind_of(trex_index_str(c->idx, s->cat),
	                                 trex_index_str(c->idx, s->name))
	                  : (enum trex_kind)(*k - 1);
	return kind == TREX_KIND_KERNEL || kind == TREX_KIND_MEMCPY || kind == TREX_KIND_MEMSET;
}

static uint32_t category_of(struct cat_ctx *c, uint32_t name)
{
	if (!c->name_cat[name]) {
		const char *cat = trex_catset_match(c->cs, trex_index_str(c->idx, name));
		uint32_t i = 0;

		while (cat && i < c->cs->ncats && cat != c->cs->cats[i])
			i++;
		c->name_cat[name] = (cat ? i : c->none) + 1;
	}
	return c->name_cat[name] - 1;
}

/* Device columns: every process with GPU work, in display order. */
static void find_devices(struct cat_ctx *c)
{
	uint32_t nslices = trex_index_slice_count(c->idx), nproc = trex_index_process_count(c->idx);

	for (uint32_t p = 0; p < nproc; p++)
		c->proc_col[p] = UINT32_MAX;
	for (uint32_t i = 0; i < nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);

		if (gpu_work(c, s))
			c->proc_col[trex_index_track(c->idx, s->track)->process] = 0;
	}
	for (uint32_t p = 0; p < nproc; p++) {
		if (c->proc_col[p] == 0)
			c->proc_col[p] = c->ndev++;
		else
			c->proc_col[p] = UINT32_MAX;
	}
}

static bool accumulate(struct cat_ctx *c)
{
	uint32_t nslices = trex_index_slice_count(c->idx);

	c->none = (uint32_t)c->cs->ncats;
	for (uint32_t i = 0; i < c->cs->ncats; i++) {
		if (strcmp(c->cs->cats[i], TREX_CATEGORY_NONE) == 0)
			c->none = i;
	}
	c->nacc = c->cs->ncats + (c->none == c->cs->ncats);
	c->acc = calloc(c->nacc, sizeof(*c->acc));
	if (!c->acc)
		return false;
	for (size_t i = 0; i < c->nacc; i++) {
		c->acc[i].name = i < c->cs->ncats ? c->cs->cats[i] : TREX_CATEGORY_NONE;
		c->acc[i].dev = calloc(c->ndev ? c->ndev : 1, sizeof(int64_t));
		if (!c->acc[i].dev)
			return false;
	}
	for (uint32_t i = 0; i < nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		struct cat_acc *a;

		if (!gpu_work(c, s))
			continue;
		a = &c->acc[category_of(c, s->name)];
		a->total += s->dur;
		a->calls++;
		a->dev[c->proc_col[trex_index_track(c->idx, s->track)->process]] += s->dur;
	}
	return true;
}

static int cmp_acc(const void *x, const void *y)
{
	const struct cat_acc *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* "rank<R>[_<file>]_<device>_ns": the run's and the device's key parts. */
static void device_column_key(const struct trex_index *idx, uint32_t process, char *buf,
                              size_t size)
{
	char run[512], dev[512];

	trex_file_key(idx, trex_index_process(idx, process)->file, run, sizeof(run));
	trex_device_key(idx, process, dev, sizeof(dev));
	snprintf(buf, size, "%s_%s_ns", run, dev);
}

static const struct trex_column *cat_columns(struct cat_ctx *c, struct trex_table *t, bool bar)
{
	size_t ncols = NHEAD + c->ndev + (bar ? 1 : 0) + 1, k = NHEAD;
	struct trex_column *cols = trex_table_init_owned(t, "categories", ncols);
	uint32_t nproc = trex_index_process_count(c->idx);

	if (!cols)
		return NULL;
	memcpy(cols, cat_cols_head, sizeof(cat_cols_head));
	for (uint32_t p = 0; p < nproc; p++) {
		char key[1100], title[1024];

		if (c->proc_col[p] == UINT32_MAX)
			continue;
		device_column_key(c->idx, p, key, sizeof(key));
		trex_device_label(c->idx, p, title, sizeof(title));
		k = NHEAD + c->proc_col[p];
		cols[k] = (struct trex_column){trex_table_strdup(t, key, strlen(key)),
		                               trex_table_strdup(t, title, strlen(title)),
		                               TREX_COL_DURATION, true};
		if (!cols[k].key || !cols[k].title)
			return NULL;
	}
	k = NHEAD + c->ndev;
	if (bar)
		cols[k++] = bar_col;
	cols[k] = name_col;
	return cols;
}

static bool cat_rows(struct cat_ctx *c, struct trex_table *t, bool bar)
{
	__int128 grand = 0;

	for (size_t i = 0; i < c->nacc; i++)
		grand += c->acc[i].total;
	qsort(c->acc, c->nacc, sizeof(*c->acc), cmp_acc);
	for (size_t i = 0; i < c->nacc; i++) {
		const struct cat_acc *a = &c->acc[i];
		union trex_cell *cell = trex_table_add_row(t);
		double share = grand ? (double)((long double)a->total * 100 / (long double)grand) : 0;
		size_t k = NHEAD + c->ndev;

		if (!cell)
			return false;
		cell[C_TOTAL].number = (double)a->total;
		cell[C_SHARE].number = share;
		cell[C_CALLS].count = a->calls;
		for (uint32_t d = 0; d < c->ndev; d++)
			cell[NHEAD + d].number = (double)a->dev[d];
		if (bar) {
			char hashes[32];
			size_t n = (size_t)(share / BAR_PCT_PER_CHAR + 0.5);

			memset(hashes, '#', n);
			cell[k].text = trex_table_strdup(t, hashes, n);
			if (!cell[k++].text)
				return false;
		}
		if (!(cell[k].text = trex_table_strdup(t, a->name, strlen(a->name))))
			return false;
	}
	return true;
}

static enum trex_status cat_compute(struct cat_ctx *c, const struct trex_category_opts *o,
                                    struct trex_table *t)
{
	size_t nstr = trex_strtab_count(trex_index_strings(c->idx)) + 1;

	c->cat_kind = calloc(nstr, 1);
	c->name_cat = calloc(nstr, sizeof(*c->name_cat));
	c->proc_col = calloc(trex_index_process_count(c->idx) + 1, sizeof(*c->proc_col));
	if (!c->cat_kind || !c->name_cat || !c->proc_col)
		return TREX_NOMEM;
	find_devices(c);
	if (!cat_columns(c, t, o->bar) || !accumulate(c) || !cat_rows(c, t, o->bar))
		return TREX_NOMEM;
	return TREX_OK;
}

enum trex_status trex_categories_table(const struct trex_index *idx,
                                       const struct trex_category_opts *opts,
                                       struct trex_table *t, struct trex_error *err)
{
	struct trex_category_opts none = {NULL, false};
	const struct trex_category_opts *o = opts ? opts : &none;
	struct trex_catset *builtin = NULL;
	struct cat_ctx c = {.idx = idx, .cs = o->set};
	enum trex_status st = TREX_OK;

	trex_table_init(t, "categories", cat_cols_head, NHEAD);
	if (!c.cs) {
		st = trex_catset_builtin(&builtin, err);
		c.cs = builtin;
	}
	if (st == TREX_OK)
		st = cat_compute(&c, o, t);
	for (size_t i = 0; c.acc && i < c.nacc; i++)
		free(c.acc[i].dev);
	free(c.acc);
	free(c.cat_kind);
	free(c.name_cat);
	free(c.proc_col);
	trex_catset_free(builtin);
	if (st == TREX_NOMEM)
		trex_error_set(err, st, NULL, -1, "categories: out of memory");
	if (st != TREX_OK)
		trex_table_free(t);
	return st;
}
