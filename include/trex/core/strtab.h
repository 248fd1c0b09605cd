/* String interning: every name, category, pid/tid text and shape key is
 * stored once and referred to by a 32-bit id. Id 0 is always "". */
#ifndef TREX_CORE_STRTAB_H
#define TREX_CORE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define TREX_STR_NONE 0u          /* the empty string */
#define TREX_STR_ERROR UINT32_MAX /* returned on allocation failure */

struct trex_strtab;

struct trex_strtab *trex_strtab_new(void);
void trex_strtab_free(struct trex_strtab *tab);

/* Returns the id of the bytes s[0..len) (need not be NUL-terminated),
 * adding them if new. Stored strings are NUL-terminated copies in which
 * a NUL byte of s is kept as the two bytes C0 80 (as Java's "modified
 * UTF-8" does): valid UTF-8 never holds them, so every stored string is
 * one whole C string that strlen, strcmp and printf see completely, and
 * the writers show it as \0 (JSON \u0000; trex/core/display.h).
 * Returns TREX_STR_ERROR when out of memory. */
uint32_t trex_strtab_intern(struct trex_strtab *tab, const char *s, size_t len);

/* Looks a string up without adding it (NUL bytes as in intern);
 * TREX_STR_ERROR when absent. */
uint32_t trex_strtab_find(const struct trex_strtab *tab, const char *s, size_t len);

/* The NUL-terminated string for id (valid until the table is freed), NUL
 * bytes as C0 80; *len receives its stored length when len is not NULL.
 * id must be < count. */
const char *trex_strtab_get(const struct trex_strtab *tab, uint32_t id, size_t *len);

uint32_t trex_strtab_count(const struct trex_strtab *tab);

/* Bytes held by the table (strings, hash slots, offsets), for memory stats. */
size_t trex_strtab_memory(const struct trex_strtab *tab);

#endif
