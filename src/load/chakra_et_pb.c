/* The code protoc-c generates for src/load/proto/chakra_et.proto, built
 * here: proto3 string fields default to protobuf-c's empty string through
 * a cast that drops its const, which the project's warnings refuse in
 * hand-written code only. */
#include "config.h"

#pragma GCC diagnostic ignored "-Wcast-qual"
#include "chakra_et.pb-c.c"
