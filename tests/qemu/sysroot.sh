#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian bookworm for another architecture, unpacked into a directory that
# serves three ends (prints its path):
#
#   - a cross compiler's --sysroot: libc, libmnl, libxdp, libbpf, libpcap
#     and libxtables with their headers (make cross, tests/cross/);
#   - qemu-user's -L: what those programs load at run time;
#   - the arm64 VMs (make check-arm64): busybox, bash, iproute2, nft,
#     iptables, kmod, ethtool, tcpdump and xdp-tools of that architecture,
#     with Debian's kernels $DDF_ARM64_KERNELS (image, modules, headers).
#
#   sysroot.sh ARCH     arm64 or s390x (the kernels: arm64 only)
#
# Unpacked only (mmdebstrap --variant=extract): nothing of the other
# architecture runs, so no emulation is needed to make it. /usr merged,
# as on this machine and in the VMs. Cached in
# $DDF_CACHE/sysroot-ARCH-HASH, keyed by the recipe, the package list and
# the mirrors of this machine's apt entries (lib.sh, debian_sources).
set -eu
. "$(dirname "$0")/lib.sh"

recipe=3
arch=${1:?usage: sysroot.sh arm64|s390x}

pkgs="libc6-dev linux-libc-dev libmnl-dev libxdp-dev libbpf-dev libpcap-dev
libxtables-dev busybox-static bash iproute2 nftables iptables kmod ethtool
tcpdump xdp-tools"
case $arch in
arm64)
	# Debian's 6.1 and 6.12, as the x86_64 stock lane has them
	: "${DDF_ARM64_KERNELS:=linux-image-arm64 linux-headers-arm64 linux-image-6.12-arm64 linux-headers-6.12-arm64}"
	pkgs="$pkgs $DDF_ARM64_KERNELS bpftool"
	;;
s390x) ;;
*) die "sysroot: no recipe for $arch (arm64, s390x)" ;;
esac

command -v mmdebstrap >/dev/null ||
	die "sysroot: no mmdebstrap (make setup, scripts/packages-vm.txt)"
sources=$(mktemp)
trap 'rm -f "$sources"' EXIT
debian_sources bookworm bookworm-updates bookworm-security >"$sources" ||
	die "sysroot: no Debian mirror for bookworm"

hash=$({
	echo "recipe $recipe $arch"
	echo "$pkgs"
	cat "$sources"
} | sha256sum | cut -c1-12)
dir=$DDF_CACHE/sysroot-$arch-$hash

cache_claim sysroot "$dir" "$dir/root"

rm -rf "$dir"
mkdir -p "$dir"
t0=$(now)
log "sysroot: Debian bookworm $arch unpacked into $dir (log: $dir/build.log)"
# shellcheck disable=SC2086
mmdebstrap --variant=extract --mode=root --arch="$arch" \
	--format=directory --include="$(echo $pkgs | tr ' ' ',')" \
	--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	bookworm "$dir/root" - <"$sources" >"$dir/build.log" 2>&1 || {
	show_tail "$dir/build.log" 40
	die "sysroot: mmdebstrap failed (log: $dir/build.log)"
}
# Links to absolute paths (libfoo.so -> /lib/...) made relative: they
# resolve inside the tree both here (the linker's --sysroot, qemu-user's
# -L) and as the VMs' root.
find "$dir/root" -type l | while read -r l; do
	t=$(readlink "$l")
	case $t in
	/*) ln -sfn "$(realpath -s -m --relative-to="$(dirname "$l")" \
		"$dir/root$t")" "$l" ;;
	esac
done
# the kernels' module indexes, which their packages' scripts would make
for m in "$dir/root"/lib/modules/*; do
	[ ! -d "$m" ] || depmod -b "$dir/root" "${m##*/}"
done
log "sysroot: $arch in $(($(now) - t0)) s ($(du -sm "$dir/root" | cut -f1) MiB)"
touch "$dir/ok"
echo "$dir/root"
