/* rusage: runs a command once with stdout to /dev/null and prints
 * "WALL_SECONDS MAXRSS_KIB EXIT_CODE" on stderr.
 *
 *   rusage CMD [ARG...]
 *
 * Peak RSS is ru_maxrss from wait4() on the command. Linux keeps the
 * high-water mark across exec, so the command must be forked from a small
 * process: forked from Python it would inherit Python's ~15 MB. Wall time
 * is CLOCK_MONOTONIC around fork/exec/wait (GNU time rounds to 10 ms). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void child(char **argv)
{
	int fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		_exit(126);
	execvp(argv[0], argv);
	perror(argv[0]);
	_exit(127);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rusage CMD [ARG...]\n");
		return 2;
	}
	double t0 = now_s();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0)
		child(argv + 1);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 2;
	}
	double wall = now_s() - t0;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(stderr, "%.6f %ld %d\n", wall, ru.ru_maxrss, code);
	return 0;
}
