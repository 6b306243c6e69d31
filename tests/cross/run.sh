#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-cross: the core and replay on other CPUs, under qemu-user.
# For each ARCH (arm64: little-endian, unsigned char; s390x: big-endian):
#
#   - Debian bookworm's libraries of ARCH unpacked (tests/qemu/sysroot.sh)
#   - ddf_core_tests and ddfctl cross-built against them with Debian's
#     cross compiler, in $DDF_BUILD/cross/ARCH
#   - every suite of ddf_core_tests passes there: the filters' answers
#     and bits hold the digests recorded on x86_64 (ddf_apbf_digest),
#     SipHash its published vectors, the key and NH their references
#   - the key's hashes are this machine's: ddf_craft, which selects
#     packets by the core's key hash under a seed, writes the same capture
#   - tests/cross/replay.sh: every capture replayed with one seed by
#     this machine's ddfctl and by ARCH's decides the same, record by record
#   - tests/cross/size.sh: every filter kind sized over a grid of windows
#     and rates that are not round, and at the rates of the shape
#     boundaries ddf_size_grid finds here by search, gives the same
#     shape and rates to the bit; beside ddf_core_tests, which leaves
#     the second CPU idle
#
#   tests/cross/run.sh ARCH...
#
# Ends with "check-cross: N passed, N failed (T s)"; exits 1 on a failure.
set -eu
. "$(dirname "$0")/../qemu/lib.sh"

[ $# -gt 0 ] || set -- arm64 s390x
t_all=$(now)
passed=0
failed=0

# The sizing requests, with the shape boundaries found here (size.sh)
t0=$(now)
requests=$DDF_BUILD/cross/size-requests.txt
mkdir -p "$DDF_BUILD/cross"
if "$DDF_BUILD/ddf_size_grid" requests >"$requests"; then
	pass "sizing: $(wc -l <"$requests") requests, $(grep -c '^edge ' "$requests") of them on shape boundaries found here, in $(($(now) - t0)) s"
else
	flunk "sizing: ddf_size_grid requests"
	: >"$requests"
fi

for arch in "$@"; do
	case $arch in
	arm64) triplet=aarch64-linux-gnu qemu=qemu-aarch64-static ;;
	s390x) triplet=s390x-linux-gnu qemu=qemu-s390x-static ;;
	*) die "check-cross: no such architecture '$arch' (arm64, s390x)" ;;
	esac
	echo "check-cross: $arch"
	t0=$(now)
	if ! root=$("$DDF_ROOT/tests/qemu/sysroot.sh" "$arch"); then
		flunk "$arch: Debian's $arch libraries (tests/qemu/sysroot.sh)"
		continue
	fi
	out=$DDF_BUILD/cross/$arch
	mkdir -p "$out"
	if ! make -C "$DDF_ROOT" --no-print-directory -j"$DDF_JOBS" \
		B="$out" CC="$triplet-gcc --sysroot=$root" \
		"$out/ddf_core_tests" "$out/ddfctl" "$out/robust/ddf_craft" \
		"$out/ddf_size_grid" >"$out/build.log" 2>&1; then
		show_tail "$out/build.log" 30
		flunk "$arch: cross-build ddf_core_tests and ddfctl ($out/build.log)"
		continue
	fi
	pass "$arch: ddf_core_tests and ddfctl cross-built in $(($(now) - t0)) s"

	"$DDF_ROOT/tests/cross/size.sh" "$arch" "$requests" "$DDF_BUILD" \
		"$out" "$qemu" -L "$root" >"$out/size.log" 2>&1 &
	size_pid=$!

	t0=$(now)
	if "$qemu" -L "$root" "$out/ddf_core_tests" >"$out/core.log" 2>&1; then
		pass "$arch: ddf_core_tests under $qemu: $(tail -n 1 "$out/core.log") in $(($(now) - t0)) s"
	else
		grep -E '^not ok|FAIL' "$out/core.log" | head -n 20 | sed 's/^/       /'
		flunk "$arch: ddf_core_tests under $qemu: $(tail -n 1 "$out/core.log") ($out/core.log)"
	fi

	# The key's hashes and the filter's block mapping, directly:
	# ddf_craft keeps the candidates whose blocks fall where it wants, by
	# the core's ddf_key_hash() under a seed, so its capture is the same
	# bytes only if every candidate hashed to the same numbers.
	t0=$(now)
	craft="-s 00112233445566778899aabbccddeeff -w 5000 -f 1e-2 -n 20000"
	# shellcheck disable=SC2086
	if "$DDF_BUILD/robust/ddf_craft" $craft "$out/craft-here.pcap" \
		>"$out/craft-here.txt" 2>&1 &&
		"$qemu" -L "$root" "$out/robust/ddf_craft" $craft \
			"$out/craft.pcap" >"$out/craft.txt" 2>&1 &&
		cmp -s "$out/craft-here.pcap" "$out/craft.pcap" &&
		cmp -s "$out/craft-here.txt" "$out/craft.txt"; then
		pass "$arch: key hashes: ddf_craft's capture byte for byte as here ($(sed -n 's/.*from \([0-9]*\) candidates hashed.*/\1/p' "$out/craft.txt") candidates hashed) in $(($(now) - t0)) s"
	else
		flunk "$arch: key hashes: ddf_craft's capture differs from this machine's ($out/craft.pcap, $out/craft-here.pcap)"
	fi

	t0=$(now)
	if "$DDF_ROOT/tests/cross/replay.sh" "$arch" "$DDF_BUILD" \
		"$DDF_BUILD/ddfctl" "$qemu" -L "$root" "$out/ddfctl" \
		>"$out/replay.log" 2>&1; then
		pass "$arch: $(tail -n 1 "$out/replay.log") ($(grep -m1 ' captures, ' "$out/replay.log" | sed 's/^replay ([^)]*): //')), in $(($(now) - t0)) s"
	else
		grep -E '^not ok' -A6 "$out/replay.log" | head -n 30 | sed 's/^/       /'
		flunk "$arch: $(tail -n 1 "$out/replay.log") ($out/replay.log)"
	fi

	if wait "$size_pid"; then
		pass "$arch: $(tail -n 1 "$out/size.log")"
	else
		grep -E '^not ok' -A6 "$out/size.log" | head -n 30 | sed 's/^/       /'
		flunk "$arch: $(tail -n 1 "$out/size.log") ($out/size.log)"
	fi
done

echo "check-cross: $passed passed, $failed failed ($(($(now) - t_all)) s)"
[ "$failed" = 0 ]
