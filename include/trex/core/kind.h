/* What an event is: the kinds a loader gives slices (trex_ev.kind,
 * trex_slice.kind), whatever the format. Which category or name of which
 * trace dialect is which kind is the loaders' to say (load/kinds.h). */
#ifndef TREX_CORE_KIND_H
#define TREX_CORE_KIND_H

#include <stdbool.h>
#include <stddef.h>

/* X(NAME, "label", is_gpu) */
#define TREX_KIND_INFO(X)                                                                          \
	X(OTHER, "other", false)                                                                   \
	X(CPU_OP, "cpu op", false)                                                                 \
	X(PYTHON, "python", false)                                                                 \
	X(ANNOTATION, "annotation", false)                                                         \
	X(RUNTIME, "runtime", false)                                                               \
	X(CPU_INSTANT, "cpu instant", false)                                                       \
	X(OVERHEAD, "overhead", false)                                                             \
	X(KERNEL, "kernel", true)                                                                  \
	X(MEMCPY, "memcpy", true)                                                                  \
	X(MEMSET, "memset", true)                                                                  \
	X(GPU_ANNOTATION, "gpu annotation", true)                                                  \
	X(GPU_SYNC, "gpu sync", true)                                                              \
	X(GPU_OTHER, "gpu other", true)

enum trex_kind {
#define TREX_KIND_ENUM(name, label, gpu) TREX_KIND_##name,
	TREX_KIND_INFO(TREX_KIND_ENUM)
#undef TREX_KIND_ENUM
	    TREX_KIND_COUNT
};

/* Device work of any sort (kernels, copies, sets, device annotations...). */
bool trex_kind_is_gpu(enum trex_kind kind);
const char *trex_kind_label(enum trex_kind kind);

/* Device work that occupies a device: kernels, memory copies and sets. */
static inline bool trex_kind_is_device_work(enum trex_kind kind)
{
	return kind == TREX_KIND_KERNEL || kind == TREX_KIND_MEMCPY || kind == TREX_KIND_MEMSET;
}

/* trex_slice.comm of a slice that matched no communication rule (the rules
 * themselves are the loaders', load/classify.h). */
#define TREX_COMM_NONE 0xffu

#endif
