#include "config.h"

#include "trex/analysis/work.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "trex/core/grow.h"
#include "trex/core/strtab.h"
#include "trex/load/source.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KIND_BY_NAME 0xff
#define LINKS_MAX 16
/* Args objects are read back in windows this large, in file order, so a
 * gzip source is inflated about once however many objects are read. */
#define ARGS_WINDOW (8u << 20)

static const struct trex_comm_rule comm_rules[] = {
#define TREX_COMM_RULE_ROW(id, name, by, pattern, about) {name, TREX_COMM_BY_##by, pattern, about},
    TREX_COMM_RULE_INFO(TREX_COMM_RULE_ROW)
#undef TREX_COMM_RULE_ROW
};

bool trex_comm_rule(size_t i, struct trex_comm_rule *out)
{
	if (i >= ARRAY_LEN(comm_rules))
		return false;
	*out = comm_rules[i];
	return true;
}

const char *trex_comm_by_label(enum trex_comm_by by)
{
	static const char *const labels[] = {"name", "op", "arg"};

	return (unsigned)by < ARRAY_LEN(labels) ? labels[by] : "?";
}

/* ---- matching names ------------------------------------------------------------------- */

struct trex_comm_matcher {
	pcre2_code *re[TREX_COMM_RULE_COUNT]; /* NULL for ARG rules */
	pcre2_match_data *md;
};

void trex_comm_matcher_free(struct trex_comm_matcher *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < TREX_COMM_RULE_COUNT; i++)
		pcre2_code_free(m->re[i]);
	pcre2_match_data_free(m->md);
	free(m);
}

enum trex_status trex_comm_matcher_new(struct trex_comm_matcher **out, struct trex_error *err)
{
	struct trex_comm_matcher *m = calloc(1, sizeof(*m));

	if (!m || !(m->md = pcre2_match_data_create(1, NULL))) {
		trex_comm_matcher_free(m);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "communication rules: out of memory");
	}
	for (size_t i = 0; i < TREX_COMM_RULE_COUNT; i++) {
		int code;
		PCRE2_SIZE off;

		if (comm_rules[i].by == TREX_COMM_BY_ARG)
			continue;
		m->re[i] = pcre2_compile((PCRE2_SPTR)comm_rules[i].pattern, PCRE2_ZERO_TERMINATED, 0,
		                         &code, &off, NULL);
		if (!m->re[i]) {
			PCRE2_UCHAR text[160];

			pcre2_get_error_message(code, text, sizeof(text));
			trex_comm_matcher_free(m);
			return trex_error_set(err, TREX_FORMAT, NULL, -1,
			                      "communication rule %s: bad regex at offset %zu: %s",
			                      comm_rules[i].id, (size_t)off, (char *)text);
		}
	}
	*out = m;
	return TREX_OK;
}

