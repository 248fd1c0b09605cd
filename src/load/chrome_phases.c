#include "config.h"

#include "trex/load/chrome_phases.h"

static const char *const phase_letters[] = {
#define PHASE_LETTERS(name, l) l,
    TREX_PHASE_INFO(PHASE_LETTERS)
#undef PHASE_LETTERS
};

/* "FLOW_START" -> "flow start", written once here. */
static const char *const phase_names[] = {
    "complete",  "begin",    "end",         "instant",   "counter",       "metadata", "flow start",
    "flow step", "flow end", "async begin", "async end", "async instant", "other",
};

_Static_assert(sizeof(phase_names) / sizeof(phase_names[0]) == TREX_PH_COUNT, "a name per phase");
_Static_assert(TREX_PH_COUNT <= TREX_EVENT_TYPES_MAX, "every phase is an event type");

const char *trex_phase_letters(enum trex_phase ph)
{
	return (unsigned)ph < TREX_PH_COUNT ? phase_letters[ph] : "?";
}

const char *trex_phase_name(enum trex_phase ph)
{
	return (unsigned)ph < TREX_PH_COUNT ? phase_names[ph] : "?";
}

void trex_phase_event_types(struct trex_build_file *file)
{
	for (int ph = 0; ph < TREX_PH_COUNT; ph++) {
		file->event_types[ph].label = phase_letters[ph];
		file->event_types[ph].name = phase_names[ph];
		file->event_types[ph].events = 0;
	}
	file->event_type_count = TREX_PH_COUNT;
}
