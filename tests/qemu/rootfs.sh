#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build, or reuse from the cache, the root filesystem of the packages lane
# (make check-packages, packages.sh): mmdebstrap of a Debian release with
# systemd, Debian's kernels (image, headers, initramfs), DKMS and what the
# checks use, as a tarball. Prints the tarball's path:
#
#   <dir>/rootfs.tar   the tree (nobody writes to it: each run unpacks it)
#   <dir>/ok           written last; a directory without it is rebuilt
#
#   rootfs.sh bookworm KERNEL   Debian 12 with Debian's kernel KERNEL (a
#                               release, e.g. 6.12.118+deb12-amd64)
#   rootfs.sh trixie            Debian 13 with its 6.12 kernel and the
#                               newest of trixie-backports (linux-image-amd64
#                               of each), so that DKMS builds for two kernels
#
# The directory is keyed by the recipe, the package list, the kernel
# release and the sources, so changing any of them builds a new tree (a
# trixie tree keeps the kernels it was built with until it goes unused for
# DDF_CACHE_DAYS). The packages come from the mirrors this machine's apt
# uses (/etc/apt/sources.list and sources.list.d/*, Debian's entries only):
# bookworm's entries as they are, for trixie the same mirrors with the
# release's name in place of bookworm's and trixie-backports added.
set -eu
. "$(dirname "$0")/lib.sh"

# Bump when the steps below change in a way that alters the result (the
# bookworm tree's key is as it was before trixie's came).
recipe=1
suite=${1:?usage: rootfs.sh bookworm KERNEL | trixie | trixie-build}
hooks=
case $suite in
bookworm)
	rel=${2:?usage: rootfs.sh bookworm KERNEL}
	# systemd as PID 1 with udev; Debian's kernel and its initramfs
	# (virtio_blk and ext4 are modules); DKMS with the kernel's headers
	# and pahole (the module's BTF, for XDP); what ddf-tools links (so
	# that apt needs no download at install time); tcpdump for the check.
	pkgs="systemd systemd-sysv udev dbus kmod iproute2 procps tcpdump
initramfs-tools linux-image-$rel linux-headers-$rel dkms dwarves
libmnl0 libpcap0.8 libbpf1 libxdp1 libxtables12 libelf1 zlib1g"
	name=bookworm-$(sanitize "$rel")
	;;
trixie)
	# As bookworm's, with Debian 13's names (the t64 libraries) and two
	# kernels: 6.12 (linux-image-amd64 of trixie), then the newest of
	# trixie-backports through the same meta packages, whose headers
	# bring the compiler that kernel was built with (the 6.12 packages
	# stay, as on a machine that takes its kernel from backports). openssl: DKMS makes its signing
	# key with it (dkms does not depend on it; without it DKMS leaves
	# the modules unsigned), and the lane reads the key's subject.
	recipe=2
	pkgs="systemd systemd-sysv udev dbus kmod iproute2 procps tcpdump
initramfs-tools linux-image-amd64 linux-headers-amd64 dkms dwarves openssl
libmnl0 libpcap0.8t64 libbpf1 libxdp1 libxtables12 libelf1t64 zlib1g"
	# shellcheck disable=SC2016 # mmdebstrap's hook: $1 is the tree
	hooks='chroot "$1" apt-get install -y -t trixie-backports linux-image-amd64 linux-headers-amd64'
	name=trixie
	;;
trixie-build)
	# What make deb needs on Debian 13: debian/control's Build-Depends
	# (versions left to apt) and the tree's Makefile's tools.
	recipe=2
	pkgs="build-essential make $(sed -n '/^Build-Depends:/,/^[A-Z][a-z-]*: *[^,]*$/p' \
		"$DDF_ROOT/debian/control" | sed -e 's/^Build-Depends://' \
		-e '/^[A-Z]/d' -e 's/([^)]*)//g' | tr ',\n' '  ')"
	name=trixie-build
	;;
*)
	die "rootfs: no recipe for $suite (bookworm KERNEL, trixie, trixie-build)"
	;;
esac
release=${suite%-build}

command -v mmdebstrap >/dev/null ||
	die "rootfs: no mmdebstrap (make setup, scripts/packages-vm.txt)"

sources=$(mktemp)
trap 'rm -f "$sources"' EXIT
debian_sources bookworm bookworm-updates bookworm-security >"$sources" ||
	die "rootfs: no Debian mirror for bookworm"
if [ "$release" != bookworm ]; then
	# the same mirrors, the release's suites, and its backports
	sed -i "s/ bookworm\([-a-z]*\) / $release\1 /" "$sources"
	bpo=$(sed -n "s/ $release main/ $release-backports main/p" "$sources")
	echo "$bpo" >>"$sources"
	grep -q " $release-backports " "$sources" ||
		die "rootfs: no Debian main entry in this machine's apt sources to take $release-backports from"
fi

hash=$({
	echo "recipe $recipe"
	echo "$pkgs"
	[ -z "$hooks" ] || echo "$hooks"
	cat "$sources"
} | sha256sum | cut -c1-12)
dir=$DDF_CACHE/rootfs-$name-$hash

cache_claim rootfs "$dir" "$dir/rootfs.tar"

rm -rf "$dir"
mkdir -p "$dir"
cp "$sources" "$dir/sources.list"
# a VM's root: its name, its disk, root without a password; then the
# recipe's own hook
set --
if [ "$suite" = "$release" ]; then
	# shellcheck disable=SC2016 # mmdebstrap's hooks: $1 is the tree
	set -- --customize-hook='echo ddf-vm >"$1/etc/hostname"' \
		--customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"' \
		--customize-hook='chroot "$1" passwd -d root'
fi
[ -z "$hooks" ] || set -- "$@" --customize-hook="$hooks"
t0=$(now)
log "rootfs: mmdebstrap $suite${rel:+ with kernel $rel} into $dir (log: $dir/build.log)"
# shellcheck disable=SC2086
mmdebstrap --variant=apt --mode=root --format=tar \
	--include="$(echo $pkgs | tr ' ' ',')" \
	--aptopt='APT::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	"$@" \
	"$release" "$dir/rootfs.tar.tmp" - <"$sources" >"$dir/build.log" 2>&1 || {
	show_tail "$dir/build.log" 40
	die "rootfs: mmdebstrap failed (log: $dir/build.log)"
}
mv "$dir/rootfs.tar.tmp" "$dir/rootfs.tar"
t1=$(now)
echo "$((t1 - t0))" >"$dir/build-seconds"
log "rootfs: built in $((t1 - t0)) s ($(du -m "$dir/rootfs.tar" | cut -f1) MiB)"
touch "$dir/ok"
echo "$dir/rootfs.tar"
