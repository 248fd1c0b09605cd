/* The names of runs (input files) and devices, in one place so that every
 * table, view, CSV/JSON key and message calls them the same.
 *
 * A file is a run of one rank: "rank 3". Two files may claim the same rank
 * (two runs compared, a file loaded twice); they stay apart everywhere and
 * their labels say which is which: "rank 1 (base.json.gz)". A device is
 * what its trace calls it ("GPU 0", "MTIA 17"), with its run's label when
 * several files are loaded ("rank 3 GPU 0").
 *
 * Every function writes at most size bytes (NUL included, truncating) to
 * buf and returns buf. */
#ifndef TREX_ANALYSIS_LABELS_H
#define TREX_ANALYSIS_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"

/* Whether another file of idx claims the rank of file. */
bool trex_file_rank_shared(const struct trex_index *idx, uint32_t file);

/* The file as labels name it: its base name; among files that claim the
 * same rank, as many trailing path components as tell it apart
 * ("run1/trace.json"), and for equal paths the whole path and " #N"
 * (N: 1-based, in file order among them). */
const char *trex_file_name(const struct trex_index *idx, uint32_t file, char *buf, size_t size);

/* A rank no other file claims, as a label ("rank 1") and as a key part
 * ("rank1"): what trex_file_label and trex_file_key give its file, for
 * callers that name a set's ranks without its index (cli_ranks.c). */
const char *trex_rank_label(int64_t rank, char *buf, size_t size);
const char *trex_rank_key(int64_t rank, char *buf, size_t size);

/* "rank 1", or "rank 1 (base.json.gz)" when another file claims rank 1. */
const char *trex_file_label(const struct trex_index *idx, uint32_t file, char *buf, size_t size);

/* The label as a CSV/JSON key part: "rank1", or "rank1_base" when another
 * file claims rank 1 (trex_file_name without .gz and .json, every run of
 * other characters than ASCII letters and digits made one '_'; "_N" added
 * when that is still not unique). */
const char *trex_file_key(const struct trex_index *idx, uint32_t file, char *buf, size_t size);

/* The device a process stands for, without its run:
 *  - its process_labels when they are a word and a number other than CPU
 *    (Kineto "GPU 0", "MTIA 17");
 *  - "GPU <pid>" for a process with GPU tracks in a Kineto file (its pid
 *    is the device index there);
 *  - "GPU <n>" for a unitrace device process ("DEVICE... #<n>");
 *  - otherwise its name and pid, "python3 (1234)", or its pid alone.
 * When two processes of one file get the same name by the first three
 * rules, both get " (pid <pid>)" added. */
const char *trex_device_name(const struct trex_index *idx, uint32_t process, char *buf,
                             size_t size);

/* What a process is called next to its pid (the timeline's process rows):
 * trex_device_name when the rules know it as a device ("GPU 0"), else its
 * process name ("" when it has none). */
const char *trex_process_title(const struct trex_index *idx, uint32_t process, char *buf,
                               size_t size);

/* trex_device_name, after the run's label when the index has several
 * files: "GPU 0", "rank 3 GPU 0", "rank 1 (base.json.gz) GPU 1". */
const char *trex_device_label(const struct trex_index *idx, uint32_t process, char *buf,
                              size_t size);

/* The device as a CSV/JSON key part: "gpu0" (the name in lower case, blanks
 * dropped, other characters than letters and digits made '_'), "gpu0_pid5"
 * for the ambiguous, "pid1234" for a device named by its pid. */
const char *trex_device_key(const struct trex_index *idx, uint32_t process, char *buf, size_t size);

/* How many ranks more than one file claims. */
uint32_t trex_rank_clash_count(const struct trex_index *idx);

/* The warning for the n-th (from 0, by rank) rank claimed by several files:
 * "base.json.gz and test.json.gz both claim rank 1; they are shown as
 * separate runs" ("a, b and c all claim ..." for more); "" if there is no
 * such clash. */
const char *trex_rank_clash_warning(const struct trex_index *idx, uint32_t n, char *buf,
                                    size_t size);

#endif
