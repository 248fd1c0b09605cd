"""peak_anon.py CMD...: runs CMD (stdout to /dev/null) and prints
"WALL_SECONDS PEAK_RSSANON_KIB PEAK_VMRSS_KIB EXIT_CODE".

The kernel keeps a high-water mark of the whole RSS (VmHWM) but not of its
anonymous part, so /proc/PID/status is sampled every 0.5 ms while CMD
runs: a peak shorter than that can be missed (tests/bench/ranks.sh)."""
import subprocess
import sys
import time


def sample(path, peaks):
    try:
        with open(path) as f:
            for line in f:
                key = line.split(":", 1)[0]
                if key in peaks:
                    peaks[key] = max(peaks[key], int(line.split()[1]))
    except (OSError, ValueError, IndexError):
        pass  # exited between the poll and the read


def main():
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    peaks = {"RssAnon": 0, "VmRSS": 0}
    path = "/proc/%d/status" % proc.pid
    while proc.poll() is None:
        sample(path, peaks)
        time.sleep(0.0005)
    print("%.3f %d %d %d" % (time.monotonic() - start, peaks["RssAnon"], peaks["VmRSS"],
                             proc.returncode))


if __name__ == "__main__":
    main()
