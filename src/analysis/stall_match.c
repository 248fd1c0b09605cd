/* Which stall report kernel a trace kernel is: trace names and report
 * names of the same kernel differ in ways the tools that write them
 * chose (unitrace's shape suffix, "(...)" for elided argument lists,
 * a return type, a qualified scope), so the match goes from the exact
 * name to looser forms, taking the first level that finds any. */
#include "config.h"

#include <string.h>

#include "trex/analysis/stalls.h"

#define NONE TREX_PROFILE_NONE

/* A name as compared: [s, s + n). */
struct name_span {
	const char *s;
	size_t n;
};

static bool opens(char c)
{
	return c == '(' || c == '[' || c == '{' || c == '<';
}

static bool closes(char c)
{
	return c == ')' || c == ']' || c == '}' || c == '>';
}

/* The end of the bracketed group opening at s[i] (one past its close),
 * n when it is not closed. "operator<" and "->" make brackets unbalanced;
 * a group then runs to the end, which only makes a match less likely. */
static size_t group_end(const char *s, size_t i, size_t n)
{
	int depth = 0;

	for (; i < n; i++) {
		if (opens(s[i]))
			depth++;
		else if (closes(s[i]) && --depth == 0)
			return i + 1;
	}
	return n;
}

/* The name without what follows it in one tool and not the other:
 * leading "void ", trailing blanks and a trailing "[...]" group
 * (unitrace's "[SIMD32 {..} {..}]" shape, a copy's byte size). */
static struct name_span trimmed(const char *s)
{
	struct name_span t = {s, strlen(s)};

	if (strncmp(t.s, "void ", 5) == 0) {
		t.s += 5;
		t.n -= 5;
	}
	while (t.n && t.s[t.n - 1] == ' ')
		t.n--;
	if (t.n && t.s[t.n - 1] == ']') {
		for (size_t i = 0; i < t.n; i++) {
			if (opens(t.s[i])) {
				size_t e = group_end(t.s, i, t.n);

				if (e == t.n && t.s[i] == '[' && i > 0) {
					t.n = i;
					break;
				}
				i = e - 1;
			}
		}
	}
	while (t.n && t.s[t.n - 1] == ' ')
		t.n--;
	return t;
}

/* The name without its last top-level argument list and what follows it
 * (" const"): "vadd(float*, int)" -> "vadd", as ncu's function names. */
static struct name_span unparameterised(struct name_span t)
{
	size_t last = t.n;

	for (size_t i = 0; i < t.n; i++) {
		if (opens(t.s[i])) {
			if (t.s[i] == '(' && i > 0)
				last = i;
			i = group_end(t.s, i, t.n) - 1;
		}
	}
	t.n = last;
	return t;
}

static bool is_elision(const char *s, size_t i, size_t n)
{
	return n - i >= 5 && memcmp(s + i, "(...)", 5) == 0;
}

/* a and b equal, an "(...)" in either standing for any argument list of
 * the other ("RunAndCheck(...)::__GEMM", unitrace's short names). */
static bool same_elided(struct name_span a, struct name_span b)
{
	size_t i = 0, j = 0;

	while (i < a.n && j < b.n) {
		if (a.s[i] == '(' && b.s[j] == '(' &&
		    (is_elision(a.s, i, a.n) || is_elision(b.s, j, b.n))) {
			i = group_end(a.s, i, a.n);
			j = group_end(b.s, j, b.n);
		} else if (a.s[i] == b.s[j]) {
			i++;
			j++;
		} else {
			return false;
		}
	}
	return i == a.n && j == b.n;
}

/* long ends with "::" short (or is short): a scope left out. */
static bool scope_suffix(struct name_span lng, struct name_span shrt)
{
	if (!shrt.n || shrt.n > lng.n)
		return false;
	if (memcmp(lng.s + lng.n - shrt.n, shrt.s, shrt.n) != 0)
		return false;
	return shrt.n == lng.n ||
	       (lng.n - shrt.n >= 2 && memcmp(lng.s + lng.n - shrt.n - 2, "::", 2) == 0);
}

enum match_level {
	MATCH_EXACT,
	MATCH_TRIMMED, /* shape suffix, "void ", "(...)" */
	MATCH_UNPARAM, /* argument lists left out */
	MATCH_SCOPE,   /* a scope left out */
	MATCH_LEVELS,
};

static bool matches(const char *report, const char *trace, enum match_level level)
{
	struct name_span r = trimmed(report), t = trimmed(trace);

	switch (level) {
	case MATCH_EXACT:
		return strcmp(report, trace) == 0;
	case MATCH_TRIMMED:
		return same_elided(r, t);
	case MATCH_UNPARAM:
		return same_elided(unparameterised(r), unparameterised(t));
	default:
		r = unparameterised(r);
		t = unparameterised(t);
		return scope_suffix(r, t) || scope_suffix(t, r);
	}
}

uint32_t trex_stalls_kernel_for(const struct trex_profile *p, const char *name,
                                const struct trex_stall_opts *o)
{
	uint32_t n = p && name ? trex_profile_kernel_count(p) : 0;
	uint32_t skip = o ? o->baseline : NONE;

	for (int level = MATCH_EXACT; level < MATCH_LEVELS; level++) {
		uint32_t best = NONE;

		for (uint32_t k = 0; k < n; k++) {
			const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);

			if (skip != NONE && kk->report == skip)
				continue;
			if (!matches(trex_profile_str(p, kk->name), name, (enum match_level)level))
				continue;
			if (best == NONE ||
			    kk->stall_total > trex_profile_kernel(p, best)->stall_total)
				best = k;
		}
		if (best != NONE)
			return best;
	}
	return NONE;
}
