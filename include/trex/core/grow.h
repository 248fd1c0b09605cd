/* Growable arrays: the one doubling-realloc every module needs. */
#ifndef TREX_CORE_GROW_H
#define TREX_CORE_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Returns v with room for at least need elements of elem bytes (capacity
 * doubles from first_cap), updating *cap; NULL when out of memory or the
 * size overflows, with v and *cap unchanged and still valid. */
static inline void *trex_grow(void *v, size_t *cap, size_t need, size_t elem, size_t first_cap)
{
	if (need <= *cap)
		return v;
	size_t c = *cap ? *cap : first_cap;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	if (elem && c > SIZE_MAX / elem)
		return NULL;
	void *p = realloc(v, c * elem);
	if (p)
		*cap = c;
	return p;
}

#endif
