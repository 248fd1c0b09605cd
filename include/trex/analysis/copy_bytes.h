/* Bytes moved by GPU copies and sets, from their args (decoded lazily, in
 * a few sequential reads per file rather than one random read per event),
 * for the bytes and bandwidth columns of the kernels table. */
#ifndef TREX_ANALYSIS_COPY_BYTES_H
#define TREX_ANALYSIS_COPY_BYTES_H

#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

/* out[i] = the bytes of slice ids[i]: its args' "bytes" (Kineto
 * gpu_memcpy / gpu_memset), else its launching runtime call's "bytes" or
 * "size" (ROCm's hipMemcpy* keep it there), a non-negative integer or a
 * string holding one; -1 when none says. Errors: IO or FORMAT when args
 * cannot be read back from their file, NOMEM. */
enum trex_status trex_copy_bytes(const struct trex_index *idx, const uint32_t *ids, size_t n,
                                 int64_t *out, struct trex_error *err);

#endif
