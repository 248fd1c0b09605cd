/* The format plug-ins known to the loader registry (src/load/loader.c). */
#ifndef TREX_LOAD_FORMATS_H
#define TREX_LOAD_FORMATS_H

#include "trex/load/loader.h"
#include "trex/load/metrics_load.h"

extern const struct trex_format trex_format_chrome_json;
/* Metrics formats (metrics_load.h). */
extern const struct trex_metrics_format trex_format_unitrace_text;

#endif
