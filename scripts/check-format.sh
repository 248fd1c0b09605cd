#!/usr/bin/env bash
# Checks that every C source and header the repository tracks is formatted
# as .clang-format says, with Debian 12's clang-format (14): other major
# versions break lines differently, so they are refused rather than trusted.
#
#   scripts/check-format.sh        list the files that differ; exit 1 if any
#   scripts/check-format.sh --fix  reformat them in place
#
# Exit status: 0 clean (or fixed), 1 files differ, 2 no usable clang-format.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 2

tool=${CLANG_FORMAT:-}
if [ -z "$tool" ]; then
	for t in clang-format-14 clang-format; do
		command -v "$t" >/dev/null 2>&1 && { tool=$t; break; }
	done
fi
if [ -z "$tool" ]; then
	echo "check-format: clang-format not found (apt-get install clang-format)" >&2
	exit 2
fi
major=$("$tool" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
	echo "check-format: $tool is version $major; the tree is formatted with 14" >&2
	exit 2
fi

# Tracked sources when this is a git checkout, else every one under the
# source directories (a release tarball).
if git rev-parse --git-dir >/dev/null 2>&1; then
	files=$(git ls-files -- 'src/*.[ch]' 'include/*.[ch]' 'tests/*.[ch]')
else
	files=$(find src include tests -name '*.[ch]' -type f | sort)
fi

if [ "${1:-}" = --fix ]; then
	printf '%s\n' $files | xargs "$tool" -i
	exit 0
fi
bad=0
for f in $files; do
	if ! "$tool" --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "check-format: $f differs from clang-format (scripts/check-format.sh --fix)"
		bad=$((bad + 1))
	fi
done
[ "$bad" -eq 0 ] || { echo "check-format: $bad files to reformat"; exit 1; }
echo "check-format: $(echo $files | wc -w) files formatted"
