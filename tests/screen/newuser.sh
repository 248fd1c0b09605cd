#!/bin/sh
# The issue's "done when", for every Kineto trace of the corpus: a new user
# who learns the keys only from `?` opens the trace, finds the longest
# kernel (kernels table sorted by Max, first row, its longest instance),
# sees it selected in the timeline, jumps to its launch and back, searches,
# and quits. On three traces with steps the same user reads how long each
# step is (steps view) and where the longest GPU gap is (gaps view, first
# row, then Enter: the timeline shows it). Every key used is read from the
# help screens; the expected kernel and launch, steps and gap come from
# tests/screen/newuser.py (Python over the JSON).
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

have_corpus || skip_all "corpus not found (TREX_CORPUS)"
python=${PYTHON3:-python3}
W=250 H=60

# key_for HELP_FILE "help text": the first key bound to that line of help.
key_for() {
	awk -v want="$2" '
		index($0, want) {
			keys = substr($0, 1, index($0, want) - 1)
			sub(/^ +/, "", keys); sub(/ +$/, "", keys)
			n = index(keys, ", ")
			print (n ? substr(keys, 1, n - 1) : keys)
			exit
		}' "$1"
}

# status FILE: the selection / message row (the last one).
status() { tail -n 1 "$1"; }
# run_keys OUT KEYS TRACE: the screen after KEYS, at W x H.
run_keys() { screen_dump "$W" "$H" "$1" --script="$2" "$3"; }

# ---- learn the keys from `?` (the demo trace is enough for that) ----------------
screen_dump 120 150 "$TEST_TMP/help-timeline.txt" --demo --script='?'
k_kernels=$(key_for "$TEST_TMP/help-timeline.txt" "Show the kernels table")
k_follow=$(key_for "$TEST_TMP/help-timeline.txt" "Follow the launch, flow")
k_back=$(key_for "$TEST_TMP/help-timeline.txt" "Go back to the previous zoom")
k_search=$(key_for "$TEST_TMP/help-timeline.txt" "Search forward")
k_quit=$(key_for "$TEST_TMP/help-timeline.txt" "Quit trex")
k_steps=$(key_for "$TEST_TMP/help-timeline.txt" "Show the time of each step")
k_gaps=$(key_for "$TEST_TMP/help-timeline.txt" "Show the idle gaps of each GPU")
screen_dump 120 150 "$TEST_TMP/help-table.txt" --demo --script="$k_kernels ?"
k_sort=$(key_for "$TEST_TMP/help-table.txt" "Sort by the next column")
k_first=$(key_for "$TEST_TMP/help-table.txt" "Move to the first line")
k_enter=$(key_for "$TEST_TMP/help-table.txt" "Open the selected item")
for k in kernels follow back search quit sort first enter steps gaps; do
	eval "v=\$k_$k"
	if [ -n "$v" ]; then ok "? tells the key for $k: $v"; else not_ok "? tells the key for $k"; fi
done

