#!/bin/sh
# End-to-end: the command line. Options, exit codes (0 ok, 1 usage, 2 input
# or output problems), safe output files, CSV/JSON output, the demo, and
# kernels by shape.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

data=$TREX_SRCDIR/tests/data
t=$TEST_TMP

# ---- help, version, usage errors ----------------------------------------------
run_trex help --help
if [ "$(rc_of help)" -eq 0 ] && grep -qi usage "$t/help.out"; then
	ok "--help exits 0 and prints a usage"
else
	not_ok "--help exits 0 and prints a usage"
	diag "exit $(rc_of help)"
	diag_file "$t/help.out"
	diag_file "$t/help.err"
fi

run_trex version --version
if [ "$(rc_of version)" -eq 0 ] && grep -q '[0-9]\.[0-9]' "$t/version.out"; then
	ok "--version exits 0 and prints a version"
else
	not_ok "--version exits 0 and prints a version"
	diag "exit $(rc_of version)"
	diag_file "$t/version.out"
fi

one_line_naming() { # NAME WORD: stderr of run NAME is exactly one line containing WORD
	[ "$(wc -l <"$t/$1.err")" -eq 1 ] && grep -q -F -- "$2" "$t/$1.err"
}

usage_message() { # NAME WORD: a usage error: one line naming WORD, then the --help hint
	[ "$(wc -l <"$t/$1.err")" -le 2 ] && head -n 1 "$t/$1.err" | grep -q -F -- "$2" &&
		{ [ "$(wc -l <"$t/$1.err")" -eq 1 ] || sed -n 2p "$t/$1.err" | grep -q -F -- --help; }
}

run_trex badopt --no-such-option "$data/array.json"
if [ "$(rc_of badopt)" -eq 1 ] && usage_message badopt --no-such-option; then
	ok "an unknown option exits 1 with a one-line message naming it"
else
	not_ok "an unknown option exits 1 with a one-line message naming it"
	diag "exit $(rc_of badopt)"
	diag_file "$t/badopt.err"
fi

run_trex badcmd info --format yaml "$data/array.json"
if [ "$(rc_of badcmd)" -eq 1 ] && usage_message badcmd yaml; then
	ok "an unknown --format exits 1 with a one-line message naming it"
else
	not_ok "an unknown --format exits 1 with a one-line message naming it"
	diag "exit $(rc_of badcmd)"
	diag_file "$t/badcmd.err"
fi

missing=$t/no-such-dir/missing.json
for cmd in info kernels; do
	run_trex "missing-$cmd" "$cmd" "$missing"
	if [ "$(rc_of "missing-$cmd")" -eq 2 ] && one_line_naming "missing-$cmd" "$missing"; then
		ok "trex $cmd on a missing file exits 2 naming the file"
	else
		not_ok "trex $cmd on a missing file exits 2 naming the file"
		diag "exit $(rc_of "missing-$cmd")"
		diag_file "$t/missing-$cmd.err"
	fi
done

# ---- text, JSON and CSV output ------------------------------------------------
for cmd in info kernels; do
	run_trex "text-$cmd" "$cmd" "$data/object.json"
	if [ "$(rc_of "text-$cmd")" -eq 0 ] && [ -s "$t/text-$cmd.out" ] && [ ! -s "$t/text-$cmd.err" ]; then
		ok "trex $cmd prints a text report"
	else
		not_ok "trex $cmd prints a text report"
		diag "exit $(rc_of "text-$cmd")"
		diag_file "$t/text-$cmd.err"
	fi
	run_trex "json-$cmd" "$cmd" --format json "$data/kernels.json"
	run_py json "$t/json-$cmd.out"
done

run_trex csv kernels --format csv "$data/kernels.json"
run_trex csvjson kernels --format json "$data/kernels.json"
if [ "$(rc_of csv)" -eq 0 ] && [ "$(rc_of csvjson)" -eq 0 ]; then
	run_py csv "$t/csv.out" "$t/csvjson.out" 'say "hi", then bye'
