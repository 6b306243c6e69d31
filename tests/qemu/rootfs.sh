#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build, or reuse from the cache, the Debian 12 root filesystem of the
# packages lane (make check-packages, packages.sh): mmdebstrap of bookworm
# with systemd, Debian's kernel RELEASE (image, headers, its initramfs),
# DKMS and what the checks use, as a tarball. Prints the tarball's path:
#
#   <dir>/rootfs.tar   the tree (nobody writes to it: each run unpacks it)
#   <dir>/ok           written last; a directory without it is rebuilt
#
#   rootfs.sh RELEASE
#
# The directory is keyed by the recipe, the package list, the kernel
# release and the sources (this machine's Debian entries), so changing any
# of them builds a new tree. The packages come from the mirrors this
# machine's apt uses (/etc/apt/sources.list and sources.list.d/*, Debian's
# entries only).
set -eu
. "$(dirname "$0")/lib.sh"

# Bump when the steps below change in a way that alters the result.
recipe=1
rel=${1:?usage: rootfs.sh RELEASE}

# systemd as PID 1 with udev; Debian's kernel and its initramfs (virtio_blk
# and ext4 are modules); DKMS with the kernel's headers and pahole (the
# module's BTF, for XDP); what ddf-tools links (so that apt needs no
# download at install time); tcpdump for the check.
pkgs="systemd systemd-sysv udev dbus kmod iproute2 procps tcpdump
initramfs-tools linux-image-$rel linux-headers-$rel dkms dwarves
libmnl0 libpcap0.8 libbpf1 libxdp1 libxtables12 libelf1 zlib1g"

command -v mmdebstrap >/dev/null ||
	die "rootfs: no mmdebstrap (make setup, scripts/packages-vm.txt)"

sources=$(mktemp)
trap 'rm -f "$sources"' EXIT
debian_sources >"$sources" ||
	die "rootfs: no bookworm entries in this machine's apt sources"

hash=$({
	echo "recipe $recipe"
	echo "$pkgs"
	cat "$sources"
} | sha256sum | cut -c1-12)
dir=$DDF_CACHE/rootfs-bookworm-$(sanitize "$rel")-$hash

cache_claim rootfs "$dir" "$dir/rootfs.tar"

rm -rf "$dir"
mkdir -p "$dir"
cp "$sources" "$dir/sources.list"
t0=$(now)
log "rootfs: mmdebstrap bookworm with kernel $rel into $dir (log: $dir/build.log)"
# shellcheck disable=SC2086
mmdebstrap --variant=apt --mode=root --format=tar \
	--include="$(echo $pkgs | tr ' ' ',')" \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--customize-hook='echo ddf-vm >"$1/etc/hostname"' \
	--customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"' \
	--customize-hook='chroot "$1" passwd -d root' \
	bookworm "$dir/rootfs.tar.tmp" - <"$sources" >"$dir/build.log" 2>&1 || {
	show_tail "$dir/build.log" 40
	die "rootfs: mmdebstrap failed (log: $dir/build.log)"
}
mv "$dir/rootfs.tar.tmp" "$dir/rootfs.tar"
t1=$(now)
echo "$((t1 - t0))" >"$dir/build-seconds"
log "rootfs: built in $((t1 - t0)) s ($(du -m "$dir/rootfs.tar" | cut -f1) MiB)"
touch "$dir/ok"
echo "$dir/rootfs.tar"
