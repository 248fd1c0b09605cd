/* Source files named by profiles (stall reports, shader dumps), found on
 * this machine and read as lines, once each. A file compiled elsewhere is
 * found through path prefix maps (--source-map OLD=NEW: a recorded path
 * starting with the directory OLD is looked for under NEW) and search
 * directories (--source-path DIR: DIR joined with the recorded path, then
 * with each shorter tail of it, down to the base name). */
#ifndef TREX_LOAD_SOURCE_FILES_H
#define TREX_LOAD_SOURCE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trex_srcfiles;

/* One recorded path as found: path is the file read (NULL when none could
 * be), why says what went wrong then ("not found: tried 3 places",
 * "/x/a.cu: Permission denied"). Lines are without their newline. */
struct trex_srcfile {
	const char *recorded;
	const char *path;
	const char *why;
	size_t nlines;
	const char *const *lines;
	const size_t *lens;
};

/* dirs[0..ndirs) are search directories; maps[0..nmaps) "OLD=NEW" strings
 * (checked by trex_srcfiles_map_valid). NULL when out of memory. */
struct trex_srcfiles *trex_srcfiles_new(const char *const *dirs, size_t ndirs,
                                        const char *const *maps, size_t nmaps);
void trex_srcfiles_free(struct trex_srcfiles *sf);

/* Whether s is OLD=NEW with both sides non-empty. */
bool trex_srcfiles_map_valid(const char *s);

/* The file recorded as path, read on first use; NULL only when out of
 * memory. */
const struct trex_srcfile *trex_srcfiles_get(struct trex_srcfiles *sf, const char *recorded);
/* Line line (1-based) of the file recorded as path, NULL when the file or
 * the line is not there; *len its length. */
const char *trex_srcfiles_line(struct trex_srcfiles *sf, const char *recorded, int64_t line,
                               size_t *len);

#endif
