#include "config.h"

#include "trex/ui/timespec.h"

#include <string.h>

#define DIGITS_MAX 19 /* decimals beyond ns precision are dropped */

struct unit {
	const char *name;
	int64_t ns;
};

/* A unit must be followed by blanks only, so "ms" is never "m" + "s". */
static const struct unit units[] = {
    {"ns", 1},       {"us", 1000},      {"\xc2\xb5s", 1000}, /* µs */
    {"ms", 1000000}, {"s", 1000000000},
};

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The unit at p (then only blanks); NULL when none matches. "" is ns. */
static const struct unit *unit_of(const char *p)
{
	p = skip_blanks(p);
	if (*p == '\0')
		return &units[0];
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].name);

		if (strncmp(p, units[i].name, n) == 0 && *skip_blanks(p + n) == '\0')
			return &units[i];
	}
	return NULL;
}

/* Digits at *p into *v (at most DIGITS_MAX of them counted in *n). */
static void digits(const char **p, __int128 *v, int *n, int *kept)
{
	for (; **p >= '0' && **p <= '9'; (*p)++, (*n)++) {
		if (*kept < DIGITS_MAX) {
			*v = *v * 10 + (**p - '0');
			(*kept)++;
		}
	}
}

bool trex_timespec_parse(const char *text, int64_t *ns, bool *relative)
{
	const char *p = skip_blanks(text);
	__int128 ip = 0, fp = 0, scale = 1, total;
	int n_int = 0, n_frac = 0, kept_int = 0, kept_frac = 0;
	bool neg = false;
	const struct unit *u;

	*relative = *p == '+' || *p == '-';
	if (*relative)
		neg = *p++ == '-';
	p = skip_blanks(p);
	digits(&p, &ip, &n_int, &kept_int);
	if (kept_int < n_int)
		return false; /* more than 19 integer digits: beyond int64 anyway */
	if (*p == '.') {
		p++;
		digits(&p, &fp, &n_frac, &kept_frac);
	}
	if (n_int + n_frac == 0 || !(u = unit_of(p)))
		return false;
	for (int i = 0; i < kept_frac; i++)
		scale *= 10;
	total = ip * u->ns + fp * u->ns / scale;
	if (total > INT64_MAX)
		return false;
	*ns = (int64_t)(neg ? -total : total);
	return true;
}

int64_t trex_timespec_resolve(int64_t ns, bool relative, int64_t origin, int64_t cursor)
{
	__int128 t = (__int128)(relative ? cursor : origin) + ns;

	return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN : (int64_t)t;
}

/* text past a leading "absolute ", "abs " or "@"; NULL when none. */
static const char *absolute_prefix(const char *text)
{
	static const char *const words[] = {"absolute ", "abs ", "@"};

	text = skip_blanks(text);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncmp(text, words[i], strlen(words[i])) == 0)
			return text + strlen(words[i]);
	return NULL;
}

static enum trex_timespec_where where_in(int64_t t, int64_t start, int64_t end)
{
	return t < start ? TREX_TIMESPEC_BEFORE
	       : t > end ? TREX_TIMESPEC_AFTER
	                 : TREX_TIMESPEC_INSIDE;
}

/* How far t is from [start, end] (0 inside). */
static __int128 distance(int64_t t, int64_t start, int64_t end)
{
	return t < start ? (__int128)start - t : t > end ? (__int128)t - end : 0;
}

bool trex_timespec_locate(const char *text, int64_t start, int64_t end, int64_t cursor,
                          struct trex_timespec_target *out)
{
	const char *abs_text = absolute_prefix(text);
	int64_t ns;
	bool relative;

	if (!trex_timespec_parse(abs_text ? abs_text : text, &ns, &relative))
		return false;
	if (abs_text && relative)
		return false; /* "absolute +2ms" means nothing */
	if (abs_text) {
		out->t = ns;
		out->base = TREX_TIMESPEC_ABSOLUTE;
	} else {
		out->t = trex_timespec_resolve(ns, relative, start, cursor);
		out->base = relative ? TREX_TIMESPEC_FROM_CURSOR : TREX_TIMESPEC_FROM_START;
		/* of two readings outside the trace, the nearer one */
		if (!relative && distance(ns, start, end) < distance(out->t, start, end)) {
			out->t = ns;
			out->base = TREX_TIMESPEC_ABSOLUTE;
		}
	}
	out->where = where_in(out->t, start, end);
	return true;
}
