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
#include "trex/analysis/work.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define BAR_PCT_PER_CHAR 5.0
#define DIAG_MAX 600

/* R_COMM: the communication NAME rules (analysis/work.h) as one rule. */
enum rule_kind { R_REGEX, R_EQUALS, R_PREFIX, R_SUFFIX, R_COMM };

struct rule {
	enum rule_kind kind;
	uint32_t cat;     /* index into cats */
	uint32_t section; /* INI: section number, for duplicate tags */
	size_t line;      /* rules files: the line, for its label */
	pcre2_code *re;   /* R_REGEX */
	char *tag;        /* INI tags, spaces removed */
	size_t len;
};

struct trex_catset {
	char **cats;
	size_t ncats, cap_cats;
	struct rule *rules;
	size_t nrules, cap_rules;
	bool ini;
	bool builtin;
	struct trex_comm_matcher *comm; /* the built-in set's R_COMM rule */
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
	trex_comm_matcher_free(cs->comm);
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

		if (r->kind == R_SUFFIX && r->len <= n &&
		    memcmp(r->tag, s + n - r->len, r->len) == 0 && (!best || r->len >= best->len))
			best = r;
	}
	return best;
}

static bool rule_matches(const struct trex_catset *cs, const struct rule *r, const char *name)
{
	if (r->kind == R_COMM)
		return trex_comm_match(cs->comm, TREX_COMM_BY_NAME, name) != TREX_COMM_NONE;
	return regex_matches(r->re, name);
}

/* The rule that decides name, NULL when none does. */
static const struct rule *match_rule(const struct trex_catset *cs, const char *name)
{
	const struct rule *r = NULL;

	if (cs->ini) {
		size_t len = strlen(name);
		char *s = malloc(len + 1);

		if (!s)
			return NULL;
		r = ini_match(cs, s, strip_spaces(name, len, s));
		free(s);
		return r;
	}
	for (size_t i = 0; i < cs->nrules; i++) {
		if (rule_matches(cs, &cs->rules[i], name))
			return &cs->rules[i];
	}
	return NULL;
}

const char *trex_catset_match(const struct trex_catset *cs, const char *name)
{
	const struct rule *r = match_rule(cs, name);

	return r ? cs->cats[r->cat] : NULL;
}

bool trex_catset_comm_decides(const struct trex_catset *cs)
{
	return cs->builtin;
}