# ---- each trace ----------------------------------------------------------------
for trace in "$TREX_CORPUS"/kineto/*/*; do
	name=${trace#"$TREX_CORPUS"/kineto/}
	"$python" "$TREX_SRCDIR/tests/screen/newuser.py" "$trace" >"$TEST_TMP/want" 2>"$TEST_TMP/py.err" ||
		{ not_ok "$name: newuser.py"; diag_file "$TEST_TMP/py.err"; continue; }
	if [ ! -s "$TEST_TMP/want" ]; then
		run_keys "$TEST_TMP/k.txt" "$k_kernels" "$trace"
		check "$name: no kernels: the table says so" grep -q ' 0/0 rows\|no kernels\|no rows' "$TEST_TMP/k.txt"
		continue
	fi
	# sort by Max: as many presses as there are columns from the sorted one to Max
	run_keys "$TEST_TMP/k.txt" "$k_kernels" "$trace"
	presses=$(sed -n 2p "$TEST_TMP/k.txt" | sed 's/^ *//; s/   */\n/g' |
		awk '/▼|▲/ { s = NR } $0 ~ /^Max/ { m = NR } END { if (s && m >= s) print m - s }')
	if [ -z "$presses" ]; then
		not_ok "$name: the kernels table shows a sorted column and Max"
		diag_file "$TEST_TMP/k.txt" 4
		continue
	fi
	keys="$k_kernels"
	i=0
	while [ "$i" -lt "$presses" ]; do keys="$keys $k_sort"; i=$((i + 1)); done
	keys="$keys $k_first $k_enter $k_enter"
	run_keys "$TEST_TMP/t.txt" "$keys" "$trace"
	sel=$(status "$TEST_TMP/t.txt")
	# the selected kernel is one of the longest (names may be cut at the screen edge)
	kernel=$(awk -F '\t' -v sel="$sel" '
		{ n = substr($2, 1, 150); if (index(sel, " " n) == 1) { print $2 "\t" $3; exit } }' "$TEST_TMP/want")
	if [ -n "$kernel" ]; then
		ok "$name: the longest kernel is selected in the timeline"
	else
		not_ok "$name: the longest kernel is selected in the timeline"
		diag "status: $sel"
		diag_file "$TEST_TMP/want" 3
		continue
	fi
	kname=$(printf '%s' "$kernel" | cut -f 1)
	launch=$(printf '%s' "$kernel" | cut -f 2)
	if [ "$launch" != - ]; then
		run_keys "$TEST_TMP/f.txt" "$keys $k_follow" "$trace"
		check "$name: $k_follow jumps to its launch ($launch)" \
			grep -q -F "launched by: $launch" "$TEST_TMP/f.txt"
		run_keys "$TEST_TMP/b.txt" "$keys $k_follow $k_back" "$trace"
		check "$name: $k_back comes back to the kernel" \
			sh -c "tail -n 1 '$TEST_TMP/b.txt' | grep -q -F ' $(printf '%s' "$kname" | cut -c1-60)'"
	else
		skip "$name: jump to the launch" "no runtime call shares the kernel's correlation id"
	fi
	# search for the kernel's first word
	pat=$(printf '%s' "$kname" | tr -c 'A-Za-z0-9_\n' ' ' | awk '{ print tolower(substr($1, 1, 8)) }')
	typed=$(printf '%s' "$pat" | sed 's/./& /g')
	run_keys "$TEST_TMP/s.txt" "$keys $k_search $typed Enter" "$trace"
	check "$name: $k_search$pat Enter finds matches" \
		grep -E -q "/$pat +[0-9]+/[1-9][0-9]*" "$TEST_TMP/s.txt"
	check "$name: the selected match contains '$pat'" \
		sh -c "tail -n 1 '$TEST_TMP/s.txt' | grep -i -q -- '$pat'"
	# and quit: the script ends in the quit key, so no screen is written
	rm -f "$TEST_TMP/q.txt"
	$(screen_env LINES="$H" COLUMNS="$W") "$TREX" -q --force --dump-screen "$TEST_TMP/q.txt" \
		--script="$keys $k_quit" "$trace" </dev/null >/dev/null 2>&1
	rc=$?
	check "$name: $k_quit quits with status 0" sh -c "[ $rc -eq 0 ] && [ ! -e '$TEST_TMP/q.txt' ]"
done

# ---- how long is each step, where is the longest GPU gap ------------------------
table() { "$python" "$TREX_SRCDIR/tests/screen/screen_table.py" "$@"; }
tab=$(printf '\t')
for dir in hta_ns_resolution kineto_tb_resnet50_2021 hta_nccl_data; do
	trace=$(ls "$TREX_CORPUS/kineto/$dir/"*.json.gz)
	"$python" "$TREX_SRCDIR/tests/screen/newuser.py" steps "$trace" >"$TEST_TMP/steps.want" &&
		"$python" "$TREX_SRCDIR/tests/screen/newuser.py" gap "$trace" >"$TEST_TMP/gap.want" ||
		{ not_ok "$dir: newuser.py steps, gap"; continue; }
	# each step's length, read on the steps view
	run_keys "$TEST_TMP/steps.txt" "$k_steps" "$trace"
	n=0 good=0
	while IFS=$tab read -r step dur; do
		n=$((n + 1))
		cell=$(table cell "$TEST_TMP/steps.txt" Step "$step" "Step time") &&
			table near "$dur" "$cell" && good=$((good + 1))
	done <"$TEST_TMP/steps.want"
	if [ "$n" -gt 0 ] && [ "$good" -eq "$n" ] && [ "$(table rows "$TEST_TMP/steps.txt")" -eq "$n" ]; then
		ok "$dir: $k_steps shows how long each of the $n steps is"
	else
		not_ok "$dir: $k_steps shows how long each of the $n steps is ($good right)"
		diag_file "$TEST_TMP/steps.want" 8
		diag_file "$TEST_TMP/steps.txt" 12
	fi
	# the longest GPU gap: first row of the gaps view (sorted by length)
	IFS=$tab read -r start len pid <"$TEST_TMP/gap.want" # pid: for the message (labels are cut)
	run_keys "$TEST_TMP/gaps.txt" "$k_gaps" "$trace"
	if table near "$len" "$(table row "$TEST_TMP/gaps.txt" 1 Length)" &&
		table near "$start" "$(table row "$TEST_TMP/gaps.txt" 1 Start)"; then
		ok "$dir: $k_gaps shows the longest GPU gap first ($len ns at $start ns, GPU $pid)"
	else
		not_ok "$dir: $k_gaps shows the longest GPU gap first ($len ns at $start ns, GPU $pid)"
		diag_file "$TEST_TMP/gaps.txt" 6
	fi
	# Enter: the timeline shows the gap, the work that ends it selected
	run_keys "$TEST_TMP/gap-tl.txt" "$k_gaps $k_enter" "$trace"
	if table covers "$TEST_TMP/gap-tl.txt" "$start" $((start + len)) &&
		table selected "$TEST_TMP/gap-tl.txt" $((start + len)); then
		ok "$dir: $k_enter shows the gap in the timeline, the work after it selected"
	else
		not_ok "$dir: $k_enter shows the gap in the timeline, the work after it selected"
		diag_file "$TEST_TMP/gap-tl.txt" 4
	fi
done

done_testing