else
	not_ok "trex kernels --format csv/json exit 0"
	diag_file "$t/csv.err"
	diag_file "$t/csvjson.err"
fi

# ---- -o: atomic, refuses to clobber without --force -----------------------------
out_dir=$t/out
mkdir -p "$out_dir"
out=$out_dir/kernels.csv
run_trex o1 kernels --format csv -o "$out" "$data/kernels.json"
if [ "$(rc_of o1)" -eq 0 ] && cmp -s "$out" "$t/csv.out" && [ ! -s "$t/o1.out" ]; then
	ok "-o writes the report to the file (same bytes as stdout)"
else
	not_ok "-o writes the report to the file (same bytes as stdout)"
	diag "exit $(rc_of o1)"
	diag_file "$t/o1.err"
fi

cp "$out" "$t/before"
run_trex o2 kernels --format json -o "$out" "$data/kernels.json"
if [ "$(rc_of o2)" -eq 2 ] && cmp -s "$out" "$t/before" && one_line_naming o2 "$out"; then
	ok "-o refuses to replace an existing file without --force (exit 2)"
else
	not_ok "-o refuses to replace an existing file without --force (exit 2)"
	diag "exit $(rc_of o2)"
	diag_file "$t/o2.err"
fi

run_trex o3 kernels --format json --force -o "$out" "$data/kernels.json"
if [ "$(rc_of o3)" -eq 0 ] && cmp -s "$out" "$t/csvjson.out"; then
	ok "-o --force replaces the file"
else
	not_ok "-o --force replaces the file"
	diag "exit $(rc_of o3)"
	diag_file "$t/o3.err"
fi

run_trex o4 kernels --format csv -o "$out_dir/new.csv" "$missing"
run_trex o5 kernels --format csv -o "$t/no-such-dir/x.csv" "$data/kernels.json"
if [ "$(rc_of o4)" -eq 2 ] && [ "$(rc_of o5)" -eq 2 ] && [ "$(ls -A "$out_dir")" = kernels.csv ] &&
	[ ! -e "$t/no-such-dir" ]; then
	ok "-o writes nothing when loading or creating the file fails (no partial or temp files)"
else
	not_ok "-o writes nothing when loading or creating the file fails (no partial or temp files)"
	diag "exits $(rc_of o4) $(rc_of o5); $out_dir holds: $(ls -A "$out_dir" | tr '\n' ' ')"
	diag_file "$t/o4.err"
	diag_file "$t/o5.err"
fi

# ---- -o FILE: the format from the extension, unless --format -----------------------
ext=$t/ext
mkdir -p "$ext"
# same_as NAME FILE ARGS...: FILE holds what `trex ARGS` prints (run NAME)
same_as() {
	name=$1 file=$2
	shift 2
	run_trex "$name" "$@"
	[ "$(rc_of "$name")" -eq 0 ] && [ -s "$file" ] && cmp -s "$file" "$t/$name.out"
}
for cmd in kernels categories gpu-time info; do
	for fmt in csv json; do
		[ "$cmd/$fmt" = info/csv ] && continue
		run_trex "x-$cmd-$fmt" "$cmd" -o "$ext/$cmd.$fmt" "$data/kernels.json"
		if [ "$(rc_of "x-$cmd-$fmt")" -eq 0 ] &&
			same_as "f-$cmd-$fmt" "$ext/$cmd.$fmt" "$cmd" --format "$fmt" "$data/kernels.json"; then
			ok "trex $cmd -o X.$fmt writes $fmt"
		else
			not_ok "trex $cmd -o X.$fmt writes $fmt"
			diag "exit $(rc_of "x-$cmd-$fmt")"
			diag_file "$t/x-$cmd-$fmt.err"
			diag_file "$ext/$cmd.$fmt" 5
		fi
	done
