/* What the PyTorch host execution trace loader (pytorch_et.c) and its
 * args codec (pytorch_et_args.c) share. */
#ifndef TREX_LOAD_PYTORCH_ET_H
#define TREX_LOAD_PYTORCH_ET_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/core/args.h"
#include "trex/core/status.h"

/* A node's args: its reference is the byte range of the node object in the
 * file (trex_json_args_ref); it reads back as the object's members, with
 * the "attrs" list ({"name", "type", "value"} objects) spread into one
 * (name, value) pair each, so rf_id, seq_id, tid, op_schema, ... read as
 * keys of their own. Its context is the file's source, as the JSON codec's. */
extern const struct trex_args_codec trex_pytorch_et_args_codec;

/* The spreading alone, over decoded object members: in's pairs, with the
 * value of a key "attrs" that is a JSON list of objects replaced by one
 * pair per object that has a "name" (an attribute without one stays under
 * "attrs"). out is malloc'd; TREX_NOMEM is the only error. */
enum trex_status trex_pytorch_et_spread_attrs(const struct trex_args *in, struct trex_args *out,
                                              struct trex_error *err);

#endif
