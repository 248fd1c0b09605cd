/* The phases of the Chrome Trace Event Format ("ph"), as the Chrome-trace
 * loader counts them: they become the file's event types (index.h,
 * trex_event_type: "X" complete, "B" begin, ...) that `trex info` lists. */
#ifndef TREX_LOAD_CHROME_PHASES_H
#define TREX_LOAD_CHROME_PHASES_H

#include <stdint.h>

#include "trex/core/builder.h"

/* X(name, "ph letters") */
#define TREX_PHASE_INFO(X)                                                                         \
	X(COMPLETE, "X")                                                                           \
	X(BEGIN, "B")                                                                              \
	X(END, "E")                                                                                \
	X(INSTANT, "i/I")                                                                          \
	X(COUNTER, "C")                                                                            \
	X(METADATA, "M")                                                                           \
	X(FLOW_START, "s")                                                                         \
	X(FLOW_STEP, "t")                                                                          \
	X(FLOW_END, "f")                                                                           \
	X(ASYNC_BEGIN, "b")                                                                        \
	X(ASYNC_END, "e")                                                                          \
	X(ASYNC_INSTANT, "n")                                                                      \
	X(OTHER, "other")

enum trex_phase {
#define TREX_PHASE_ENUM(name, letters) TREX_PH_##name,
	TREX_PHASE_INFO(TREX_PHASE_ENUM)
#undef TREX_PHASE_ENUM
	    TREX_PH_COUNT
};

/* "X", "i/I", ...; "?" out of range. */
const char *trex_phase_letters(enum trex_phase ph);
/* "complete", "flow start", ...; "?" out of range. */
const char *trex_phase_name(enum trex_phase ph);

/* Gives file one event type per phase, in TREX_PHASE_INFO order, with no
 * events yet: the loader adds to event_types[ph].events. */
void trex_phase_event_types(struct trex_build_file *file);

#endif