done
run_trex x-upper kernels -o "$ext/K.JSON" "$data/kernels.json"
run_trex x-txt kernels -o "$ext/k.txt" "$data/kernels.json"
run_trex x-forced kernels --format text -o "$ext/forced.json" "$data/kernels.json"
if cmp -s "$ext/K.JSON" "$t/f-kernels-json.out" && same_as x-text "$ext/k.txt" kernels "$data/kernels.json" &&
	cmp -s "$ext/forced.json" "$ext/k.txt"; then
	ok "-o: .JSON is JSON, .txt is text, --format text wins over .json"
else
	not_ok "-o: .JSON is JSON, .txt is text, --format text wins over .json"
	diag_file "$ext/forced.json" 3
fi
run_trex x-infocsv info -o "$ext/info.csv" "$data/kernels.json"
run_trex x-default -o "$ext/default.json" "$data/kernels.json"
if [ "$(rc_of x-infocsv)" -eq 1 ] && usage_message x-infocsv info.csv &&
	[ "$(rc_of x-default)" -eq 1 ] && usage_message x-default default.json &&
	[ ! -e "$ext/info.csv" ] && [ ! -e "$ext/default.json" ]; then
	ok "-o: a format the command does not write is a usage error naming the file"
else
	not_ok "-o: a format the command does not write is a usage error naming the file"
	diag "exits $(rc_of x-infocsv) $(rc_of x-default)"
	diag_file "$t/x-infocsv.err"
	diag_file "$t/x-default.err"
fi

# ---- the demo -----------------------------------------------------------------------
run_trex demo --demo
if [ "$(rc_of demo)" -eq 0 ] && grep -qi kernel "$t/demo.out"; then
	ok "--demo runs and prints reports"
else
	not_ok "--demo runs and prints reports"
	diag "exit $(rc_of demo)"
	diag_file "$t/demo.out"
	diag_file "$t/demo.err"
fi

# ---- kernels by shape ---------------------------------------------------------------
shape_check() { # LABEL FILE
	run_trex byname kernels --format json "$2"
	run_trex byshape kernels --format json --by shape "$2"
	if [ "$(rc_of byname)" -eq 0 ] && [ "$(rc_of byshape)" -eq 0 ]; then
		run_py shape "$t/byname.out" "$t/byshape.out"
	else
		not_ok "trex kernels --by shape exits 0 ($1)"
		diag_file "$t/byname.err"
		diag_file "$t/byshape.err"
	fi
}
shape_check tests/data/kernels.json "$data/kernels.json"
if have_corpus; then
	shape_check hta_nccl_data "$TREX_CORPUS/kineto/hta_nccl_data/nccl_data.json.gz"
fi

# Ctrl-C while trex waits on a slow pipe: it must stop at once with 130
# and a one-line message, not when the writer finally closes. The FIFO
# keeps trex blocked in read() until the signal, so there is no race.
sigint_check() {
	fifo=$t/slow.fifo
	rm -f "$fifo"
	mkfifo "$fifo" || return 1
	{ printf '[{"ph":"X","name":"a","pid":0,"tid":0,"ts":1,"dur":1},'; sleep 20; } >"$fifo" &
	writer=$!
	"$TREX" kernels -q "$fifo" >"$t/sigint.out" 2>"$t/sigint.err" &
	pid=$!
	sleep 1
	kill -INT "$pid"
	waited=0
	while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 50 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	alive=no
	kill -0 "$pid" 2>/dev/null && alive=yes && kill -KILL "$pid"
	wait "$pid"
	rc=$?
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	[ "$alive" = no ] && [ "$rc" -eq 130 ] && [ "$(wc -l <"$t/sigint.err")" -eq 1 ] &&
		grep -q 'cancelled' "$t/sigint.err"
}
if sigint_check; then
	ok "Ctrl-C while reading a slow pipe: exits 130 at once with one line"
else
	not_ok "Ctrl-C while reading a slow pipe: exits 130 at once with one line"
	diag "rc=$rc alive=$alive"
	diag_file "$t/sigint.err"
fi

done_testing
