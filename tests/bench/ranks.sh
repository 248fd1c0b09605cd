#!/bin/sh
# Many ranks (issue 15's 64 ranks x 250k events): tests/bench/ranks.sh BUILDDIR
#
# Generates RANKS synthetic Kineto traces of EVENTS events each (gen_trace
# --rank R --seed R+1; 64 x 250k is ~4.3 GB of JSON) in a temporary
# directory, deleted at the end, after checking the free disk (a third
# more than the set needs: its index files). Then times `trex index -j2`
# of the set once (wall, peak RSS: rusage), and RUNS times `trex kernels
# DIR` from the ranks' index files: wall seconds and peak RssAnon (anonymous
# memory, sampled every 0.5 ms from /proc/PID/status by peak_anon.py: the
# kernel keeps no high-water mark of it), medians printed as Markdown with
# the machine. With TREX_RANKS_MERGED=1 the merged load (`--no-cache`, the
# set parsed as one index) is timed once too and its CSV compared with the
# lazy one.
#
# The timeline of the set (`trex DIR`, its first screen dumped, no
# terminal): RUNS times its first open, which composes the set's index file
# from the ranks' own (the set file deleted before each), and RUNS times
# its reopen, which maps that file: wall seconds and peak RssAnon, medians.
#
# Environment: TREX_RANKS (64), TREX_RANKS_EVENTS (250000), TREX_RANKS_RUNS
# (7), TREX_RANKS_MERGED (0), TMPDIR.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 BUILDDIR" >&2; exit 1; }
builddir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
trex=$builddir/src/trex
python=${PYTHON3:-python3}
ranks=${TREX_RANKS:-64}
events=${TREX_RANKS_EVENTS:-250000}
runs=${TREX_RANKS_RUNS:-7}
cc=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/trex-ranks.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
need_kb=$((ranks * events * 270 / 1024 * 4 / 3))
free_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
if [ "$free_kb" -lt "$need_kb" ]; then
	echo "ranks.sh: $((need_kb / 1024)) MB needed in $work, $((free_kb / 1024)) MB free" >&2
	exit 1
fi

$cc -O2 -std=gnu17 -I"$builddir" -I"$srcdir/include" "$here/gen_trace.c" \
	"$srcdir/src/demo/synthetic.c" "$srcdir/src/core/status.c" -o "$work/gen_trace"
$cc -O2 -std=gnu17 -I"$builddir" "$here/rusage.c" -o "$work/rusage"
mkdir -p "$work/set" "$work/index"
TREX_INDEX_DIR=$work/index
export TREX_INDEX_DIR

seq 0 $((ranks - 1)) | xargs -P 2 -I R sh -c \
	'"$1" "$2" "$3/rank$4.json" --streams 2 --seed $(($4 + 1)) --rank "$4" 2>/dev/null' \
	sh "$work/gen_trace" "$events" "$work/set" R
bytes=$(du -sb "$work/set" | cut -f1)

median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "## Machine"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
echo "- memory: $(free -g | awk '/^Mem:/ { print $2 " GiB total, " $7 " GiB available" }')"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"
echo "- set: $ranks ranks x $events events, $bytes bytes of JSON"
echo

"$work/rusage" "$trex" index -j2 "$work/set" 2>"$work/index.rusage"
read -r index_s index_kb index_rc <"$work/index.rusage"
index_bytes=$(du -sb "$work/index" | cut -f1)

: >"$work/lazy"
for _ in $(seq "$runs"); do
	"$python" "$here/peak_anon.py" "$trex" kernels "$work/set" >>"$work/lazy"
done
lazy_s=$(cut -d' ' -f1 "$work/lazy" | median)
lazy_anon=$(cut -d' ' -f2 "$work/lazy" | median)
lazy_rss=$(cut -d' ' -f3 "$work/lazy" | median)

# the timeline: composed from the ranks' index files, then reopened
: >"$work/compose"
: >"$work/reopen"
for _ in $(seq "$runs"); do
	rm -f "$work/index"/set-*.trex
	"$python" "$here/peak_anon.py" "$trex" --script '' --dump-screen=/dev/null "$work/set" \
		>>"$work/compose"
	"$python" "$here/peak_anon.py" "$trex" --script '' --dump-screen=/dev/null "$work/set" \
		>>"$work/reopen"
done
set_bytes=$(du -cb "$work/index"/set-*.trex | tail -n 1 | cut -f1)

echo "| measurement | median | |"
echo "|---|---|---|"
echo "| trex index -j2 (1 run, exit $index_rc) | $index_s s | $(echo "$bytes $index_s" | awk '{ printf "%.0f MB/s", $1 / $2 / 1e6 }'), peak RSS $index_kb KiB |"
echo "| index files | $index_bytes bytes | $(echo "$index_bytes $ranks $events" | awk '{ printf "%.1f bytes/event", $1 / $2 / $3 }') |"
echo "| trex kernels DIR ($runs runs) | $lazy_s s | peak RssAnon $lazy_anon KiB, VmRSS $lazy_rss KiB |"
for m in compose reopen; do
	what="first open: the set's index file composed ($set_bytes bytes)"
	[ "$m" = reopen ] && what="reopen: the set's index file mapped"
	echo "| trex DIR, $what ($runs runs) | $(cut -d' ' -f1 "$work/$m" | median) s | peak RssAnon $(cut -d' ' -f2 "$work/$m" | median) KiB, VmRSS $(cut -d' ' -f3 "$work/$m" | median) KiB |"
done
if [ "${TREX_RANKS_MERGED:-0}" = 1 ]; then
	"$python" "$here/peak_anon.py" "$trex" kernels --no-cache -j2 "$work/set" >"$work/merged"
	"$trex" kernels --no-cache -j2 --format csv "$work/set" >"$work/merged.csv"
	"$trex" kernels --format csv "$work/set" >"$work/lazy.csv"
	read -r m_s m_anon m_rss m_rc <"$work/merged"
	same=$(cmp -s "$work/merged.csv" "$work/lazy.csv" && echo "CSV identical" || echo "CSV DIFFERS")
	echo "| trex kernels --no-cache DIR (1 run, exit $m_rc) | $m_s s | peak RssAnon $m_anon KiB, VmRSS $m_rss KiB; $same |"
fi
