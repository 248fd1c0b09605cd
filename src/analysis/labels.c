#include "config.h"

#include "trex/analysis/labels.h"

#include <stdio.h>
#include <string.h>

#define NAME_MAX_LEN 512 /* a file or device name while it is compared */

static const struct trex_file *file_of(const struct trex_index *idx, uint32_t file)
{
	return trex_index_file(idx, file);
}

static const char *path_of(const struct trex_index *idx, uint32_t file)
{
	return trex_index_str(idx, file_of(idx, file)->path);
}

static bool same_rank(const struct trex_index *idx, uint32_t a, uint32_t b)
{
	return a != b && file_of(idx, a)->rank == file_of(idx, b)->rank;
}

bool trex_file_rank_shared(const struct trex_index *idx, uint32_t file)
{
	uint32_t n = trex_index_file_count(idx);

	for (uint32_t g = 0; g < n; g++) {
		if (same_rank(idx, file, g))
			return true;
	}
	return false;
}

/* ---- file names ------------------------------------------------------------------------- */

/* Path components, '/' separated. */
static unsigned components(const char *path)
{
	unsigned n = 1;

	for (const char *p = path; *p; p++)
		n += *p == '/';
	return n;
}

/* The last k components of path (all of it when it has no more). */
static const char *tail(const char *path, unsigned k)
{
	const char *p = path + strlen(path);

	while (p > path) {
		if (p[-1] == '/' && --k == 0)
			return p;
		p--;
	}
	return path;
}

/* Does another file of the same rank end in the same k components? */
static bool tail_taken(const struct trex_index *idx, uint32_t file, const char *t, unsigned k)
{
	uint32_t n = trex_index_file_count(idx);

	for (uint32_t g = 0; g < n; g++) {
		if (same_rank(idx, file, g) && strcmp(tail(path_of(idx, g), k), t) == 0)
			return true;
	}
	return false;
}

/* Files of the same rank and the same path: how many (other than file) in
 * all, and how many come before it. */
static void same_path(const struct trex_index *idx, uint32_t file, uint32_t *all, uint32_t *before)
{
	uint32_t n = trex_index_file_count(idx);

	*all = *before = 0;
	for (uint32_t g = 0; g < n; g++) {
		if (same_rank(idx, file, g) && strcmp(path_of(idx, g), path_of(idx, file)) == 0) {
			++*all;
			*before += g < file;
		}
	}
}

const char *trex_file_name(const struct trex_index *idx, uint32_t file, char *buf, size_t size)
{
	const char *path = path_of(idx, file);
	unsigned n = components(path);
	uint32_t all, before;

	for (unsigned k = 1; k <= n; k++) {
		const char *t = tail(path, k);

		if (!tail_taken(idx, file, t, k)) {
			snprintf(buf, size, "%s", t);
			return buf;
		}
	}
	same_path(idx, file, &all, &before);
	if (all)
		snprintf(buf, size, "%s #%u", path, before + 1);
	else
		snprintf(buf, size, "%s", path);
	return buf;
}

const char *trex_rank_label(int64_t rank, char *buf, size_t size)
{
	snprintf(buf, size, "rank %lld", (long long)rank);
	return buf;
}

const char *trex_rank_key(int64_t rank, char *buf, size_t size)
{
	snprintf(buf, size, "rank%lld", (long long)rank);
	return buf;
}

const char *trex_file_label(const struct trex_index *idx, uint32_t file, char *buf, size_t size)
{
	long long rank = (long long)file_of(idx, file)->rank;
	char name[NAME_MAX_LEN];

	if (trex_file_rank_shared(idx, file))
		snprintf(buf, size, "rank %lld (%s)", rank,
		         trex_file_name(idx, file, name, sizeof(name)));
	else
		trex_rank_label(rank, buf, size);
	return buf;
}

/* ---- keys ------------------------------------------------------------------------------- */

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* s[0..len) as a key part: letters (lower case when lower) and digits,
 * every run of other characters one '_' (none at the ends); blanks are
 * dropped when drop_blanks. */
