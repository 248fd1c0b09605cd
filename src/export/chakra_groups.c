/* Process groups of a Chakra set written from GPU traces (chakra_link.h):
 * which pg_name a collective gets and the comm-group file that maps each
 * name to its ranks. doc/formats/chakra.md, "Process groups", says why. */
#include "config.h"

#include "chakra_link.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct cwg_group {
	char *name;
	char *ranks_text; /* the trace's "Process Group Ranks", NULL when from use */
	uint8_t *member;  /* nranks flags */
};

static enum trex_status cwg_nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

void cw_pg_args_free(struct cw_pg_args *a)
{
	free(a->name);
	free(a->ranks);
	free(a->desc);
	a->name = a->ranks = a->desc = NULL;
}

enum trex_status cw_groups_init(struct cw_groups *g, const struct trex_index *idx,
                                const uint32_t *files, uint32_t nranks, struct trex_error *err)
{
	memset(g, 0, sizeof(*g));
	g->nranks = nranks;
	g->trace_rank = malloc((nranks ? nranks : 1) * sizeof(*g->trace_rank));
	if (!g->trace_rank)
		return cwg_nomem(err);
	for (uint32_t k = 0; k < nranks; k++) {
		const struct trex_file *f = trex_index_file(idx, files[k]);
		g->trace_rank[k] = f->has_rank ? f->rank : (int64_t)k;
	}
	return TREX_OK;
}

static struct cwg_group *cwg_find(struct cw_groups *g, const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].name, name) == 0)
			return &g->v[i];
	return NULL;
}

static struct cwg_group *cwg_add(struct cw_groups *g, const char *name)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 8;
		void *p = realloc(g->v, cap * sizeof(*g->v));
		if (!p)
			return NULL;
		g->v = p;
		g->cap = cap;
	}
	struct cwg_group *x = &g->v[g->n];
	x->name = strdup(name);
	x->ranks_text = NULL;
	x->member = calloc(g->nranks ? g->nranks : 1, 1);
	if (!x->name || !x->member) {
		free(x->name);
		free(x->member);
		return NULL;
	}
	g->n++;
	return x;
}

/* The set ranks a "Process Group Ranks" text ([0, 2, 4]) lists, into
 * member; how many ranks it lists (0: none, the ranks are unknown), and
 * in *outside whether some are not in the set. */
static size_t cwg_parse_ranks(const struct cw_groups *g, const char *text, uint8_t *member,
                              bool *outside)
{
	size_t listed = 0;

	memset(member, 0, g->nranks);
	*outside = false;
	for (const char *p = text; *p;) {
		char *end;
		long long r = strtoll(p, &end, 10);
		if (end == p) {
			p++;
			continue;
		}
		p = end;
		listed++;
		uint32_t k = 0;
		while (k < g->nranks && g->trace_rank[k] != r)
			k++;
		if (k < g->nranks)
			member[k] = 1;
		else
			*outside = true;
	}
	return listed;
}

static bool cwg_all(const struct cw_groups *g, const uint8_t *member)
{
	for (uint32_t k = 0; k < g->nranks; k++)
		if (!member[k])
			return false;
	return true;
}

/* The name of a group listed with ranks but no name: the same ranks, the
 * same name; numbers no PyTorch process group takes. */
static const char *cwg_unnamed(struct cw_groups *g, const char *ranks, char *buf, size_t size)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].ranks_text && strcmp(g->v[i].ranks_text, ranks) == 0)
			return g->v[i].name;
	snprintf(buf, size, "%" PRIu64, (uint64_t)1000000 + g->named_by_us++);
	return buf;
}

/* The group of a collective whose args list its ranks (member, from
 * cwg_parse_ranks, not all of the set). */
static enum trex_status cwg_listed(struct cw_groups *g, const struct cw_pg_args *a,
                                   const uint8_t *member, bool outside, struct cwg_group **out,
                                   struct trex_error *err)
{
	char synth[32];
	const char *name =
	    a->name && a->name[0] ? a->name : cwg_unnamed(g, a->ranks, synth, sizeof(synth));
	struct cwg_group *x = cwg_find(g, name);

