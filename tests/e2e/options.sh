#!/bin/sh
# Each command has its own options (issue 11 item 5): `trex COMMAND --help`
# lists them, and any other option given to the command is a usage error
# that says where it applies. The expected sets are written out here by
# hand from the man page, not read from trex.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

# COMMAND: its own options (besides those of every command).
own() {
	case $1 in
	info) echo "align" ;;
	kernels) echo "by memory per-rank metric align" ;;
	categories) echo "schema compiler-log core-freq explain align" ;;
	gpu-time) echo "schema align" ;;
	gaps) echo "min top align" ;;
	steps) echo "step schema align" ;;
	ops | api) echo "top align" ;;
	integrity) echo "align" ;;
	stalls) echo "top dump source-path source-map kernel compare align" ;;
	metrics) echo "kernel metric summary align" ;;
	nodes) echo "top rank align" ;;
	critical-path) echo "align" ;;
	diff) echo "by step min top schema normalize align" ;;
	export) echo "to range tracks filter ranks steps host-et align" ;;
	index) echo "" ;;
	align) echo "on step" ;;
	stragglers) echo "step align" ;;
	esac
}
# --OPTION with an argument it takes.
arg_of() {
	case $1 in
	explain | memory | per-rank | summary | ascii | no-mouse) echo "--$1" ;;
	core-freq) echo "--core-freq=1100" ;;
	by) echo "--by=op" ;;
	min) echo "--min=5us" ;;
	top) echo "--top=3" ;;
	normalize) echo "--normalize=hex" ;;
	rank) echo "--rank=1" ;;
	source-map) echo "--source-map=/a=/b" ;;
	color) echo "--color=never" ;;
	to) echo "--to=chrome" ;;
	range) echo "--range=1ms:2ms" ;;
	ranks) echo "--ranks=0" ;;
	steps) echo "--steps=1" ;;
	on) echo "--on=steps" ;;
	align) echo "--align=none" ;;
	*) echo "--$1=x" ;;
	esac
}
every="format output force threads input-format bandwidth latency npus npu-frequency no-cache
rebuild-cache strict quiet demo help version"
scoped="schema compiler-log core-freq explain by memory per-rank step min normalize top rank dump
source-path source-map kernel compare metric summary to range tracks filter ranks steps host-et
on align"
ui="keys theme color ascii no-mouse script dump-screen"

for cmd in info kernels categories gpu-time gaps steps ops api integrity stalls metrics critical-path \
	nodes diff export index align stragglers; do
	run_trex "h-$cmd" "$cmd" --help
	listed=$(sed -n 's/^ *\(-., \)\{0,1\}--\([a-z-]*\).*/\2/p' "$TEST_TMP/h-$cmd.out" | sort | tr '\n' ' ')
	want=$(for o in $(own "$cmd") $every; do echo "$o"; done | sort | tr '\n' ' ')
	if [ "$(rc_of "h-$cmd")" -eq 0 ] && [ "$listed" = "$want" ]; then
		ok "trex $cmd --help lists its own options and those of every command"
	else
		not_ok "trex $cmd --help lists its own options and those of every command"
		diag "listed: $listed"
		diag "wanted: $want"
	fi
	# every scoped option that is not the command's own is refused, saying where it applies
	bad=
	for o in $scoped $ui; do
		case " $(own "$cmd") " in *" $o "*) continue ;; esac
		run_trex refused "$cmd" --demo $(arg_of "$o")
		case " $ui " in
		*" $o "*) word="is for the interactive interface" ;;
		*) word="applies to" ;;
		esac
		if [ "$(rc_of refused)" -ne 1 ] ||
			! grep -q -F -- "trex: --$o $word" "$TEST_TMP/refused.err"; then
			bad="$bad --$o"
		fi
	done
	if [ -z "$bad" ]; then
		ok "trex $cmd refuses the options of other commands, saying where they apply"
	else
		not_ok "trex $cmd refuses the options of other commands, saying where they apply"
		diag "not refused as expected:$bad"
	fi
done

