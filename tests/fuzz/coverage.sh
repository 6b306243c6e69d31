#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make fuzz-coverage: each target's coverage build (clang's source-based
# coverage, no sanitizers) runs its seeds and regression inputs once;
# llvm-cov then reports lines and branches per file of ddf_core and
# ddfctl: COV_DIR/NAME.txt per target, COV_DIR/report.txt for all.
#
# Usage: tests/fuzz/coverage.sh COV_DIR TARGET...
set -eu

dir=$1
shift
v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
profdata=$(command -v "llvm-profdata-$v" || command -v llvm-profdata || true)
cov=$(command -v "llvm-cov-$v" || command -v llvm-cov || true)
if [ -z "$profdata" ] || [ -z "$cov" ]; then
	echo "fuzz-coverage: no llvm-profdata or llvm-cov for clang $v" \
		"(apt install llvm-$v)"
	exit 1
fi
rm -rf "$dir/prof" && mkdir -p "$dir/prof"
objs=
for t in "$@"; do
	files=$(find "tests/fuzz/corpus/$t" "tests/fuzz/regress/$t" -type f \
		2>/dev/null | sort)
	[ -n "$files" ] || { echo "fuzz-coverage: $t has no input"; exit 1; }
	# shellcheck disable=SC2086 # one argument per file
	LLVM_PROFILE_FILE="$dir/prof/$t.profraw" "$dir/fuzz_$t" \
		-close_fd_mask=3 $files >"$dir/prof/$t.log" 2>&1 || {
		echo "fuzz-coverage: $t: an input fails (see $dir/prof/$t.log)"
		exit 1
	}
	"$profdata" merge -sparse "$dir/prof/$t.profraw" -o "$dir/prof/$t.profdata"
	"$cov" report "$dir/fuzz_$t" -instr-profile="$dir/prof/$t.profdata" \
		ddf_core tools/ddfctl >"$dir/$t.txt"
	echo "fuzz-coverage: $t: $(echo "$files" | wc -l) inputs; $(tail -n 1 "$dir/$t.txt" | \
		awk '{ print "lines", $(NF-3), "branches", $NF }') of the files it links ($dir/$t.txt)"
	objs="$objs -object $dir/fuzz_$t"
done
"$profdata" merge -sparse "$dir"/prof/*.profraw -o "$dir/prof/all.profdata"
# shellcheck disable=SC2086
"$cov" report ${objs# -object } -instr-profile="$dir/prof/all.profdata" \
	ddf_core tools/ddfctl >"$dir/report.txt"
cat "$dir/report.txt"
