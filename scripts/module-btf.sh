#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# module-btf.sh KDIR KO...: give modules built against the kernel tree (or
# headers) KDIR the BTF that XDP programs need to call nf_ddf's kfunc.
#
# Kbuild writes a module's BTF itself when KDIR has a vmlinux, pahole and
# resolve_btfids (Debian's 6.12 headers do); Debian's 6.1 headers have no
# vmlinux. Then the base BTF comes from the running kernel
# (/sys/kernel/btf/vmlinux) when KDIR is its tree, else from the kernel's
# image (/boot/vmlinuz-RELEASE, unpacked; an arm64 Image as it is); pahole (Debian: dwarves) writes
# the module's BTF against it and resolve_btfids (Debian: linux-kbuild-6.12,
# which linux-headers-6.12-amd64 brings) fills in the kfunc's BTF id.
# Without them the module is left without BTF, which costs only XDP: this
# says so and exits 0.
set -eu

kdir=$1
shift
skip() {
	echo "module-btf: $*: nf_ddf.ko is built without BTF (no XDP kfunc)" >&2
	exit 0
}

# the release the modules report (Debian's kernel.release file is not it)
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$kdir/include/generated/utsrelease.h" 2>/dev/null)
[ -n "$rel" ] || skip "no kernel release in $kdir"
grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$kdir/.config" 2>/dev/null ||
	skip "kernel $rel has no module BTF (CONFIG_DEBUG_INFO_BTF_MODULES)"

need=
for ko; do
	readelf -S "$ko" | grep -q ' \.BTF ' || need="$need $ko"
done
[ -n "$need" ] || exit 0

command -v pahole >/dev/null || skip "no pahole (apt install dwarves)"
ids=$kdir/tools/bpf/resolve_btfids/resolve_btfids
if [ ! -x "$ids" ]; then
	ids=$(ls -d /usr/lib/linux-kbuild-*/tools/bpf/resolve_btfids/resolve_btfids \
		2>/dev/null | sort -V | tail -n 1)
	[ -n "$ids" ] || skip "no resolve_btfids (apt install linux-headers-6.12-amd64)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base= from=
# where the kernel's image is (DDF_BOOT_DIR: another architecture's root)
boot=${DDF_BOOT_DIR:-/boot}
if [ -f "$kdir/vmlinux" ]; then
	base=$kdir/vmlinux
elif [ "$(uname -r)" = "$rel" ] && [ -r /sys/kernel/btf/vmlinux ]; then
	base=/sys/kernel/btf/vmlinux
elif [ -r "$boot/vmlinuz-$rel" ]; then
	img=$boot/vmlinuz-$rel
	if [ "$(dd if="$img" bs=1 skip=56 count=4 2>/dev/null)" = ARMd ]; then
		# an arm64 Image is the kernel itself, uncompressed: its BTF
		# is a raw blob in it (magic 0xeb9f, version 1, a 24-byte
		# header, then the types and the strings)
		python3 - "$img" "$tmp/vmlinux.btf" <<-'EOP' &&
			import struct, sys
			d = open(sys.argv[1], "rb").read()
			i = d.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00")
			while i >= 0:
			    to, tl, so, sl = struct.unpack_from("<IIII", d, i + 8)
			    if to == 0 and so == tl and tl > 1 << 20:
			        open(sys.argv[2], "wb").write(d[i:i + 24 + so + sl])
			        sys.exit(0)
			    i = d.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00", i + 1)
			sys.exit(1)
		EOP
			base=$tmp/vmlinux.btf from=$img
	else
		# the image's payload is the ELF vmlinux, .BTF included: find
		# the first compressed stream that unpacks to it
		for m in 'xz:\xfd\x37\x7a\x58\x5a\x00' 'zstd:\x28\xb5\x2f\xfd' \
			 'gzip:\x1f\x8b\x08' 'lz4:\x02\x21\x4c\x18'; do
			off=$(LC_ALL=C grep -obUaP "${m#*:}" "$img" 2>/dev/null |
				head -n 1 | cut -d: -f1)
			[ -n "$off" ] || continue
			tail -c +"$((off + 1))" "$img" | "${m%%:*}" -dc \
				>"$tmp/vmlinux" 2>/dev/null || true
			if readelf -S "$tmp/vmlinux" 2>/dev/null | grep -q ' \.BTF '; then
				base=$tmp/vmlinux from=$img
				break
			fi
		done
	fi
	[ -n "$base" ] || skip "no BTF found in $img"
else
	skip "no base BTF for $rel (no $kdir/vmlinux, no $boot/vmlinuz-$rel)"
fi

for ko in $need; do
	LLVM_OBJCOPY=${OBJCOPY:-objcopy} pahole -J --btf_gen_floats \
		--btf_base "$base" "$ko" || skip "pahole failed on $ko"
	"$ids" -b "$base" "$ko" || skip "resolve_btfids failed on $ko"
	echo "module-btf: $ko: BTF against ${from:-$base}"
done
