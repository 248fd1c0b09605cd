/* One IGC .asm listing: its lines classified as analyzeperfmetrics.py
 * classifies them, instruction addresses, basic blocks with their
 * predecessors (IGC's emitBbInfo: "// B001: Preds:{B000}, Succs:{B002}"),
 * and the SBID token walk. */
#include "config.h"

#include "shader_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_text.h"
#include "trex/core/grow.h"

#define MAX_TOKENS 16
#define TOKEN_MAX 24

/* ---- classifying lines ----------------------------------------------------------------- */

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

static bool contains(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

/* After "//" and any blanks: the rest of the line. */
static const char *after_slashes(const char *s, size_t len, size_t *rest)
{
	size_t i = 2;

	while (i < len && s[i] == ' ')
		i++;
	*rest = len - i;
	return s + i;
}

static bool parse_line_number(const char *s, size_t len, int64_t *out)
{
	size_t i = 4; /* "Line" */
	int64_t v = 0;
	int digits = 0;

	while (i < len && s[i] == ' ')
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9' && digits < 15; i++, digits++)
		v = v * 10 + (s[i] - '0');
	*out = v;
	return digits > 0;
}

static enum asm_kind classify(const char *s, size_t len, int64_t *number)
{
	size_t rest;
	const char *r;

	if (!starts_with(s, len, "//"))
		return contains(s, len, "//") ? ASM_INSN : ASM_OTHER;
	r = after_slashes(s, len, &rest);
	if (starts_with(r, rest, "Line"))
		return parse_line_number(r, rest, number) ? ASM_LINE : ASM_OTHER;
	if (starts_with(r, rest, "File"))
		return ASM_FILE;
	if (starts_with(r, rest, "B") && contains(s, len, "Preds") && contains(s, len, "Succs"))
		return ASM_BLOCK;
	return ASM_OTHER;
}

/* "/ * [000001B8] * / " at the start: the address. */
static bool prefix_addr(const char *s, size_t len, uint64_t *addr)
{
	size_t i = 2;
	uint64_t v = 0;
	int digits = 0;

	if (!starts_with(s, len, "/*"))
		return false;
	while (i < len && s[i] == ' ')
		i++;
	if (i >= len || s[i++] != '[')
		return false;
	for (; i < len && digits < 16 && pcsv_hex_digit(s[i]) >= 0; i++, digits++)
		v = v << 4 | (uint64_t)pcsv_hex_digit(s[i]);
	if (!digits || i >= len || s[i] != ']')
		return false;
	*addr = v;
	return true;
}

static void set_addresses(struct asm_listing *a)
{
	uint64_t ip = 0;

	a->prefixed = true;
	for (size_t i = 0; i < a->n; i++)
		if (a->lines[i].kind == ASM_INSN &&
		    !prefix_addr(a->lines[i].s, a->lines[i].len, &a->lines[i].addr))
			a->prefixed = false;
	if (a->prefixed)
		return;
	for (size_t i = 0; i < a->n; i++) {
		struct asm_line *l = &a->lines[i];

		if (l->kind != ASM_INSN)
			continue;
		l->addr = ip;
		ip += contains(l->s, l->len, "Compacted") ? 8 : 16;
	}
}

/* ---- blocks ------------------------------------------------------------------------------ */

/* "// B003: ..." -> "B003" (the word after // up to ':'). */
static void block_id(const struct asm_line *l, char *id, size_t size)
{
	size_t rest, n = 0;
	const char *r = after_slashes(l->s, l->len, &rest);

	while (n < rest && r[n] != ':' && r[n] != ' ' && n + 1 < size)
		n++;
	memcpy(id, r, n);
	id[n] = '\0';
}

static uint32_t block_by_id(const struct asm_listing *a, const char *id, size_t len)
{
	for (uint32_t b = 0; b < a->nblocks; b++)
		if (strlen(a->blocks[b].id) == len && memcmp(a->blocks[b].id, id, len) == 0)
			return b;
	return UINT32_MAX;
}

/* The names inside "Preds:{...}" of block line l, as block indices. */
static bool block_preds(struct asm_listing *a, struct asm_block *b, const struct asm_line *l)
{
	const char *p = memmem(l->s, l->len, "Preds", 5), *end = l->s + l->len, *close;
	size_t cap = 0;

	if (p)
		p = memchr(p, '{', (size_t)(end - p));
	close = p ? memchr(p, '}', (size_t)(end - p)) : NULL;
	if (!close)
		return true;
	for (p++; p < close;) {
		const char *comma = memchr(p, ',', (size_t)(close - p)), *e = comma ? comma : close;
		const char *s = p;
		uint32_t id, *v;

		while (s < e && *s == ' ')
			s++;
		while (e > s && e[-1] == ' ')
			e--;
		p = comma ? comma + 1 : close;
		if (s == e || (id = block_by_id(a, s, (size_t)(e - s))) == UINT32_MAX)
			continue;
		if (!(v = trex_grow(b->preds, &cap, b->npreds + 1, sizeof(*v), 4)))
			return false;
		b->preds = v;
		v[b->npreds++] = id;
	}
	return true;
}

static bool make_blocks(struct asm_listing *a)
{
	size_t cap = 0;

	for (size_t i = 0; i < a->n; i++) {
		struct asm_block *v;

		if (a->lines[i].kind != ASM_BLOCK)
			continue;
		if (!(v = trex_grow(a->blocks, &cap, a->nblocks + 1, sizeof(*v), 8)))
			return false;
		a->blocks = v;
		memset(&v[a->nblocks], 0, sizeof(*v));
		block_id(&a->lines[i], v[a->nblocks].id, sizeof(v[0].id));
		v[a->nblocks].head = i;
		if (a->nblocks)
			v[a->nblocks - 1].tail = i - 1;
		a->nblocks++;
	}
	if (a->nblocks == 0) { /* ConstructCFG's dummy block */
		if (!(a->blocks = calloc(1, sizeof(*a->blocks))))
			return false;
		snprintf(a->blocks[0].id, sizeof(a->blocks[0].id), "B000");
		a->nblocks = 1;
	}
	a->blocks[a->nblocks - 1].tail = a->n ? a->n - 1 : 0;
	for (uint32_t b = 0; b < a->nblocks; b++) {
		const struct asm_block *bl = &a->blocks[b];

		if (bl->head < a->n && a->lines[bl->head].kind == ASM_BLOCK &&
		    !block_preds(a, &a->blocks[b], &a->lines[bl->head]))
			return false;
		for (size_t i = bl->head; i <= bl->tail && i < a->n; i++)
			a->lines[i].block = b;
	}
	return true;
}

/* ---- the listing ------------------------------------------------------------------------ */

static bool find_annotations_above(struct asm_listing *a)
{
	size_t line = SIZE_MAX, file = SIZE_MAX;

	a->line_above = malloc((a->n + 1) * sizeof(*a->line_above));
	a->file_above = malloc((a->n + 1) * sizeof(*a->file_above));
	if (!a->line_above || !a->file_above)
		return false;
	for (size_t i = 0; i <= a->n; i++) {
		a->line_above[i] = line;
		a->file_above[i] = file;
		if (i < a->n && a->lines[i].kind == ASM_LINE)
			line = i;
		else if (i < a->n && a->lines[i].kind == ASM_FILE)
			file = i;
	}
	return true;
}

bool asm_listing_parse(const char *text, size_t len, struct asm_listing *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t pos = 0; pos < len;) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		struct asm_line *v = trex_grow(out->lines, &cap, out->n + 1, sizeof(*v), 256);

		if (!v) {
			asm_listing_free(out);
			return false;
		}
		out->lines = v;
		pos += n + 1;
		if (n && s[n - 1] == '\r')
			n--;
		v[out->n] = (struct asm_line){s, n, ASM_OTHER, 0, 0, UINT32_MAX};
		v[out->n].kind = classify(s, n, &v[out->n].number);
		out->has_source = out->has_source || v[out->n].kind == ASM_LINE;
		out->n++;
	}
	set_addresses(out);
	if (!make_blocks(out) || !find_annotations_above(out)) {
		asm_listing_free(out);
		return false;
	}
	return true;
}

