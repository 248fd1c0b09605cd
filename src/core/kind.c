#include "config.h"

#include "trex/core/kind.h"

bool trex_kind_is_gpu(enum trex_kind kind)
{
	static const bool gpu[] = {
#define TREX_KIND_GPU(name, label, is_gpu) is_gpu,
	    TREX_KIND_INFO(TREX_KIND_GPU)
#undef TREX_KIND_GPU
	};
	return (unsigned)kind < TREX_KIND_COUNT && gpu[kind];
}

const char *trex_kind_label(enum trex_kind kind)
{
	static const char *const labels[] = {
#define TREX_KIND_LABEL(name, label, is_gpu) label,
	    TREX_KIND_INFO(TREX_KIND_LABEL)
#undef TREX_KIND_LABEL
	};
	return (unsigned)kind < TREX_KIND_COUNT ? labels[kind] : "?";
}