static void key_part(const char *s, size_t len, bool lower, bool drop_blanks, char *buf,
                     size_t size)
{
	size_t k = 0;
	bool gap = false;

	for (size_t i = 0; i < len && k + 2 < size; i++) {
		char c = s[i];

		if (!is_alnum(c)) {
			gap = gap || !(drop_blanks && c == ' ');
			continue;
		}
		if (gap && k > 0)
			buf[k++] = '_';
		gap = false;
		buf[k++] = lower && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	if (size)
		buf[k < size ? k : size - 1] = '\0';
}

/* The file name as a key part, without .gz and .json. */
static const char *file_slug(const struct trex_index *idx, uint32_t file, char *buf, size_t size)
{
	char name[NAME_MAX_LEN];
	size_t len = strlen(trex_file_name(idx, file, name, sizeof(name)));

	if (ends_with(name, len, ".gz"))
		len -= 3;
	if (ends_with(name, len, ".json"))
		len -= 5;
	key_part(name, len, false, false, buf, size);
	if (!buf[0])
		snprintf(buf, size, "file");
	return buf;
}

const char *trex_file_key(const struct trex_index *idx, uint32_t file, char *buf, size_t size)
{
	long long rank = (long long)file_of(idx, file)->rank;
	uint32_t n = trex_index_file_count(idx), pos = 0;
	char slug[NAME_MAX_LEN], other[NAME_MAX_LEN];
	bool taken = false;

	if (!trex_file_rank_shared(idx, file))
		return trex_rank_key(rank, buf, size);
	file_slug(idx, file, slug, sizeof(slug));
	for (uint32_t g = 0; g < n; g++) {
		if (!same_rank(idx, file, g) && g != file)
			continue;
		pos += g <= file;
		taken = taken ||
		        (g != file && strcmp(file_slug(idx, g, other, sizeof(other)), slug) == 0);
	}
	if (taken)
		snprintf(buf, size, "rank%lld_%s_%u", rank, slug, pos);
	else
		snprintf(buf, size, "rank%lld_%s", rank, slug);
	return buf;
}

/* ---- devices ------------------------------------------------------------------------------ */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

/* "GPU 0", "MTIA 17": a word of letters, one blank, a number; not CPU. */
static bool device_labels(const char *labels)
{
	const char *p = labels;

	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
		p++;
	if (p == labels || *p != ' ' || strncmp(labels, "CPU ", 4) == 0)
		return false;
	return all_digits(p + 1);
}

/* unitrace: "[RANK r ]DEVICE<host>[<device>] <pci> #<n>" or "#<n>.<sub>";
 * the device number, or NULL. */
static const char *unitrace_device(const char *name)
{
	const char *hash = strrchr(name, '#'), *p;

	if (strncmp(name, "RANK ", 5) == 0) {
		name += 5;
		while (*name >= '0' && *name <= '9')
			name++;
		name += *name == ' ';
	}
	if (strncmp(name, "DEVICE", 6) != 0 || !hash)
		return NULL;
	p = hash + 1;
	if (*p < '0' || *p > '9')
		return NULL;
	while ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9'))
		p++;
	return *p ? NULL : hash + 1;
}

/* The device name by the rules that know the device; false (buf "") when
 * none applies. */
static bool known_device(const struct trex_index *idx, uint32_t process, char *buf, size_t size)
{
	const struct trex_process *p = trex_index_process(idx, process);
	const char *labels = trex_index_str(idx, p->labels), *pid = trex_index_str(idx, p->pid);
	const char *dialect = trex_index_str(idx, file_of(idx, p->file)->dialect);
	const char *unitrace = unitrace_device(trex_index_str(idx, p->name));

	buf[0] = '\0';
	if (device_labels(labels))
		snprintf(buf, size, "%s", labels);
	else if (p->is_gpu && strncmp(dialect, "kineto", 6) == 0 && all_digits(pid))
		snprintf(buf, size, "GPU %s", pid);
	else if (unitrace)
		snprintf(buf, size, "GPU %s", unitrace);
	return buf[0] != '\0';
}

/* Does another process of the same file get the same known name? */
static bool device_ambiguous(const struct trex_index *idx, uint32_t process, const char *name)
{
	uint32_t n = trex_index_process_count(idx), file = trex_index_process(idx, process)->file;
	char other[NAME_MAX_LEN];

	for (uint32_t q = 0; q < n; q++) {
		if (q != process && trex_index_process(idx, q)->file == file &&
		    known_device(idx, q, other, sizeof(other)) && strcmp(other, name) == 0)
			return true;
	}
	return false;
}

const char *trex_device_name(const struct trex_index *idx, uint32_t process, char *buf, size_t size)
{
	const struct trex_process *p = trex_index_process(idx, process);
	const char *name = trex_index_str(idx, p->name), *pid = trex_index_str(idx, p->pid);
	char known[NAME_MAX_LEN];

	if (known_device(idx, process, known, sizeof(known))) {
		if (device_ambiguous(idx, process, known))
			snprintf(buf, size, "%s (pid %s)", known, pid);
		else
			snprintf(buf, size, "%s", known);
	} else if (*name) {
		snprintf(buf, size, "%s (%s)", name, pid);
	} else {
		snprintf(buf, size, "%s", pid);
	}
	return buf;
}

const char *trex_process_title(const struct trex_index *idx, uint32_t process, char *buf,
                               size_t size)
{
	char known[NAME_MAX_LEN];

	if (known_device(idx, process, known, sizeof(known)))
		return trex_device_name(idx, process, buf, size);
	snprintf(buf, size, "%s", trex_index_str(idx, trex_index_process(idx, process)->name));
	return buf;
}

const char *trex_device_label(const struct trex_index *idx, uint32_t process, char *buf,
                              size_t size)
{
	char run[NAME_MAX_LEN], dev[NAME_MAX_LEN];

	trex_device_name(idx, process, dev, sizeof(dev));
	if (trex_index_file_count(idx) < 2) {
		snprintf(buf, size, "%s", dev);
		return buf;
	}
	trex_file_label(idx, trex_index_process(idx, process)->file, run, sizeof(run));
	snprintf(buf, size, "%s %s", run, dev);
	return buf;
}

const char *trex_device_key(const struct trex_index *idx, uint32_t process, char *buf, size_t size)
{
	const char *pid = trex_index_str(idx, trex_index_process(idx, process)->pid);
	char known[NAME_MAX_LEN], dev[NAME_MAX_LEN], pid_key[NAME_MAX_LEN];

	key_part(pid, strlen(pid), true, false, pid_key, sizeof(pid_key));
	if (!known_device(idx, process, known, sizeof(known))) {
		snprintf(buf, size, "pid%s", pid_key);
		return buf;
	}
	key_part(known, strlen(known), true, true, dev, sizeof(dev));
	if (device_ambiguous(idx, process, known))
		snprintf(buf, size, "%s_pid%s", dev, pid_key);
	else
		snprintf(buf, size, "%s", dev);
	return buf;
}

/* ---- clashes ------------------------------------------------------------------------------ */

/* Is file the first (lowest id) of several that claim its rank? */
static bool first_of_clash(const struct trex_index *idx, uint32_t file)
{
	bool later = false;

	for (uint32_t g = 0; g < trex_index_file_count(idx); g++) {
		if (!same_rank(idx, file, g))
			continue;
		if (g < file)
			return false;
		later = true;
	}
	return later;
}

uint32_t trex_rank_clash_count(const struct trex_index *idx)
{
	uint32_t n = 0;

	for (uint32_t f = 0; f < trex_index_file_count(idx); f++)
		n += first_of_clash(idx, f);
	return n;
}

/* "A and B both claim rank R" / "A, B and C all claim rank R" + the rest. */
static void clash_text(const struct trex_index *idx, uint32_t first, char *buf, size_t size)
{
	uint32_t nfiles = trex_index_file_count(idx), members = 0, done = 0;
	size_t len = 0;
	char name[NAME_MAX_LEN];

	for (uint32_t g = first; g < nfiles; g++)
		members += g == first || same_rank(idx, first, g);
	for (uint32_t g = first; g < nfiles && len < size; g++) {
		if (g != first && !same_rank(idx, first, g))
			continue;
		done++;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		                        done == 1         ? ""
		                        : done == members ? " and "
		                                          : ", ",
		                        trex_file_name(idx, g, name, sizeof(name)));
	}
	if (len < size)
		snprintf(buf + len, size - len,
		         " %s claim rank %lld; they are shown as separate runs",
		         members == 2 ? "both" : "all", (long long)file_of(idx, first)->rank);
}

const char *trex_rank_clash_warning(const struct trex_index *idx, uint32_t n, char *buf,
                                    size_t size)
{
	if (size)
		buf[0] = '\0';
	for (uint32_t f = 0; f < trex_index_file_count(idx); f++) {
		if (first_of_clash(idx, f) && n-- == 0) {
			clash_text(idx, f, buf, size);
			break;
		}
	}
	return buf;
}