void asm_listing_free(struct asm_listing *a)
{
	for (uint32_t b = 0; b < a->nblocks; b++)
		free(a->blocks[b].preds);
	free(a->blocks);
	free(a->lines);
	free(a->line_above);
	free(a->file_above);
	memset(a, 0, sizeof(*a));
}

size_t asm_listing_find(const struct asm_listing *a, uint64_t addr)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->lines[i].kind == ASM_INSN && a->lines[i].addr == addr)
			return i;
	return SIZE_MAX;
}

static void trim(const char **s, size_t *len)
{
	while (*len && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*len)--;
	}
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
		(*len)--;
}

void asm_insn_text(const struct asm_line *l, const char **s, size_t *len)
{
	const char *p = l->s, *end = l->s + l->len, *close, *comment;

	if (starts_with(p, l->len, "/*") && (close = memmem(p, l->len, "*/", 2)))
		p = close + 2;
	comment = memmem(p, (size_t)(end - p), "//", 2);
	*s = p;
	*len = (size_t)((comment ? comment : end) - p);
	trim(s, len);
}

void asm_annotation_text(const struct asm_line *l, const char **s, size_t *len)
{
	size_t rest;
	const char *r = after_slashes(l->s, l->len, &rest), *colon;

	r += 4; /* "Line" or "File" */
	rest -= 4;
	if (l->kind == ASM_LINE) {
		colon = memchr(r, ':', rest);
		rest = colon ? rest - (size_t)(colon + 1 - r) : 0;
		r = colon ? colon + 1 : r;
	} else if (rest && *r == ':') {
		r++;
		rest--;
	}
	*s = r;
	*len = rest;
	trim(s, len);
}

