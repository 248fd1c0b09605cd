/* The args codec of PyTorch host execution traces: the JSON codec
 * (json_args.c) reads a node object back, and its "attrs" list is spread
 * into one (name, value) pair per attribute (pytorch_et.h). */
#include "config.h"

#include "pytorch_et.h"

#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "trex/core/grow.h"
#include "trex/load/json_args.h"

/* The pairs of the result, pointing into in and the decoded attributes,
 * until they are copied into one buffer. */
struct spread {
	struct trex_arg *v;
	size_t n, cap, bytes;
	struct trex_args *held; /* the decoded attribute objects */
	size_t held_n, held_cap;
};

static bool spread_push(struct spread *s, const char *key, const char *value)
{
	struct trex_arg *v = trex_grow(s->v, &s->cap, s->n + 1, sizeof(*v), 16);

	if (!v)
		return false;
	s->v = v;
	s->v[s->n++] = (struct trex_arg){key, value};
	s->bytes += strlen(key) + strlen(value) + 2;
	return true;
}

static const char *args_value(const struct trex_args *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0)
			return a->v[i].value;
	return NULL;
}

/* One {"name", "type", "value"} object of the list: its pair, or the
 * object whole under "attrs" when it has no name. */
static enum trex_status spread_one(struct spread *s, const char *obj, size_t len,
                                   struct trex_error *err)
{
	struct trex_args *held = trex_grow(s->held, &s->held_cap, s->held_n + 1, sizeof(*held), 8);
	enum trex_status st = held ? TREX_OK : TREX_NOMEM;

	if (st != TREX_OK)
		return trex_error_set(err, st, NULL, -1, "out of memory reading attributes");
	s->held = held;
	struct trex_args *a = &s->held[s->held_n];
	st = trex_json_args_decode(obj, len, a, NULL, err);
	if (st != TREX_OK)
		return st;
	s->held_n++;
	const char *name = args_value(a, "name"), *value = args_value(a, "value");
	if (name && !spread_push(s, name, value ? value : "null"))
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory reading attributes");
	return st;
}

/* The list's objects; false when the text is no list of objects (then it
 * stays one pair, as written). */
static bool spread_list(struct spread *s, const char *list, enum trex_status *st,
                        struct trex_error *err)
{
	const char *p = list, *end = list + strlen(list), *next;

	if (*p != '[')
		return false;
	for (p = json_skip_ws(p + 1, end); p < end && *p == '{'; p = json_skip_ws(p, end)) {
		if (json_skip_value(p, end, &next) != JSON_OK)
			return false;
		if ((*st = spread_one(s, p, (size_t)(next - p), err)) != TREX_OK)
			return true;
		p = json_skip_ws(next, end);
		if (p < end && *p == ',')
			p++;
	}
	return p < end && *p == ']';
}

static enum trex_status spread_copy(const struct spread *s, struct trex_args *out,
                                    struct trex_error *err)
{
	out->v = malloc((s->n ? s->n : 1) * sizeof(*out->v));
	out->buf = malloc(s->bytes ? s->bytes : 1);
	if (!out->v || !out->buf) {
		trex_args_free(out);
		return trex_error_set(err, TREX_NOMEM, NULL, -1,
		                      "out of memory reading attributes");
	}
	char *o = out->buf;
	for (size_t i = 0; i < s->n; i++) {
		size_t k = strlen(s->v[i].key) + 1, v = strlen(s->v[i].value) + 1;
		out->v[i].key = memcpy(o, s->v[i].key, k);
		out->v[i].value = memcpy(o + k, s->v[i].value, v);
		o += k + v;
	}
	out->n = s->n;
	return TREX_OK;
}

enum trex_status trex_pytorch_et_spread_attrs(const struct trex_args *in, struct trex_args *out,
                                              struct trex_error *err)
{
	struct spread s = {0};
	enum trex_status st = TREX_OK;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; st == TREX_OK && i < in->n; i++) {
		size_t before = s.n;
		bool spread =
		    strcmp(in->v[i].key, "attrs") == 0 && spread_list(&s, in->v[i].value, &st, err);
		if (st == TREX_OK && !spread) {
			s.n = before; /* a list that turned out not to be one: as written */
			if (!spread_push(&s, in->v[i].key, in->v[i].value))
				st = trex_error_set(err, TREX_NOMEM, NULL, -1,
				                    "out of memory reading attributes");
		}
	}
	if (st == TREX_OK)
		st = spread_copy(&s, out, err);
	for (size_t i = 0; i < s.held_n; i++)
		trex_args_free(&s.held[i]);
	free(s.held);
	free(s.v);
	return st;
}

/* ---- the codec: the JSON codec's, spread ------------------------------------------------ */

static enum trex_status pe_decode(void *ctx, trex_args_ref ref, struct trex_args *out,
                                  bool *truncated, struct trex_error *err)
{
	struct trex_args raw;
	enum trex_status st = trex_json_args_codec.decode(ctx, ref, &raw, truncated, err);

	memset(out, 0, sizeof(*out));
	if (st == TREX_OK)
		st = trex_pytorch_et_spread_attrs(&raw, out, err);
	trex_args_free(&raw);
	return st;
}

struct pe_each {
	trex_args_each_fn *fn;
	void *user;
};

static enum trex_status pe_each_one(void *user, size_t i, const struct trex_args *args,
                                    struct trex_error *err)
{
	struct pe_each *e = user;
	struct trex_args spread;
	enum trex_status st = trex_pytorch_et_spread_attrs(args, &spread, err);

	if (st == TREX_OK)
		st = e->fn(e->user, i, &spread, err);
	trex_args_free(&spread);
	return st;
}

static enum trex_status pe_decode_each(void *ctx, const trex_args_ref *refs, size_t n,
                                       trex_args_each_fn *fn, void *user, struct trex_error *err)
{
	struct pe_each e = {fn, user};

	return trex_json_args_codec.decode_each(ctx, refs, n, pe_each_one, &e, err);
}

static enum trex_status pe_json(void *ctx, trex_args_ref ref, char **out, size_t *len,
                                struct trex_error *err)
{
	return trex_json_args_codec.json(ctx, ref, out, len, err);
}

static enum trex_status pe_positions(void *ctx, const uint64_t *offsets, size_t n, int64_t *line,
                                     int64_t *col, int64_t *disk, struct trex_error *err)
{
	return trex_json_args_codec.positions(ctx, offsets, n, line, col, disk, err);
}

static size_t pe_memory(const void *ctx)
{
	return trex_json_args_codec.memory(ctx);
}

static void pe_close(void *ctx)
{
	trex_json_args_codec.close(ctx);
}

const struct trex_args_codec trex_pytorch_et_args_codec = {
    .name = "pytorch-et",
    .decode = pe_decode,
    .json = pe_json,
    .decode_each = pe_decode_each,
    .positions = pe_positions,
    .memory = pe_memory,
    .close = pe_close,
};
