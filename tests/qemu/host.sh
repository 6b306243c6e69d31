#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The README's commands on a fresh Debian machine of another release than
# this one: a root filesystem of that release made with mmdebstrap, this
# machine's /proc, /sys and /dev mounted in it, a clean clone of the tree
# at $DDF_HOST_REV (HEAD), and in it, as root, each of $DDF_HOST_STEPS
# (default: make demo, make check-user, make check-vm-stock), each step's
# result and time said; fails when one fails.
#
#   host.sh RELEASE     trixie (Debian 13) or bookworm (Debian 12)
#
# "Fresh" is mmdebstrap's minbase (the Essential packages and apt) with
# ca-certificates, git and make: what a user has who cloned the tree and
# typed make. Everything else must come from the tree's make setup. The
# root is made once per recipe and cached as a tarball in
# $DDF_CACHE/host-RELEASE-HASH; each run unpacks it afresh into
# $DDF_BUILD/host-RELEASE/root (left there after the run, to look into),
# builds in the clone's own build/, and shares this machine's $DDF_CACHE
# (the kernels, roots and ccache of the lanes) and a per-release apt
# archive in it, so a warm run downloads nothing. The mounts live in a
# mount namespace of their own: they go away with the run, however it
# ends.
set -eu
# what the steps may be told from outside (one script, one kernel), as
# given, before lib.sh's defaults
[ "${2:-}" = --inside ] || DDF_HOST_PASS=""
for v in DDF_VM_TESTS DDF_STOCK_KERNELS DDF_JOBS CHECK_JOBS; do
	eval "[ -z \"\${$v+x}\" ] || DDF_HOST_PASS=\"\${DDF_HOST_PASS-} $v\""
done
export DDF_HOST_PASS
# shellcheck source=tests/qemu/lib.sh
. "$(dirname "$0")/lib.sh"

recipe=1
release=${1:?usage: host.sh trixie|bookworm}
case $release in
trixie | bookworm) ;;
*) die "host: no recipe for $release (trixie, bookworm)" ;;
esac
: "${DDF_HOST_STEPS:=demo check-user check-vm-stock}"
work=$DDF_BUILD/host-$release
root=$work/root

# The run itself, in a private mount namespace (below).
if [ "${2:-}" = --inside ]; then
	tarball=$3
	rev=$4
	# shellcheck disable=SC2317 # called by the trap
	umount_all() {
		for m in var/cache/apt/archives var/cache/ddf run tmp dev sys \
			proc; do
			umount -R "$root/$m" 2>/dev/null || true
		done
		umount "$root" 2>/dev/null || true
	}
	trap umount_all EXIT
	trap 'exit 130' INT TERM
	mount --make-rprivate /
	rm -rf "$root"
	mkdir -p "$root"
	# a mount point, as a machine's / is: the lanes' own chroots make
	# their mounts private (unshare --propagation), which needs one
	mount --bind "$root" "$root"
	tar -xf "$tarball" -C "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	# Debian 13's /tmp is a tmpfs; so is /run everywhere
	mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
	mount -t tmpfs -o mode=755 tmpfs "$root/run"
	mkdir -p "$root/run/lock" "$root/var/cache/ddf" \
		"$DDF_CACHE/host-$release-apt/partial"
	mount --bind "$DDF_CACHE" "$root/var/cache/ddf"
	mount --bind "$DDF_CACHE/host-$release-apt" \
		"$root/var/cache/apt/archives"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	git clone -q --no-hardlinks "$DDF_ROOT" "$root/root/ddf"
	git -C "$root/root/ddf" checkout -q --detach "$rev"
	set --
	for v in ${DDF_HOST_PASS-}; do
		eval "set -- \"\$@\" \"$v=\$$v\""
	done
	passed=0
	failed=0
	for step in $DDF_HOST_STEPS; do
		t0=$(now)
		if chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			"$@" sh -c "cd /root/ddf && make $step" \
			>"$work/$step.log" 2>&1; then
			pass "make $step ($(($(now) - t0)) s)"
		else
			show_tail "$work/$step.log" 60
			flunk "make $step ($(($(now) - t0)) s; log: $work/$step.log)"
		fi
	done
	echo "check-host-$release: $passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
fi

[ "$(id -u)" = 0 ] || die "host: needs root (chroot, mounts)"
command -v mmdebstrap >/dev/null ||
	die "host: no mmdebstrap (make setup, scripts/packages-vm.txt)"
command -v unshare >/dev/null || die "host: no unshare (util-linux)"

pkgs="ca-certificates git make"
sources="deb http://deb.debian.org/debian $release main
deb http://deb.debian.org/debian $release-updates main
deb http://deb.debian.org/debian-security $release-security main"
hash=$({
	echo "recipe $recipe $release"
	echo "$pkgs"
	echo "$sources"
} | sha256sum | cut -c1-12)
dir=$DDF_CACHE/host-$release-$hash

# The root's tarball, made when missing (a subshell: cache_claim exits
# when it is there).
tarball=$(
	cache_claim "host-$release" "$dir" "$dir/root.tar"
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(now)
	log "host: a fresh Debian $release root into $dir (log: $dir/build.log)"
	echo "$sources" | mmdebstrap --variant=minbase --mode=root \
		--format=tar --include="$(echo "$pkgs" | tr ' ' ',')" \
		"$release" "$dir/root.tar" - >"$dir/build.log" 2>&1 || {
		show_tail "$dir/build.log" 40
		die "host: mmdebstrap failed (log: $dir/build.log)"
	}
	log "host: the $release root in $(($(now) - t0)) s ($(du -sm \
		"$dir/root.tar" | cut -f1) MiB)"
	touch "$dir/ok"
	echo "$dir/root.tar"
)

rev=$(git -C "$DDF_ROOT" rev-parse --verify "${DDF_HOST_REV:-HEAD}^{commit}") ||
	die "host: no commit ${DDF_HOST_REV:-HEAD} in $DDF_ROOT"
mkdir -p "$work"
# one run at a time unpacks and uses $root (the lock goes with the run)
exec 8>"$work/lock"
flock -n 8 || die "host: another run is using $root"
log "host: Debian $release root, the tree at ${rev%"${rev#???????????}"}" \
	"(uncommitted changes are not in it): make $DDF_HOST_STEPS"
exec unshare --mount --propagation private "$0" "$release" --inside \
	"$tarball" "$rev"