/* ---- SBID tokens ----------------------------------------------------------------------------- */

struct tokens {
	char v[MAX_TOKENS][TOKEN_MAX];
	unsigned n;
};

/* The "$..." items of the group that starts after open (up to close),
 * filtered for send-type lines; returns how many "$" items the group had. */
static unsigned group_tokens(const char *p, const char *end, char close, bool send_type,
                             struct tokens *t)
{
	const char *stop = memchr(p, close, (size_t)(end - p));
	unsigned seen = 0;

	if (!stop)
		stop = end;
	while (p < stop) {
		const char *comma = memchr(p, ',', (size_t)(stop - p)), *e = comma ? comma : stop;
		const char *s = p;

		while (s < e && *s == ' ')
			s++;
		p = comma ? comma + 1 : stop;
		while (e > s && e[-1] == ' ')
			e--;
		if (s == e || *s != '$')
			continue;
		seen++;
		if ((send_type && !memchr(s, '.', (size_t)(e - s))) || t->n == MAX_TOKENS ||
		    (size_t)(e - s) >= TOKEN_MAX)
			continue;
		memcpy(t->v[t->n], s, (size_t)(e - s));
		t->v[t->n][e - s] = '\0';
		t->n++;
	}
	return seen;
}

static void stalled_tokens(const struct asm_line *l, struct tokens *t)
{
	const char *end = l->s + l->len, *p = memchr(l->s, '{', l->len);
	bool send = contains(l->s, l->len, "load") || contains(l->s, l->len, "store") ||
	            contains(l->s, l->len, "send") || contains(l->s, l->len, "EOT");

	t->n = 0;
	if (p)
		group_tokens(p + 1, end, '}', send, t);
	/* none in braces: the first (...) group with a "$" item, as `sync.allrd ($0)` */
	for (p = l->s; t->n == 0 && (p = memchr(p, '(', (size_t)(end - p))) != NULL;)
		if (group_tokens(++p, end, ')', send, t) > 0)
			break;
}

/* The "$..." items of an earlier instruction's first {...} group. */
static void producer_tokens(const struct asm_line *l, struct tokens *t)
{
	const char *p = memchr(l->s, '{', l->len);

	t->n = 0;
	if (p)
		group_tokens(p + 1, l->s + l->len, '}', false, t);
}

/* Does earlier instruction l (its tokens have) set stalled token tok? */
static bool sets_token(const struct asm_line *l, const struct tokens *have, const char *tok)
{
	const char *dot = strchr(tok, '.');
	size_t base = dot ? (size_t)(dot - tok) : strlen(tok);

	for (unsigned i = 0; i < have->n; i++) {
		if (dot && strlen(have->v[i]) == base && memcmp(have->v[i], tok, base) == 0)
			return true;
		if (!dot && strcmp(have->v[i], tok) == 0 && !contains(l->s, l->len, "sync."))
			return true;
	}
	return false;
}

/* ---- the walk ------------------------------------------------------------------------------- */

struct walk {
	const struct asm_listing *a;
	struct tokens want;
	struct sbid_result *r;
	bool line_pending, file_pending;     /* the stalled instruction's own */
	size_t *pending_line, *pending_file; /* causes waiting for annotations */
	size_t npl, npf;
};

static int add_cause(struct walk *w, size_t insn)
{
	struct sbid_result *r = w->r;
	struct sbid_cause *v;

	for (size_t i = 0; i < r->n; i++)
		if (r->causes[i].insn == insn)
			return 0;
	if (!(v = trex_grow(r->causes, &r->cap, r->n + 1, sizeof(*v), 4)))
		return -1;
	r->causes = v;
	v[r->n] = (struct sbid_cause){insn, SIZE_MAX, SIZE_MAX};
	w->pending_line[w->npl++] = r->n;
	w->pending_file[w->npf++] = r->n;
	r->n++;
	return 0;
}