unsigned trex_comm_match(const struct trex_comm_matcher *m, enum trex_comm_by by, const char *name)
{
	for (unsigned i = 0; i < TREX_COMM_RULE_COUNT; i++) {
		if (comm_rules[i].by == by && m->re[i] &&
		    pcre2_match(m->re[i], (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, m->md,
		                NULL) >= 0)
			return i;
	}
	return TREX_COMM_NONE;
}

/* Past the JSON string starting at s[i] == '"': the index after its closing quote. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return len;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Is the key s[a, b) (quotes excluded) followed by ':' an ARG rule's key? */
static unsigned arg_rule_of_key(const char *s, size_t a, size_t b)
{
	for (unsigned r = 0; r < TREX_COMM_RULE_COUNT; r++) {
		size_t n = strlen(comm_rules[r].pattern);

		if (comm_rules[r].by == TREX_COMM_BY_ARG && b - a == n &&
		    memcmp(s + a, comm_rules[r].pattern, n) == 0)
			return r;
	}
	return TREX_COMM_NONE;
}

unsigned trex_comm_match_args(const char *s, size_t len)
{
	unsigned best = TREX_COMM_NONE;
	int depth = 0;

	for (size_t i = 0; i < len;) {
		char c = s[i];

		if (c == '"') {
			size_t end = skip_string(s, len, i), j = end;

			while (j < len && is_space(s[j]))
				j++;
			if (depth == 1 && j < len && s[j] == ':') {
				unsigned r = arg_rule_of_key(s, i + 1, end - 1);

				best = r < best ? r : best;
			}
			i = end;
			continue;
		}
		depth += (c == '{' || c == '[') - (c == '}' || c == ']');
		i++;
	}
	return best;
}

/* ---- devices ------------------------------------------------------------------------------ */

static bool word_starts(const char *s, const char *word)
{
	size_t n = strlen(word);

	return strncmp(s, word, n) == 0 &&
	       !((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'));
}

bool trex_work_device_process(const struct trex_index *idx, uint32_t process)
{
	static const char *const words[] = {TREX_WORK_DEVICE_WORDS};
	const struct trex_process *p = trex_index_process(idx, process);
	const char *texts[2] = {trex_index_str(idx, p->name), trex_index_str(idx, p->labels)};

	for (size_t t = 0; t < 2; t++) {
		for (size_t w = 0; texts[t] && w < ARRAY_LEN(words); w++) {
			if (word_starts(texts[t], words[w]))
				return true;
		}
	}
	return false;
}

/* ---- classifying ----------------------------------------------------------------------------- */

struct ctx {
	const struct trex_index *idx;
	struct trex_work *w;
	struct trex_comm_matcher *m;
	uint8_t *cat_kind;    /* per category string: kind + 1, KIND_BY_NAME, 0 unknown */
	uint8_t *device;      /* per track: 1 when a device track */
	uint8_t *name_rule;   /* per name string: NAME rule + 1, 0 unknown */
	uint8_t *op_name;     /* per name string: OP rule + 1, 0 unknown */
	uint8_t *op;          /* per slice: OP rule of its innermost matching ancestor (or it) */
	struct launch *launches; /* runtime calls with a correlation id, by key then id */
	size_t nlaunches;
	uint32_t *arg_todo;   /* device work that only its args can decide */
	size_t narg, cap_arg;
};

/* A runtime call: (file, correlation id) and its slice. */
struct launch {
	uint64_t key;
	uint32_t slice;
};

static enum trex_kind cat_kind(struct ctx *c, const struct trex_slice *s)
{
	uint8_t *k = &c->cat_kind[s->cat];

	if (*k == 0) {
		const char *cat = trex_index_str(c->idx, s->cat);

		*k = trex_kind_needs_name(cat) ? KIND_BY_NAME : (uint8_t)(trex_kind_of(cat, NULL) + 1);
	}
	if (*k == KIND_BY_NAME)
		return trex_kind_of(trex_index_str(c->idx, s->cat), trex_index_str(c->idx, s->name));
	return (enum trex_kind)(*k - 1);
}

static void find_device_tracks(struct ctx *c)
{
	uint32_t ntracks = trex_index_track_count(c->idx), nproc = trex_index_process_count(c->idx);
	uint8_t *proc = calloc(nproc ? nproc : 1, 1);

	for (uint32_t p = 0; proc && p < nproc; p++)
		proc[p] = trex_work_device_process(c->idx, p);
	for (uint32_t t = 0; t < ntracks; t++) {
		const struct trex_track *tr = trex_index_track(c->idx, t);

		c->device[t] = tr->kind == TREX_TRACK_GPU || (proc && proc[tr->process]);
	}
	free(proc);
}

static void classify_kinds(struct ctx *c)
{
	struct trex_work *w = c->w;

	for (uint32_t i = 0; i < w->nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		enum trex_kind k = cat_kind(c, s);

		if (k == TREX_KIND_OTHER && s->cat != TREX_STR_NONE && c->device[s->track])
			k = TREX_KIND_KERNEL;
		w->kind[i] = (uint8_t)k;
		w->kernels += k == TREX_KIND_KERNEL;
		w->memcpys += k == TREX_KIND_MEMCPY;
		w->memsets += k == TREX_KIND_MEMSET;
	}
}

static unsigned name_rule(struct ctx *c, uint32_t name)
{
	if (!c->name_rule[name])
		c->name_rule[name] = (uint8_t)(trex_comm_match(c->m, TREX_COMM_BY_NAME,
		                                               trex_index_str(c->idx, name)) + 1);
	return c->name_rule[name] - 1u;
}

static unsigned op_rule_of_name(struct ctx *c, uint32_t name)
{
	if (!c->op_name[name])
		c->op_name[name] = (uint8_t)(trex_comm_match(c->m, TREX_COMM_BY_OP,
		                                             trex_index_str(c->idx, name)) + 1);
	return c->op_name[name] - 1u;
}

/* The OP rule of every slice: its own name's, else its parent's (parents
 * have lower ids, so one pass in id order sees them first). */
static bool op_rules(struct ctx *c)
{
	uint32_t n = c->w->nslices, *parent = malloc((n ? n : 1) * sizeof(*parent));

	c->op = malloc(n ? n : 1);
	if (!parent || !c->op) {
		free(parent);
		return false;
	}
	trex_index_parents(c->idx, parent);
	for (uint32_t i = 0; i < n; i++) {
		unsigned r = op_rule_of_name(c, trex_index_slice(c->idx, i)->name);

		c->op[i] = (uint8_t)(r == TREX_COMM_NONE && parent[i] != TREX_NONE ? c->op[parent[i]] : r);
	}
	free(parent);
	return true;
}

static uint64_t launch_key(struct ctx *c, const struct trex_slice *s)
{
	return (uint64_t)trex_index_track_file(c->idx, s->track) << 32 | s->corr;
}

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

/* Every runtime call with a correlation id, sorted for find_launch. */
static bool collect_launches(struct ctx *c)
{
	size_t cap = 0;

	for (uint32_t i = 0; i < c->w->nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		struct launch *v;

		if (trex_work_kind(c->w, i) != TREX_KIND_RUNTIME || !(s->flags & TREX_SLICE_HAS_CORR))
			continue;
		v = trex_grow(c->launches, &cap, c->nlaunches + 1, sizeof(*v), 1024);
		if (!v)
			return false;
		c->launches = v;
		c->launches[c->nlaunches++] = (struct launch){launch_key(c, s), i};
	}
	if (c->nlaunches)
		qsort(c->launches, c->nlaunches, sizeof(*c->launches), cmp_launch);
	return true;
}

/* The runtime call with the slice's correlation id (the lowest slice id
 * of several, as trex_index_launch_of), TREX_NONE if none. */
static uint32_t find_launch(struct ctx *c, const struct trex_slice *s)
{
	uint64_t key = launch_key(c, s);
	size_t lo = 0, hi = c->nlaunches;

	if (!(s->flags & TREX_SLICE_HAS_CORR))
		return TREX_NONE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->launches[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nlaunches && c->launches[lo].key == key ? c->launches[lo].slice : TREX_NONE;
}

/* The cpu_op sharing the slice's External id, TREX_NONE if none. */
static uint32_t cpu_op_by_ext_id(struct ctx *c, uint32_t slice)
{
	uint32_t links[LINKS_MAX];
	size_t n;

	if (!(trex_index_slice(c->idx, slice)->flags & TREX_SLICE_HAS_EXT_ID))
		return TREX_NONE;
	n = trex_index_same_ext_id(c->idx, slice, links, LINKS_MAX);
	for (size_t i = 0; i < n && i < LINKS_MAX; i++) {
		if (c->w->kind[links[i]] == TREX_KIND_CPU_OP)
			return links[i];
	}
	return TREX_NONE;
}

/* NAME, then OP rules for one piece of device work; work with no
 * launching CPU slice and args goes to the ARG pass. */
static bool classify_comm(struct ctx *c, uint32_t i)
{
	const struct trex_slice *s = trex_index_slice(c->idx, i);
	unsigned rule = name_rule(c, s->name);
	uint32_t from;

	if (rule == TREX_COMM_NONE) {
		from = find_launch(c, s);
		if (from == TREX_NONE)
			from = cpu_op_by_ext_id(c, i);
		if (from != TREX_NONE) {
			rule = c->op[from];
		} else if (trex_args_ref_len(s->args)) {
			uint32_t *v = trex_grow(c->arg_todo, &c->cap_arg, c->narg + 1, sizeof(*v), 256);

			if (!v)
				return false;
			c->arg_todo = v;
			c->arg_todo[c->narg++] = i;
		}
	}
	c->w->comm[i] = (uint8_t)rule;
	return true;
}

/* ---- the ARG pass ---------------------------------------------------------------------------- */

struct args_at {
	uint32_t file;
	uint32_t slice;
	uint64_t offset;
	uint32_t len;
};

static int cmp_args(const void *a, const void *b)
{
	const struct args_at *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* A window of one file's decoded bytes. */
struct window {
	char *buf;
	uint32_t file;
	uint64_t start;
	size_t len;
};

/* The args text of a at a position in win, reading a new window when it
 * is not in the current one; long objects are read on their own. */
static enum trex_status args_of(struct ctx *c, const struct args_at *a, struct window *win,
                                char **own, const char **text, struct trex_error *err)
{
	const struct trex_file *f = trex_index_file(c->idx, a->file);
	size_t len;

	*own = NULL;
	if (a->len >= TREX_ARGS_LEN_MAX || a->len > ARGS_WINDOW || !f->source) {
		const struct trex_slice *s = trex_index_slice(c->idx, a->slice);

		*text = NULL;
		return trex_index_args_text(c->idx, a->file, s->args, own, &len, err);
	}
	if (win->file != a->file || a->offset < win->start ||
	    a->offset + a->len > win->start + win->len) {
		enum trex_status st = trex_source_read(f->source, a->offset, ARGS_WINDOW, win->buf,
		                                       &win->len, err);

		if (st != TREX_OK)
			return st;
		win->file = a->file;
		win->start = a->offset;
		if (a->len > win->len)
			return trex_error_set(err, TREX_FORMAT, trex_index_str(c->idx, f->path),
			                      (int64_t)a->offset, "args run past the end of input");
	}
	*text = win->buf + (a->offset - win->start);
	return TREX_OK;
}

/* Reads the args of the work no name and no launching op decided, in
 * file order, and applies the ARG rules. */
static enum trex_status classify_args(struct ctx *c, struct trex_error *err)
{
	struct args_at *v = malloc((c->narg ? c->narg : 1) * sizeof(*v));
	struct window win = {malloc(ARGS_WINDOW), UINT32_MAX, 0, 0};
	enum trex_status st = v && win.buf ? TREX_OK : TREX_NOMEM;

	for (size_t i = 0; v && i < c->narg; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, c->arg_todo[i]);

		v[i] = (struct args_at){trex_index_track_file(c->idx, s->track), c->arg_todo[i],
		                        trex_args_ref_offset(s->args), trex_args_ref_len(s->args)};
	}
	if (st == TREX_OK)
		qsort(v, c->narg, sizeof(*v), cmp_args);
	for (size_t i = 0; st == TREX_OK && i < c->narg; i++) {
		const char *text;
		char *own;

		st = args_of(c, &v[i], &win, &own, &text, err);
		if (st == TREX_OK)
			c->w->comm[v[i].slice] =
			    (uint8_t)trex_comm_match_args(own ? own : text, own ? strlen(own) : v[i].len);
		free(own);
	}
	free(v);
	free(win.buf);
	if (st == TREX_NOMEM)
		trex_error_set(err, st, NULL, -1, "communication rules: out of memory");
	return st;
}

/* ---- the whole index ------------------------------------------------------------------------- */

void trex_work_free(struct trex_work *w)
{
	if (!w)
		return;
	free(w->kind);
	free(w->comm);
	memset(w, 0, sizeof(*w));
}

static enum trex_status classify(struct ctx *c, bool comm, struct trex_error *err)
{
	size_t nstr = trex_strtab_count(trex_index_strings(c->idx)) + 1;
	uint32_t n = c->w->nslices, ntracks = trex_index_track_count(c->idx);
	enum trex_status st = trex_comm_matcher_new(&c->m, err);

	if (st != TREX_OK)
		return st;
	c->cat_kind = calloc(nstr, 1);
	c->name_rule = calloc(nstr, 1);
	c->op_name = calloc(nstr, 1);
	c->device = calloc(ntracks ? ntracks : 1, 1);
	if (!c->cat_kind || !c->name_rule || !c->op_name || !c->device)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	find_device_tracks(c);
	classify_kinds(c);
	if (comm && (!op_rules(c) || !collect_launches(c)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	for (uint32_t i = 0; comm && i < n; i++) {
		c->w->comm[i] = TREX_COMM_NONE;
		if (trex_work_is_device(c->w, i) && !classify_comm(c, i))
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	}
	return c->narg ? classify_args(c, err) : TREX_OK;
}

enum trex_status trex_work_classify(const struct trex_index *idx, bool comm,
                                    struct trex_work *out, struct trex_error *err)
{
	uint32_t n = trex_index_slice_count(idx);
	struct ctx c = {.idx = idx, .w = out};
	enum trex_status st;

	memset(out, 0, sizeof(*out));
	out->nslices = n;
	out->kind = malloc(n ? n : 1);
	out->comm = comm ? malloc(n ? n : 1) : NULL;
	st = out->kind && (out->comm || !comm)
	         ? classify(&c, comm, err)
	         : trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	trex_comm_matcher_free(c.m);
	free(c.cat_kind);
	free(c.name_rule);
	free(c.op_name);
	free(c.device);
	free(c.op);
	free(c.launches);
	free(c.arg_todo);
	if (st != TREX_OK)
		trex_work_free(out);
	return st;
}

/* ---- why there is nothing --------------------------------------------------------------------- */

struct cat_count {
	uint32_t cat;
	uint64_t n;
};

static int cmp_cat_count(const void *a, const void *b)
{
	const struct cat_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->cat > y->cat) - (x->cat < y->cat);
}

/* "cat_a, cat_b, cat_c and 2 more" of the slices whose kind passes keep
 * (most slices first) into buf; the number of slices listed. */
static uint64_t list_categories(const struct trex_index *idx, const struct trex_work *w,
                                bool (*keep)(enum trex_kind), char *buf, size_t size)
{
	size_t nstr = trex_strtab_count(trex_index_strings(idx)) + 1, ncats = 0;
	uint64_t *count = calloc(nstr, sizeof(*count)), total = 0;
	struct cat_count *v = NULL;
	size_t len = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; count && i < w->nslices; i++) {
		if (keep(trex_work_kind(w, i))) {
			ncats += count[trex_index_slice(idx, i)->cat]++ == 0;
			total++;
		}
	}
	v = count ? malloc((ncats ? ncats : 1) * sizeof(*v)) : NULL;
	for (size_t c = 0, k = 0; v && c < nstr; c++) {
		if (count[c])
			v[k++] = (struct cat_count){(uint32_t)c, count[c]};
	}
	if (v)
		qsort(v, ncats, sizeof(*v), cmp_cat_count);
	for (size_t i = 0; v && i < ncats && i < 4 && len < size; i++) {
		const char *cat = trex_index_str(idx, v[i].cat);

		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
		                        cat && *cat ? cat : "(none)");
	}
	if (v && ncats > 4 && len < size)
		snprintf(buf + len, size - len, " and %zu more", ncats - 4);
	free(v);
	free(count);
	return total;
}

static bool host_kind(enum trex_kind k)
{
	return k == TREX_KIND_CPU_OP || k == TREX_KIND_PYTHON || k == TREX_KIND_ANNOTATION ||
	       k == TREX_KIND_RUNTIME || k == TREX_KIND_CPU_INSTANT || k == TREX_KIND_OVERHEAD;
}

static bool unknown_kind(enum trex_kind k)
{
	return k == TREX_KIND_OTHER;
}

static bool gpu_kind(enum trex_kind k)
{
	return trex_kind_is_gpu(k);
}

static bool any_kind(enum trex_kind k)
{
	(void)k;
	return true;
}

/* The number of slices of category text cat. */
static uint64_t slices_of_category(const struct trex_index *idx, const char *cat)
{
	uint32_t id = trex_strtab_find(trex_index_strings(idx), cat, strlen(cat)), n = 0;

	for (uint32_t i = 0; id != TREX_STR_ERROR && i < trex_index_slice_count(idx); i++)
		n += trex_index_slice(idx, i)->cat == id;
	return n;
}

const char *trex_work_empty_reason(const struct trex_index *idx, const struct trex_work *w,
                                   enum trex_work_want want, char *buf, size_t size)
{
	const char *what = want == TREX_WORK_WANT_KERNELS ? "no GPU kernels" : "no GPU work";
	uint64_t memory = w->memcpys + w->memsets, ranges;
	char cats[256];

	if (w->kernels || (want == TREX_WORK_WANT_DEVICE && memory))
		return NULL;
	if (memory) {
		snprintf(buf, size, "%s: only %llu memory copies and %llu memory sets "
		         "(trex kernels --memory lists them)", what, (unsigned long long)w->memcpys,
		         (unsigned long long)w->memsets);
	} else if ((ranges = slices_of_category(idx, "cuda_profiler_range")) != 0) {
		snprintf(buf, size, "CUPTI range-profiler trace: kernels appear as %llu "
		         "cuda_profiler_range events (counters per kernel, no kernel times)",
		         (unsigned long long)ranges);
	} else if (w->nslices == 0) {
		snprintf(buf, size, "%s: the trace has no events with a duration "
		         "(%u instants, %u counter samples)", what, trex_index_instant_count(idx),
		         trex_index_sample_count(idx));
	} else if (list_categories(idx, w, gpu_kind, cats, sizeof(cats))) {
		snprintf(buf, size, "%s: the device events are only of categories %s", what, cats);
	} else if (!list_categories(idx, w, unknown_kind, cats, sizeof(cats))) {
		list_categories(idx, w, host_kind, cats, sizeof(cats));
		snprintf(buf, size, "%s: this trace has only CPU events (categories %s)", what, cats);
	} else {
		list_categories(idx, w, any_kind, cats, sizeof(cats));
		snprintf(buf, size, "%s: no category or track of this trace is a device's "
		         "(categories %s; see GPU WORK in trex(1))", what, cats);
	}
	return buf;
}
