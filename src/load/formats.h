/* The format plug-ins known to the loader registry (src/load/loader.c). */
#ifndef TREX_LOAD_FORMATS_H
#define TREX_LOAD_FORMATS_H

#include "trex/load/loader.h"
#include "trex/load/metrics_load.h"

extern const struct trex_format trex_format_chrome_json;
extern const struct trex_format trex_format_perfetto;
extern const struct trex_format trex_format_astrasim_timeline;
/* Execution-graph formats (trex_format.graph). */
extern const struct trex_format trex_format_astrasim_text;
extern const struct trex_format trex_format_chakra_et;
/* Metrics formats (metrics_load.h). */
extern const struct trex_metrics_format trex_format_unitrace_text;

/* Stall-sampling formats: read into a profile store beside the index, not
 * into it (src/load/profile_load.c; the struct is in profile_text.h). */
struct trex_profile_format;
extern const struct trex_profile_format trex_profile_format_unitrace_stalls;
extern const struct trex_profile_format trex_profile_format_ncu_source;

#endif