/* Instruction line i against the tokens still wanted. */
static int match_tokens(struct walk *w, size_t i)
{
	struct tokens have;

	producer_tokens(&w->a->lines[i], &have);
	for (unsigned k = 0; k < w->want.n;) {
		if (!sets_token(&w->a->lines[i], &have, w->want.v[k])) {
			k++;
			continue;
		}
		memmove(w->want.v[k], w->want.v[k + 1], (w->want.n - k - 1) * TOKEN_MAX);
		w->want.n--;
		if (add_cause(w, i) != 0)
			return -1;
	}
	return 0;
}

/* A Line or File annotation at i resolves everything still waiting for one. */
static void annotate(struct walk *w, size_t i)
{
	bool line = w->a->lines[i].kind == ASM_LINE;
	size_t *pending = line ? w->pending_line : w->pending_file, *n = line ? &w->npl : &w->npf;

	if (line)
		w->line_pending = false;
	else
		w->file_pending = false;
	for (size_t k = 0; k < *n; k++) {
		struct sbid_cause *c = &w->r->causes[pending[k]];

		*(line ? &c->line : &c->file) = i;
	}
	*n = 0;
}

static bool all_annotated(const struct walk *w)
{
	return !w->line_pending && !w->file_pending && w->npl == 0 && w->npf == 0;
}

/* Lines [start, end) of one block, last first. Returns -1 (out of
 * memory), 0 (tokens still wanted), 1 (every token found; *stop is the
 * line where). */
static int scan_block(struct walk *w, size_t start, size_t end, size_t *stop)
{
	for (size_t i = end; i-- > start;) {
		enum asm_kind k = w->a->lines[i].kind;

		if (w->want.n && k == ASM_INSN && match_tokens(w, i) != 0)
			return -1;
		if (k == ASM_LINE || k == ASM_FILE)
			annotate(w, i);
		if (w->want.n == 0) {
			*stop = i;
			return 1;
		}
	}
	return 0;
}

/* Once every token is found: the annotations still missing, the nearest
 * above line stop (the script's last backward scan, which stops at the
 * first of each kind). */
static void final_scan(struct walk *w, size_t stop)
{
	size_t line = w->a->line_above[stop], file = w->a->file_above[stop];

	if ((w->line_pending || w->npl) && line != SIZE_MAX)
		annotate(w, line);
	if ((w->file_pending || w->npf) && file != SIZE_MAX)
		annotate(w, file);
}

struct span {
	uint32_t block;
	size_t start, end; /* lines [start, end) */
};

/* The predecessors of block b not entered yet, at the end of the queue. */
static void enqueue_preds(const struct asm_listing *a, uint32_t b, bool *entered,
                          struct span *queue, size_t *nq)
{
	for (uint32_t k = 0; k < a->blocks[b].npreds; k++) {
		uint32_t pb = a->blocks[b].preds[k];

		if (entered[pb])
			continue;
		entered[pb] = true;
		queue[(*nq)++] = (struct span){pb, a->blocks[pb].head, a->blocks[pb].tail + 1};
	}
}

/* The stalled line's block up to it, then the predecessors breadth-first
 * (the stalled block itself again in full when a loop leads back to it). */
static int walk_blocks(struct walk *w, size_t stalled, bool *entered, struct span *queue)
{
	const struct asm_listing *a = w->a;
	uint32_t b0 = a->lines[stalled].block;
	size_t nq = 0;

	if (b0 == UINT32_MAX)
		return 0;
	queue[nq++] = (struct span){b0, a->blocks[b0].head, stalled};
	for (size_t j = 0; j < nq; j++) {
		size_t stop = queue[j].start;
		int rc = scan_block(w, queue[j].start, queue[j].end, &stop);

		if (rc < 0)
			return -1;
		if (rc == 1 || w->want.n == 0) {
			if (a->has_source && !all_annotated(w))
				final_scan(w, stop);
			return 0;
		}
		enqueue_preds(a, queue[j].block, entered, queue, &nq);
	}
	return 0;
}

int asm_sbid_walk(const struct asm_listing *a, size_t stalled, struct sbid_result *out)
{
	size_t pending_line[MAX_TOKENS], pending_file[MAX_TOKENS];
	struct walk w = {a, {.n = 0}, out, true, true, pending_line, pending_file, 0, 0};
	bool *entered = calloc(a->nblocks + 1, sizeof(*entered));
	struct span *queue = malloc((a->nblocks + 1) * sizeof(*queue));
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (entered && queue && stalled < a->n) {
		stalled_tokens(&a->lines[stalled], &w.want);
		out->tokens = w.want.n;
		rc = walk_blocks(&w, stalled, entered, queue);
		out->unresolved = w.want.n;
	}
	free(entered);
	free(queue);
	return stalled < a->n ? rc : 0;
}

void sbid_result_free(struct sbid_result *r)
{
	free(r->causes);
	memset(r, 0, sizeof(*r));
}
