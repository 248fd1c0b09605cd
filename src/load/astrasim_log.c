#include "config.h"

#include "astrasim_log.h"

#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Where word starts a column: at the start of the line or after a blank
 * (a log prefix "[time] [workload] [debug] " or "<workload>: " before
 * it); len when it does not. */
static size_t find_word(const char *p, size_t len, const char *word)
{
	size_t wl = strlen(word);

	for (size_t from = 0; from + wl <= len;) {
		const char *hit = memmem(p + from, len - from, word, wl);
		if (!hit)
			return len;
		size_t at = (size_t)(hit - p);
		if (at == 0 || is_blank(p[at - 1]))
			return at;
		from = at + 1;
	}
	return len;
}

struct cursor {
	const char *p;
	size_t pos, len;
	const char *why;
};

static void skip_blanks(struct cursor *c)
{
	while (c->pos < c->len && is_blank(c->p[c->pos]))
		c->pos++;
}

/* Past "KEY=" of the next column (the key is not looked at, as the
 * visualizer ignores it). */
static bool column_value(struct cursor *c, const char *what)
{
	skip_blanks(c);
	while (c->pos < c->len && c->p[c->pos] != '=' && c->p[c->pos] != ',')
		c->pos++;
	if (c->pos >= c->len || c->p[c->pos] != '=') {
		c->why = what;
		return false;
	}
	c->pos++;
	return true;
}

static bool parse_u64(struct cursor *c, uint64_t max, uint64_t *out, const char *what)
{
	uint64_t v = 0;
	size_t start;

	skip_blanks(c);
	start = c->pos;
	for (; c->pos < c->len && c->p[c->pos] >= '0' && c->p[c->pos] <= '9'; c->pos++) {
		unsigned d = (unsigned)(c->p[c->pos] - '0');
		if (v > (max - d) / 10) {
			c->pos = start;
			c->why = what;
			return false;
		}
		v = v * 10 + d;
	}
	if (c->pos == start) {
		c->why = what;
		return false;
	}
	*out = v;
	return true;
}

/* A numeric column KEY=N and the comma after it. */
static bool number_column(struct cursor *c, uint64_t max, uint64_t *out, const char *what)
{
	if (!column_value(c, what) || !parse_u64(c, max, out, what))
		return false;
	skip_blanks(c);
	if (c->pos >= c->len || c->p[c->pos] != ',') {
		c->why = "expected ',' after the number";
		return false;
	}
	c->pos++;
	return true;
}

/* The start of the last ",node->type=" column after from (blanks allowed
 * after the comma); len when there is none. */
static size_t type_column(const char *p, size_t len, size_t from)
{
	static const char key[] = "node->type=";
	size_t found = len;

	for (size_t at = from; at + sizeof(key) - 1 <= len;) {
		const char *hit = memmem(p + at, len - at, key, sizeof(key) - 1);
		if (!hit)
			break;
		size_t k = (size_t)(hit - p), b = k;
		while (b > from && is_blank(p[b - 1]))
			b--;
		if (b > from && p[b - 1] == ',')
			found = b - 1;
		at = k + 1;
	}
	return found;
}

static bool name_and_type(struct cursor *c, struct asl_record *r)
{
	uint64_t type;

	if (!column_value(c, "expected the node name column (node->name=NAME)"))
		return false;
	r->name = c->p + c->pos;
	size_t comma = type_column(c->p, c->len, c->pos);
	if (comma == c->len) {
		const char *next = memchr(r->name, ',', c->len - c->pos);
		r->name_len = next ? (size_t)(next - r->name) : c->len - c->pos;
		return true;
	}
	r->name_len = comma - c->pos;
	c->pos = comma + 1;
	if (!column_value(c, "expected node->type=N") ||
	    !parse_u64(c, 255, &type, "expected a node type number (0-255) after node->type="))
		return false;
	r->node_type = (int)type;
	return true;
}

bool asl_parse_line(const char *p, size_t len, struct asl_record *r, const char **why, size_t *col)
{
	size_t issue = find_word(p, len, "issue,"), callback = find_word(p, len, "callback,");
	struct cursor c = {p, 0, len, NULL};
	uint64_t npu;

	memset(r, 0, sizeof(*r));
	r->node_type = -1;
	if (issue == len && callback == len)
		return true;
	r->kind = issue < callback ? ASL_ISSUE : ASL_CALLBACK;
	r->at = issue < callback ? issue : callback;
	c.pos = r->at + (r->kind == ASL_ISSUE ? strlen("issue,") : strlen("callback,"));
	if (number_column(&c, UINT32_MAX - 1, &npu, "expected the NPU column (sys->id=N)") &&
	    number_column(&c, UINT64_MAX, &r->tick, "expected the cycle column (tick=N)") &&
	    number_column(&c, UINT64_MAX, &r->node_id,
	                  "expected the node id column (node->id=N)") &&
	    name_and_type(&c, r)) {
		r->npu = (uint32_t)npu;
		return true;
	}
	*why = c.why;
	*col = c.pos;
	return false;
}