# The messages name every place an option applies.
expect_message() { # LABEL WANT ARGS...
	label=$1 want=$2
	shift 2
	run_trex msg "$@"
	if [ "$(rc_of msg)" -eq 1 ] && grep -q -F -- "$want" "$TEST_TMP/msg.err"; then
		ok "$label"
	else
		not_ok "$label"
		diag_file "$TEST_TMP/msg.err"
	fi
}
expect_message "--top names its six commands" \
	"--top applies to 'trex gaps', 'trex ops', 'trex api', 'trex stalls', 'trex nodes' and 'trex diff' only" kernels --demo --top 3
expect_message "--metric names its commands and the interface" \
	"--metric applies to 'trex kernels', 'trex metrics' and the interface only" gaps --demo --metric x
expect_message "--schema: categories, gpu-time, steps, diff and the interface" \
	"--schema applies to 'trex categories', 'trex gpu-time', 'trex steps', 'trex diff' and the interface only" kernels --demo --schema x
expect_message "--theme is for the interface" \
	"--theme is for the interactive interface (no command)" info --demo --theme light

# The no-command form (the interface, or info and kernels without a terminal)
# takes the interface's options and refuses the commands' own.
expect_message "no command: --min is for the diff view of two runs" "--min in the interface is for the diff view (V) of two runs" --demo --min 5us --script 1 --force --dump-screen "$TEST_TMP/min.txt"
run_trex nocmd --demo --theme light --step 'ProfilerStep' --script 8 --force --dump-screen "$TEST_TMP/s.txt"
if [ "$(rc_of nocmd)" -eq 0 ] && grep -q 'ProfilerStep' "$TEST_TMP/s.txt"; then
	ok "no command: --theme and --step are taken by the interface"
else
	not_ok "no command: --theme and --step are taken by the interface"
	diag_file "$TEST_TMP/nocmd.err"
fi

# --dump-screen FILE is an output like the others: an existing FILE (here
# a trace named after it by mistake, which trex then replaced with the
# demo's screen) is kept without --force, before anything is loaded.
printf '[{"ph":"X","name":"mine","pid":1,"tid":1,"ts":0,"dur":5}]\n' >"$TEST_TMP/mine.json"
cp "$TEST_TMP/mine.json" "$TEST_TMP/mine.kept"
run_trex dumpkeep --script= --dump-screen "$TEST_TMP/mine.json"
if [ "$(rc_of dumpkeep)" -eq 2 ] && cmp -s "$TEST_TMP/mine.json" "$TEST_TMP/mine.kept" &&
	grep -q "mine.json: output exists (use --force)" "$TEST_TMP/dumpkeep.err"; then
	ok "--dump-screen keeps an existing file without --force, and says so"
else
	not_ok "--dump-screen keeps an existing file without --force, and says so"
	diag_file "$TEST_TMP/dumpkeep.err"
fi
run_trex dumpforce --demo --script= --force --dump-screen "$TEST_TMP/mine.json"
if [ "$(rc_of dumpforce)" -eq 0 ] && grep -q "trex: demo trace" "$TEST_TMP/mine.json" &&
	[ "$(ls "$TEST_TMP" | grep -c '^mine.json\.')" -eq 0 ]; then
	ok "--dump-screen --force replaces it, no temp file left"
else
	not_ok "--dump-screen --force replaces it, no temp file left"
	diag_file "$TEST_TMP/dumpforce.err"
fi
run_trex dumpnull --demo --script= --dump-screen /dev/null
if [ "$(rc_of dumpnull)" -eq 0 ] && [ -c /dev/null ]; then
	ok "--dump-screen /dev/null writes to the device, no --force needed"
else
	not_ok "--dump-screen /dev/null writes to the device, no --force needed"
	diag_file "$TEST_TMP/dumpnull.err"
fi

# trex --help points to the commands' own lists.
run_trex help --help
if grep -q -F "trex COMMAND --help" "$TEST_TMP/help.out"; then
	ok "trex --help says trex COMMAND --help lists a command's own options"
else
	not_ok "trex --help says trex COMMAND --help lists a command's own options"
fi
done_testing