bool trex_category_is_comm(const char *category)
{
	static const char *const words[] = {TREX_CATEGORY_COMM_WORDS};
	char key[32];
	size_t n = 0;

	for (const char *p = category; *p && *p != '.'; p++) {
		if (*p == '_' || *p == '-' || *p == ' ')
			continue;
		if (n + 1 >= sizeof(key))
			return false;
		key[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	}
	key[n] = '\0';
	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		if (strcmp(key, words[i]) == 0)
			return true;
	return false;
}

int trex_catset_comm_by_name(const void *user, const char *name)
{
	const char *cat = trex_catset_match(user, name);

	return !cat ? -1 : trex_category_is_comm(cat) ? 1 : 0;
}

/* How rule r reads in the rules column: the built-in regex of a category
 * ("gemm regex"), an INI tag ("starts with Gemm") or a rules file line. */
static int rule_label(const struct trex_catset *cs, const struct rule *r, char *buf, size_t size)
{
	static const char *const verbs[] = {"", "equals to", "starts with", "ends with", ""};

	if (r->kind == R_REGEX && cs->builtin)
		return snprintf(buf, size, "%s regex", cs->cats[r->cat]);
	if (r->kind == R_REGEX)
		return snprintf(buf, size, "line %zu", r->line);
	return snprintf(buf, size, "%s %.*s", verbs[r->kind], (int)(r->len < 200 ? r->len : 200),
	                r->tag);
}

/* ---- building ------------------------------------------------------------------------- */

/* Compiles a regex rule; PCRE2's message in msg on failure. */
static bool add_regex(struct trex_catset *cs, uint32_t cat, const char *re, size_t len, char *msg,
                      size_t msg_size, bool *nomem)
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
	enum trex_status st;

	if (cs && (st = trex_comm_matcher_new(&cs->comm, err)) != TREX_OK) {
		trex_catset_free(cs);
		return st;
	}
	if (cs)
		cs->builtin = true;
	for (size_t i = 0; i < ARRAY_LEN(builtin) && !nomem; i++) {
		uint32_t cat = cat_id(cs, builtin[i].cat, strlen(builtin[i].cat));
		struct rule *r;

		nomem = cat == UINT32_MAX;
		if (!nomem && !*builtin[i].re) {
			nomem = !(r = add_rule(cs));
			if (r)
				*r = (struct rule){.kind = R_COMM, .cat = cat};
			continue;
		}
		if (!nomem &&
		    !add_regex(cs, cat, builtin[i].re, strlen(builtin[i].re), msg, sizeof(msg),
		               &nomem) &&
		    !nomem) {
			trex_catset_free(cs);
			return trex_error_set(err, TREX_FORMAT, NULL, -1,
			                      "built-in category %s: %s", builtin[i].cat, msg);
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
	else if (!p->nomem)
		p->cs->rules[p->cs->nrules - 1].line = p->line;
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
                                   trex_catset_diag_fn *diag, void *user, struct trex_catset **out,
                                   struct trex_error *err)
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
static const struct trex_column rules_col = {"rules", "Rules", TREX_COL_TEXT, false};
static const struct trex_column name_col = {"category", "Category", TREX_COL_TEXT, false};

struct cat_acc {
	const char *name;
	__int128 total;
	int64_t calls;
	int64_t *dev; /* per device column, ns */
	char *rules;  /* the rules column text */
};

/* What one rule decided. Rule keys: the communication rules first
 * [0, TREX_COMM_RULE_COUNT), then the set's rules, then "no rule". */
struct key_acc {
	__int128 total;
	int64_t calls;
	uint32_t acc;     /* its category's acc index */
	uint32_t example; /* its longest slice */
	int64_t example_dur;
};

struct cat_ctx {
	const struct trex_index *idx;
	const struct trex_catset *cs;
	const struct trex_work *work;
	uint32_t *name_key; /* per name string: key + 1 of the set's rule, 0 unknown */
	uint32_t *proc_col; /* per process: device column or UINT32_MAX */
	uint32_t ndev;
	struct cat_acc *acc; /* per category, then uncategorized unless the set has it */
	size_t nacc;
	uint32_t none; /* acc index of uncategorized */
	struct key_acc *keys;
	size_t nkeys;
	__int128 grand;
};

static uint32_t key_of(struct cat_ctx *c, uint32_t slice)
{
	uint32_t name = trex_index_slice(c->idx, slice)->name;
	unsigned comm = trex_work_comm(c->work, slice);

	if (c->cs->builtin && comm != TREX_COMM_NONE)
		return comm;
	if (!c->name_key[name]) {
		const struct rule *r = match_rule(c->cs, trex_index_str(c->idx, name));

		c->name_key[name] = (uint32_t)(r ? TREX_COMM_RULE_COUNT + (size_t)(r - c->cs->rules)
		                                 : c->nkeys - 1) +
		                    1;
	}
	return c->name_key[name] - 1;
}

/* The category (acc index) of every rule key. */
static void key_categories(struct cat_ctx *c)
{
	uint32_t comm = c->none;

	for (size_t r = 0; r < c->cs->nrules; r++) {
		if (c->cs->rules[r].kind == R_COMM)
			comm = c->cs->rules[r].cat;
	}
	for (size_t k = 0; k < c->nkeys; k++) {
		c->keys[k].acc = k < TREX_COMM_RULE_COUNT ? comm
		                 : k + 1 < c->nkeys ? c->cs->rules[k - TREX_COMM_RULE_COUNT].cat
		                                    : c->none;
		c->keys[k].example = TREX_NONE;
		c->keys[k].example_dur = -1;
	}
}

/* The label of rule key k in buf. */
static const char *key_label(const struct cat_ctx *c, size_t k, char *buf, size_t size)
{
	struct trex_comm_rule r;

	if (k < TREX_COMM_RULE_COUNT && trex_comm_rule(k, &r))
		snprintf(buf, size, "%s", r.id);
	else if (k + 1 < c->nkeys)
		rule_label(c->cs, &c->cs->rules[k - TREX_COMM_RULE_COUNT], buf, size);
	else
		buf[0] = '\0';
	return buf;
}

/* Device columns: every process with GPU work, in display order. */
static void find_devices(struct cat_ctx *c)
{
	uint32_t nslices = trex_index_slice_count(c->idx), nproc = trex_index_process_count(c->idx);

	for (uint32_t p = 0; p < nproc; p++)
		c->proc_col[p] = UINT32_MAX;
	for (uint32_t i = 0; i < nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);

		if (trex_work_is_device(c->work, i))
			c->proc_col[trex_index_track(c->idx, s->track)->process] = 0;
	}
	for (uint32_t p = 0; p < nproc; p++) {
		if (c->proc_col[p] == 0)
			c->proc_col[p] = c->ndev++;
		else
			c->proc_col[p] = UINT32_MAX;
	}
}

static bool make_accs(struct cat_ctx *c)
{
	c->none = (uint32_t)c->cs->ncats;
	for (uint32_t i = 0; i < c->cs->ncats; i++) {
		if (strcmp(c->cs->cats[i], TREX_CATEGORY_NONE) == 0)
			c->none = i;
	}
	c->nacc = c->cs->ncats + (c->none == c->cs->ncats);
	c->acc = calloc(c->nacc, sizeof(*c->acc));
	c->nkeys = TREX_COMM_RULE_COUNT + c->cs->nrules + 1;
	c->keys = calloc(c->nkeys, sizeof(*c->keys));
	if (!c->acc || !c->keys)
		return false;
	for (size_t i = 0; i < c->nacc; i++) {
		c->acc[i].name = i < c->cs->ncats ? c->cs->cats[i] : TREX_CATEGORY_NONE;
		c->acc[i].dev = calloc(c->ndev ? c->ndev : 1, sizeof(int64_t));
		if (!c->acc[i].dev)
			return false;
	}
	key_categories(c);
	return true;
}

static bool accumulate(struct cat_ctx *c)
{
	uint32_t nslices = trex_index_slice_count(c->idx);

	if (!make_accs(c))
		return false;
	for (uint32_t i = 0; i < nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		struct key_acc *k;
		struct cat_acc *a;

		if (!trex_work_is_device(c->work, i))
			continue;
		k = &c->keys[key_of(c, i)];
		a = &c->acc[k->acc];
		k->total += s->dur;
		k->calls++;
		if (s->dur > k->example_dur) {
			k->example = i;
			k->example_dur = s->dur;
		}
		a->total += s->dur;
		a->calls++;
		a->dev[c->proc_col[trex_index_track(c->idx, s->track)->process]] += s->dur;
		c->grand += s->dur;
	}
	return true;
}

struct used_key {
	size_t key;
	__int128 total;
};

static int cmp_used_key(const void *x, const void *y)
{
	const struct used_key *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* The rule keys that decided anything, by time (descending), then key. */
static struct used_key *used_keys(const struct cat_ctx *c, size_t *n)
{
	struct used_key *v = malloc(c->nkeys * sizeof(*v));

	*n = 0;
	for (size_t k = 0; v && k < c->nkeys; k++) {
		if (c->keys[k].calls)
			v[(*n)++] = (struct used_key){k, c->keys[k].total};
	}
	if (v)
		qsort(v, *n, sizeof(*v), cmp_used_key);
	return v;
}

/* Each category's rules column: its rules' labels, by time. */
static bool rule_texts(struct cat_ctx *c)
{
	size_t n;
	struct used_key *v = used_keys(c, &n);
	char label[256];

	for (size_t i = 0; v && i < n; i++) {
		struct cat_acc *a = &c->acc[c->keys[v[i].key].acc];
		size_t old = a->rules ? strlen(a->rules) : 0;
		const char *l = key_label(c, v[i].key, label, sizeof(label));
		char *t;

		if (!*l)
			continue;
		if (!(t = realloc(a->rules, old + strlen(l) + 3))) {
			free(v);
			return false;
		}
		sprintf(t + old, "%s%s", old ? ", " : "", l);
		a->rules = t;
	}
	free(v);
	return v != NULL;
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
	size_t ncols = NHEAD + c->ndev + (bar ? 1 : 0) + 2, k = NHEAD;
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
	cols[k++] = rules_col;
	cols[k] = name_col;
	return cols;
}

static const char *text_cell(struct trex_table *t, const char *s)
{
	return trex_table_strdup(t, s ? s : "", s ? strlen(s) : 0);
}

static double share_of(__int128 part, __int128 whole)
{
	return whole ? (double)((long double)part * 100 / (long double)whole) : 0;
}

static bool cat_rows(struct cat_ctx *c, struct trex_table *t, bool bar)
{
	qsort(c->acc, c->nacc, sizeof(*c->acc), cmp_acc);
	for (size_t i = 0; i < c->nacc; i++) {
		const struct cat_acc *a = &c->acc[i];
		union trex_cell *cell = trex_table_add_row(t);
		double share = share_of(a->total, c->grand);
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
		if (!(cell[k++].text = text_cell(t, a->rules)) ||
		    !(cell[k].text = text_cell(t, a->name)))
			return false;
	}
	return true;
}

/* Without any device work there is no row, and the table says why. */
static bool empty_note(struct cat_ctx *c, struct trex_table *t)
{
	char why[512];

	if (c->grand || c->work->kernels || c->work->memcpys || c->work->memsets)
		return false;
	t->note = text_cell(
	    t, trex_work_empty_reason(c->idx, c->work, TREX_WORK_WANT_DEVICE, why, sizeof(why)));
	return true;
}

/* The devices and every rule's and category's work, for either table. */
static enum trex_status gather(struct cat_ctx *c)
{
	size_t nstr = trex_strtab_count(trex_index_strings(c->idx)) + 1;

	c->name_key = calloc(nstr, sizeof(*c->name_key));
	c->proc_col = calloc(trex_index_process_count(c->idx) + 1, sizeof(*c->proc_col));
	if (!c->name_key || !c->proc_col)
		return TREX_NOMEM;
	find_devices(c);
	return accumulate(c) ? TREX_OK : TREX_NOMEM;
}

static enum trex_status cat_compute(struct cat_ctx *c, const struct trex_category_opts *o,
                                    struct trex_table *t)
{
	if (!cat_columns(c, t, o->bar))
		return TREX_NOMEM;
	if (empty_note(c, t))
		return t->note ? TREX_OK : TREX_NOMEM;
	if (!rule_texts(c) || !cat_rows(c, t, o->bar))
		return TREX_NOMEM;
	return TREX_OK;
}

/* ---- explaining ------------------------------------------------------------------------------ */

static const struct trex_column explain_cols[] = {
    {"total_ns", "Time", TREX_COL_DURATION, true},
    {"share_pct", "Share %", TREX_COL_PERCENT, true},
    {"calls", "Calls", TREX_COL_COUNT, true},
    {"category", "Category", TREX_COL_TEXT, false},
    {"on", "On", TREX_COL_TEXT, false},
    {"rule", "Rule", TREX_COL_TEXT, false},
    {"example", "Longest", TREX_COL_TEXT, false},
};
enum { E_TOTAL, E_SHARE, E_CALLS, E_CATEGORY, E_ON, E_RULE, E_EXAMPLE, NEXPLAIN };

/* What rule key k looked at: the work's name, its launching op or args
 * (communication rules), or the name by the set's rules. */
static const char *key_on(const struct cat_ctx *c, size_t k)
{
	struct trex_comm_rule r;

	if (k < TREX_COMM_RULE_COUNT && trex_comm_rule(k, &r))
		return trex_comm_by_label(r.by);
	return k + 1 < c->nkeys ? "name" : "";
}

static bool explain_rows(struct cat_ctx *c, struct trex_table *t)
{
	size_t n;
	struct used_key *v = used_keys(c, &n);
	char label[256];

	for (size_t i = 0; v && i < n; i++) {
		const struct key_acc *k = &c->keys[v[i].key];
		union trex_cell *cell = trex_table_add_row(t);
		uint32_t ex = trex_index_slice(c->idx, k->example)->name;

		if (!cell) {
			free(v);
			return false;
		}
		cell[E_TOTAL].number = (double)k->total;
		cell[E_SHARE].number = share_of(k->total, c->grand);
		cell[E_CALLS].count = k->calls;
		cell[E_CATEGORY].text = text_cell(t, c->acc[k->acc].name);
		cell[E_ON].text = text_cell(t, key_on(c, v[i].key));
		cell[E_RULE].text = text_cell(t, key_label(c, v[i].key, label, sizeof(label)));
		cell[E_EXAMPLE].text = text_cell(t, trex_index_str(c->idx, ex));
		if (!cell[E_CATEGORY].text || !cell[E_ON].text || !cell[E_RULE].text ||
		    !cell[E_EXAMPLE].text) {
			free(v);
			return false;
		}
	}
	free(v);
	return v != NULL;
}

/* ---- both tables --------------------------------------------------------------------------------
 */

static void cat_ctx_free(struct cat_ctx *c)
{
	for (size_t i = 0; c->acc && i < c->nacc; i++) {
		free(c->acc[i].dev);
		free(c->acc[i].rules);
	}
	free(c->acc);
	free(c->keys);
	free(c->name_key);
	free(c->proc_col);
}

typedef enum trex_status compute_fn(struct cat_ctx *c, const struct trex_category_opts *o,
                                    struct trex_table *t);

static enum trex_status explain_compute(struct cat_ctx *c, const struct trex_category_opts *o,
                                        struct trex_table *t)
{
	(void)o;
	if (empty_note(c, t))
		return t->note ? TREX_OK : TREX_NOMEM;
	return explain_rows(c, t) ? TREX_OK : TREX_NOMEM;
}

/* The rules opts name (or the built-in ones) and the index's device work,
 * then compute. */
static enum trex_status with_rules(const struct trex_index *idx,
                                   const struct trex_category_opts *opts, struct trex_table *t,
                                   compute_fn *compute, struct trex_error *err)
{
	struct trex_category_opts none = {NULL, false};
	const struct trex_category_opts *o = opts ? opts : &none;
	struct trex_catset *builtin = NULL;
	struct trex_work own = {0};
	struct cat_ctx c = {.idx = idx, .cs = o->set, .work = &own};
	enum trex_status st = TREX_OK;

	if (!c.cs) {
		st = trex_catset_builtin(&builtin, err);
		c.cs = builtin;
	}
	trex_work_count(idx, &own);
	if (st == TREX_OK)
		st = gather(&c);
	if (st == TREX_OK)
		st = compute(&c, o, t);
	if (st == TREX_NOMEM)
		trex_error_set(err, st, NULL, -1, "categories: out of memory");
	cat_ctx_free(&c);
	trex_catset_free(builtin);
	if (st != TREX_OK)
		trex_table_free(t);
	return st;
}

enum trex_status trex_categories_table(const struct trex_index *idx,
                                       const struct trex_category_opts *opts, struct trex_table *t,
                                       struct trex_error *err)
{
	trex_table_init(t, "categories", cat_cols_head, NHEAD);
	return with_rules(idx, opts, t, cat_compute, err);
}

enum trex_status trex_categories_explain_table(const struct trex_index *idx,
                                               const struct trex_category_opts *opts,
                                               struct trex_table *t, struct trex_error *err)
{
	trex_table_init(t, "category_rules", explain_cols, NEXPLAIN);
	return with_rules(idx, opts, t, explain_compute, err);
}

/* ---- one rank's part, and the set's table joined from them ------------------------------------
 */

struct trex_category_part {
	struct key_acc *keys; /* per rule key: total and calls */
	size_t nkeys;
	struct cat_acc *acc; /* per category in the set's order: total, calls, dev[ndev] */
	size_t nacc;
	uint32_t ndev;
	char **dev_name, **dev_key; /* per device column: trex_device_name, trex_device_key */
	__int128 grand;
	bool any_work; /* device work of any kind (a part with none adds no column) */
};

void trex_category_part_free(struct trex_category_part *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->acc && i < p->nacc; i++)
		free(p->acc[i].dev);
	for (uint32_t d = 0; d < p->ndev; d++) {
		free(p->dev_name ? p->dev_name[d] : NULL);
		free(p->dev_key ? p->dev_key[d] : NULL);
	}
	free(p->dev_name);
	free(p->dev_key);
	free(p->acc);
	free(p->keys);
	free(p);
}

/* The names and keys of c's device columns, into p. */
static bool part_devices(const struct cat_ctx *c, struct trex_category_part *p)
{
	uint32_t nproc = trex_index_process_count(c->idx);

	p->ndev = c->ndev;
	p->dev_name = calloc(c->ndev + 1, sizeof(*p->dev_name));
	p->dev_key = calloc(c->ndev + 1, sizeof(*p->dev_key));
	if (!p->dev_name || !p->dev_key)
		return false;
	for (uint32_t q = 0; q < nproc; q++) {
		char buf[1024];
		uint32_t d = c->proc_col[q];

		if (d == UINT32_MAX)
			continue;
		p->dev_name[d] = strdup(trex_device_name(c->idx, q, buf, sizeof(buf)));
		p->dev_key[d] = strdup(trex_device_key(c->idx, q, buf, sizeof(buf)));
		if (!p->dev_name[d] || !p->dev_key[d])
			return false;
	}
	return true;
}

enum trex_status trex_category_part_new(const struct trex_index *idx,
                                        struct trex_category_part **out, struct trex_error *err)
{
	struct trex_catset *builtin = NULL;
	struct trex_work work = {0};
	struct cat_ctx c = {.idx = idx, .work = &work};
	struct trex_category_part *p = calloc(1, sizeof(*p));
	enum trex_status st = p ? trex_catset_builtin(&builtin, err) : TREX_NOMEM;

	c.cs = builtin;
	trex_work_count(idx, &work);
	if (st == TREX_OK)
		st = gather(&c);
	if (st == TREX_OK && !part_devices(&c, p))
		st = TREX_NOMEM;
	if (st == TREX_OK) { /* the accumulators move into the part */
		p->keys = c.keys;
		p->nkeys = c.nkeys;
		p->acc = c.acc;
		p->nacc = c.nacc;
		p->grand = c.grand;
		p->any_work = c.grand || work.kernels || work.memcpys || work.memsets;
		c.keys = NULL;
		c.acc = NULL;
	}
	cat_ctx_free(&c);
	trex_catset_free(builtin);
	if (st != TREX_OK) {
		trex_category_part_free(p);
		return st == TREX_NOMEM
		           ? trex_error_set(err, st, NULL, -1, "categories: out of memory")
		           : st;
	}
	*out = p;
	return TREX_OK;
}

/* The set's device columns: each part's, "rank R NAME" as trex_device_label
 * names a device of a set whose ranks are apart. */
static bool join_columns(struct trex_category_part *const *parts, const int64_t *ranks, size_t n,
                         uint32_t ndev, bool bar, struct trex_table *t)
{
	size_t k = NHEAD;
	struct trex_column *cols = trex_table_init_owned(t, "categories", NHEAD + ndev + bar + 2);

	if (!cols)
		return false;
	memcpy(cols, cat_cols_head, sizeof(cat_cols_head));
	for (size_t i = 0; i < n; i++) {
		for (uint32_t d = 0; d < parts[i]->ndev; d++, k++) {
			char key[1100], title[1100], run[64];

			snprintf(key, sizeof(key), "%s_%s_ns",
			         trex_rank_key(ranks[i], run, sizeof(run)), parts[i]->dev_key[d]);
			snprintf(title, sizeof(title), "%s %s",
			         trex_rank_label(ranks[i], run, sizeof(run)),
			         parts[i]->dev_name[d]);
			cols[k] = (struct trex_column){trex_table_strdup(t, key, strlen(key)),
			                               trex_table_strdup(t, title, strlen(title)),
			                               TREX_COL_DURATION, true};
			if (!cols[k].key || !cols[k].title)
				return false;
		}
	}
	if (bar)
		cols[k++] = bar_col;
	cols[k++] = rules_col;
	cols[k] = name_col;
	return true;
}

/* The parts summed into c (made by make_accs with every part's columns). */
static void join_sums(struct cat_ctx *c, struct trex_category_part *const *parts, size_t n)
{
	uint32_t dev0 = 0;

	for (size_t i = 0; i < n; i++) {
		const struct trex_category_part *p = parts[i];

		for (size_t k = 0; k < c->nkeys && k < p->nkeys; k++) {
			c->keys[k].total += p->keys[k].total;
			c->keys[k].calls += p->keys[k].calls;
		}
		for (size_t a = 0; a < c->nacc && a < p->nacc; a++) {
			c->acc[a].total += p->acc[a].total;
			c->acc[a].calls += p->acc[a].calls;
			memcpy(c->acc[a].dev + dev0, p->acc[a].dev, p->ndev * sizeof(int64_t));
		}
		c->grand += p->grand;
		dev0 += p->ndev;
	}
}

enum trex_status trex_categories_join_table(struct trex_category_part *const *parts,
                                            const int64_t *ranks, size_t n, bool bar,
                                            struct trex_table *t, bool *joined,
                                            struct trex_error *err)
{
	struct trex_catset *builtin = NULL;
	struct cat_ctx c = {0};
	enum trex_status st = trex_catset_builtin(&builtin, err);
	bool any = false;

	*joined = false;
	trex_table_init(t, "categories", cat_cols_head, NHEAD);
	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		c.ndev += parts[i]->ndev;
		any = any || parts[i]->any_work;
		if (parts[i]->nkeys != TREX_COMM_RULE_COUNT + builtin->nrules + 1)
			any = false; /* not the built-in rules' part: the merged load decides */
	}
	if (st != TREX_OK || !any) {
		trex_catset_free(builtin);
		return st;
	}
	c.cs = builtin;
	st = make_accs(&c) ? TREX_OK : TREX_NOMEM;
	if (st == TREX_OK) {
		join_sums(&c, parts, n);
		if (!join_columns(parts, ranks, n, c.ndev, bar, t) || !rule_texts(&c) ||
		    !cat_rows(&c, t, bar))
			st = TREX_NOMEM;
	}
	cat_ctx_free(&c);
	trex_catset_free(builtin);
	if (st != TREX_OK) {
		trex_table_free(t);
		return trex_error_set(err, st, NULL, -1, "categories: out of memory");
	}
	*joined = true;
	return TREX_OK;
}
