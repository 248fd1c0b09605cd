/* The format plug-ins known to the loader registry (src/load/loader.c). */
#ifndef TREX_LOAD_FORMATS_H
#define TREX_LOAD_FORMATS_H

#include "trex/load/loader.h"

extern const struct trex_format trex_format_chrome_json;

#endif
