/* The JSON args codec (core/args.h) of Chrome traces: a reference is the
 * decoded byte offset and length of an event's "args" object in its
 * source, read back on request; one decoder turns it into (key, value)
 * pairs. */
#ifndef TREX_LOAD_JSON_ARGS_H
#define TREX_LOAD_JSON_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/args.h"
#include "trex/core/status.h"

#define TREX_JSON_ARGS_OFFSET_BITS 40
#define TREX_JSON_ARGS_LEN_MAX ((1u << 24) - 1u) /* longer: length unknown, re-scanned */

/* The reference of an args object at decoded offset with length len
 * (longer than TREX_JSON_ARGS_LEN_MAX: found again by scanning). */
static inline trex_args_ref trex_json_args_ref(uint64_t offset, uint64_t len)
{
	if (len > TREX_JSON_ARGS_LEN_MAX)
		len = TREX_JSON_ARGS_LEN_MAX;
	return (len << TREX_JSON_ARGS_OFFSET_BITS) |
	       (offset & ((1ull << TREX_JSON_ARGS_OFFSET_BITS) - 1));
}
static inline uint64_t trex_json_args_offset(trex_args_ref r)
{
	return r & ((1ull << TREX_JSON_ARGS_OFFSET_BITS) - 1);
}
static inline uint32_t trex_json_args_len(trex_args_ref r)
{
	return (uint32_t)(r >> TREX_JSON_ARGS_OFFSET_BITS);
}

/* The codec; its context is the file's open source (load/source.h),
 * which the index then owns. */
extern const struct trex_args_codec trex_json_args_codec;

/* Decodes one JSON object ("{...}") tolerantly: a member that does not
 * parse ends the list (what came before is kept) and sets *truncated when
 * given. Strings are unescaped (\u0000 kept as C0 80, as strtab.h keeps
 * NUL), numbers and true/false/null are as written, objects and arrays
 * compact JSON text. TREX_NOMEM is the only error. */
enum trex_status trex_json_args_decode(const char *json, size_t len, struct trex_args *out,
                                       bool *truncated, struct trex_error *err);

#endif
