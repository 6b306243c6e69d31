#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No fused multiply-add where a filter is sized or its words are chosen:
# each file of the core and of ddfctl that computes in floating point,
# compiled with the build's flags for a CPU that has the instruction, must
# not contain one. A fused a * b + c rounds once where two operations round
# twice, and moves a shape's boundary. arm64 and s390x have it; x86_64 only
# when the compiler is told (-mfma), so an x86_64 build alone never shows it.
#
#   tests/core/fp_contract.sh CC [FLAGS...]     (from make check-core)
set -eu
cd "$(dirname "$0")/../.."
machine=$("$@" -dumpmachine)
case $machine in
x86_64-*) fma=-mfma pat='vfn?m(add|sub)' ;;
aarch64-*) fma='' pat='fn?m(add|sub)|fml[as]' ;;
s390x-*) fma='' pat='m[as][de]br?|[vw]fn?m[as][ds]b' ;;
*)
	echo "fp-contract: fused multiply-adds of $machine unknown: not checked"
	exit 0
	;;
esac
# an instruction line of the assembly: the mnemonic, then its operands
insn="^[[:space:]]+($pat)[[:alnum:]]*[[:space:]]"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
n=0
bad=0
# shellcheck disable=SC2013 # file names without spaces
for f in $(grep -lwE 'double|float' ddf_core/*.c tools/ddfctl/*.c); do
	# shellcheck disable=SC2086 # $fma: one flag or none
	"$@" $fma -g0 -S "$f" -o "$tmp"
	n=$((n + 1))
	fused=$(grep -cE "$insn" "$tmp" || true)
	if [ "$fused" != 0 ]; then
		echo "fp-contract: $f: $fused fused multiply-adds"
		bad=1
	fi
done
[ "$bad" = 0 ] || {
	echo "fp-contract: build with -ffp-contract=off (the Makefile's CFLAGS)"
	exit 1
}
echo "fp-contract: $n files computing in floating point, no fused multiply-add ($machine${fma:+ $fma})"