	if (!x && !(x = cwg_add(g, name)))
		return cwg_nomem(err);
	if (!x->ranks_text) {
		if (!(x->ranks_text = strdup(a->ranks)))
			return cwg_nomem(err);
		for (uint32_t k = 0; k < g->nranks; k++)
			x->member[k] |= member[k];
		g->outside += outside;
	} else if (strcmp(x->ranks_text, a->ranks) != 0) {
		g->conflicts++;
	}
	*out = x;
	return TREX_OK;
}

/* The group of a collective whose args name it without ranks: NULL for
 * the default group (the world); another one's ranks are those using it. */
static enum trex_status cwg_named(struct cw_groups *g, const struct cw_pg_args *a,
                                  struct cwg_group **out, struct trex_error *err)
{
	*out = NULL;
	if (!a->name || !a->name[0] || strcmp(a->name, "0") == 0 ||
	    (a->desc && strcmp(a->desc, "default_pg") == 0))
		return TREX_OK;
	*out = cwg_find(g, a->name);
	if (!*out && !(*out = cwg_add(g, a->name)))
		return cwg_nomem(err);
	return TREX_OK;
}

enum trex_status cw_groups_name(struct cw_groups *g, uint32_t set_rank, const struct cw_pg_args *a,
                                const char **pg_name, struct trex_error *err)
{
	struct cwg_group *x = NULL;
	uint8_t *member = malloc(g->nranks ? g->nranks : 1);
	bool outside = false;
	enum trex_status st;

	*pg_name = NULL;
	if (!member)
		return cwg_nomem(err);
	if (a->ranks && cwg_parse_ranks(g, a->ranks, member, &outside) > 0)
		st = cwg_all(g, member) ? TREX_OK : cwg_listed(g, a, member, outside, &x, err);
	else
		st = cwg_named(g, a, &x, err);
	free(member);
	if (st != TREX_OK || !x)
		return st;
	if (set_rank < g->nranks && !x->member[set_rank]) {
		if (x->ranks_text)
			g->conflicts++; /* it uses a group that does not list it */
		x->member[set_rank] = 1;
	}
	g->nodes_tagged++;
	*pg_name = x->name;
	return TREX_OK;
}

/* s as a JSON string: pg names are short and plain; escape what JSON needs. */
static bool cwg_json_string(FILE *out, const char *s)
{
	if (fputc('"', out) == EOF)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int r = c == '"' || c == '\\' ? fprintf(out, "\\%c", c)
		        : c < 0x20            ? fprintf(out, "\\u%04x", c)
		                              : fputc(c, out);
		if (r < 0)
			return false;
	}
	return fputc('"', out) != EOF;
}

uint64_t cw_groups_by_use(const struct cw_groups *g)
{
	uint64_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += g->v[i].ranks_text == NULL;
	return n;
}

bool cw_groups_json(const struct cw_groups *g, FILE *out)
{
	if (fputc('{', out) == EOF)
		return false;
	for (size_t i = 0; i < g->n; i++) {
		if ((i && fputs(", ", out) < 0) || !cwg_json_string(out, g->v[i].name) ||
		    fputs(": [", out) < 0)
			return false;
		bool first = true;
		for (uint32_t k = 0; k < g->nranks; k++) {
			if (!g->v[i].member[k])
				continue;
			if (fprintf(out, "%s%" PRIu32, first ? "" : ", ", k) < 0)
				return false;
			first = false;
		}
		if (fputc(']', out) == EOF)
			return false;
	}
	return fputc('}', out) != EOF;
}

void cw_groups_free(struct cw_groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].name);
		free(g->v[i].ranks_text);
		free(g->v[i].member);
	}
	free(g->v);
	free(g->trace_rank);
	memset(g, 0, sizeof(*g));
}
