#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-packages-vm: ddf's Debian packages on a Debian 12 system with
# systemd, across a real reboot, in QEMU (TCG).
#
#   packages.sh [DEB_DIR]    (default $DDF_DEBS, else $DDF_BUILD/deb)
#
# DEB_DIR holds what make deb builds: ddf-dkms_VERSION_all.deb and
# ddf-tools_VERSION_amd64.deb (the newest version of each there).
#
# 1. The root filesystem: bookworm with systemd, Debian's kernel RELEASE
#    (its image, headers and initramfs) and DKMS, built once by rootfs.sh
#    and cached; each run unpacks a copy, so the cache stays as built.
# 2. On this machine, in a chroot of that copy: apt install of both
#    packages, so ddf-dkms's postinst has DKMS build and install nf_ddf for
#    the image's kernel as on a real machine, at native speed (the VM does
#    not compile). The guest's test units (tests/packages/) and ddfpkt
#    (the copies' sender, make all) go in; the tree becomes an ext4 image.
# 3. QEMU boots the image's own kernel and initramfs with it as its root
#    disk (virtio-blk). First boot (tests/packages/boot-test.sh): DKMS's
#    nf_ddf, a netdev rule with XDP on a late veth port, ddfctl save into
#    /etc/ddf/ddf.rules, systemctl enable ddf, systemctl reboot (QEMU
#    resets in place; the disk stays). Second boot: ddf.service restored
#    the rule and the program in its mode, and copies sent in are dropped.
#    Then it powers off.
#
# Results: "check-packages-vm: N passed, N failed (T s)"; a step this machine
# cannot do (no packages built, no mmdebstrap) is skipped with the reason,
# exit 0. Logs in $DDF_BUILD/vm/packages/: install.log (apt, DKMS),
# console.log (both boots), results.
set -eu
. "$(dirname "$0")/lib.sh"

: "${DDF_PACKAGES_KERNEL:=6.12.*-amd64}"
: "${DDF_VM_TIMEOUT_PACKAGES:=1500}"
: "${DDF_VM_MEM:=1024}"

dir=$DDF_BUILD/vm/packages
passed=0
failed=0
t_lane=$(now)
summary() {
	echo "check-packages-vm: $passed passed, $failed failed ($(($(now) - t_lane)) s)"
	[ "$failed" = 0 ]
	exit
}
skip() {
	echo "check-packages-vm: skipped: $*"
	exit 0
}

debs=${1:-${DDF_DEBS:-$DDF_BUILD/deb}}
newest() {
	# shellcheck disable=SC2012,SC2086 # a glob of file names make deb writes
	ls "$debs"/$1 2>/dev/null | sort -V | tail -n 1
}
dkms_deb=$(newest 'ddf-dkms_*_all.deb')
tools_deb=$(newest 'ddf-tools_*_amd64.deb')
[ -n "$dkms_deb" ] && [ -n "$tools_deb" ] ||
	skip "no ddf-dkms_*_all.deb and ddf-tools_*_amd64.deb in $debs (make deb)"
[ "$(id -u)" = 0 ] ||
	skip "installing into the image's tree needs root (chroot, file owners)"
for t in mmdebstrap mkfs.ext4 unshare chroot "$DDF_QEMU_BIN"; do
	command -v "$t" >/dev/null || skip "no $t (make setup)"
done
[ -x "$DDF_BUILD/ddfpkt" ] || skip "no $DDF_BUILD/ddfpkt (make all)"

# The kernel: the newest Debian release of the pattern this machine has
# (the stock lane's), installed into the image from Debian's archive.
rel=$(for d in /lib/modules/$DDF_PACKAGES_KERNEL; do
	[ -e "$d" ] && echo "${d##*/}"
done | grep -v -e -cloud- -e -rt- | sort -V | tail -n 1)
[ -n "$rel" ] || skip "no kernel $DDF_PACKAGES_KERNEL here to name the image's"

mkdir -p "$dir"
exec 8>"$dir.lock"
if ! flock -n 8; then
	log "packages: waiting for another run in $dir"
	flock 8
fi
echo "packages: $(basename "$dkms_deb") $(basename "$tools_deb"), kernel $rel"

# 1. the cached tree
if ! tar=$("$DDF_QEMU/rootfs.sh" "$rel"); then
	flunk "the root filesystem (rootfs.sh $rel)"
	summary
fi
t0=$(now)
root=$dir/root
rm -rf "$root" "$dir/disk.img"
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$tar"

# 2. the packages, with apt, in a chroot; mounts in a namespace of their own
# go away with it
mkdir -p "$root/tmp/debs"
cp "$dkms_deb" "$tools_deb" "$root/tmp/debs/"
irc=0
unshare -m sh -ec '
	r=$1
	mount --rbind /dev "$r/dev"
	mount -t proc proc "$r/proc"
	mount -t sysfs sys "$r/sys"
	mount -t tmpfs tmpfs "$r/run"
	chroot "$r" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "/tmp/debs/$2" "/tmp/debs/$3"
	chroot "$r" dkms status
' - "$root" "$(basename "$dkms_deb")" "$(basename "$tools_deb")" \
	>"$dir/install.log" 2>&1 || irc=$?
rm -rf "$root/tmp/debs"
if [ "$irc" = 0 ] &&
	grep -q "^ddf/.*, $rel, .*: installed" "$dir/install.log"; then
	pass "apt install of both packages; dkms status: ddf installed for $rel ($(($(now) - t0)) s)"
else
	show_tail "$dir/install.log" 40
	flunk "apt install of both packages with nf_ddf built for $rel (exit $irc; $dir/install.log)"
	summary
fi
# DKMS compresses modules as the kernel's own are (xz on Debian)
ko=$(find "$root/lib/modules/$rel" -name 'nf_ddf.ko*' | head -n 1)
case $ko in
*.xz) xz -dc "$ko" >"$dir/nf_ddf.ko" ;;
*.zst) zstd -qdc "$ko" >"$dir/nf_ddf.ko" ;;
*.gz) gzip -dc "$ko" >"$dir/nf_ddf.ko" ;;
?*) cp "$ko" "$dir/nf_ddf.ko" ;;
esac
if [ -n "$ko" ] && readelf -S "$dir/nf_ddf.ko" | grep -q ' \.BTF '; then
	pass "nf_ddf.ko has BTF (XDP's kfunc): ${ko#"$root"}"
else
	flunk "nf_ddf.ko with BTF in the image (${ko:-none found})"
fi

# the guest's side, a machine id of its own
install -m 755 "$DDF_ROOT/tests/packages/boot-test.sh" \
	"$root/usr/local/sbin/ddf-boot-test"
install -m 755 "$DDF_BUILD/ddfpkt" "$root/usr/local/bin/ddfpkt"
for u in ddf-test-ports.service ddf-boot-test.service; do
	install -m 644 "$DDF_ROOT/tests/packages/$u" "$root/etc/systemd/system/$u"
done
ln -sf /etc/systemd/system/ddf-test-ports.service \
	"$root/etc/systemd/system/sysinit.target.wants/ddf-test-ports.service"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/ddf-boot-test.service \
	"$root/etc/systemd/system/multi-user.target.wants/ddf-boot-test.service"
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$root/etc/machine-id"
echo >>"$root/etc/machine-id"

cp "$root/boot/vmlinuz-$rel" "$dir/vmlinuz"
cp "$root/boot/initrd.img-$rel" "$dir/initrd.img"
mb=$(du -sm "$root" | cut -f1)
if ! mkfs.ext4 -q -F -L ddf-root -d "$root" "$dir/disk.img" \
	"$((mb + mb / 4 + 256))M" >"$dir/mkfs.log" 2>&1; then
	show_tail "$dir/mkfs.log" 20
	flunk "the ext4 image of the tree ($dir/mkfs.log)"
	summary
fi
rm -rf "$root"
log "packages: image ready in $(($(now) - t0)) s"

# 3. two boots in one QEMU: the guest's reboot resets it, its poweroff ends it
log "packages: booting (TCG; limit $DDF_VM_TIMEOUT_PACKAGES s; console $dir/console.log)"
rm -f "$dir/console.log" "$dir/results"
t1=$(now)
qrc=0
timeout -k 10 "$DDF_VM_TIMEOUT_PACKAGES" "$DDF_QEMU_BIN" \
	-nodefaults -no-user-config -display none -accel tcg -cpu max \
	-smp 1 -m "$DDF_VM_MEM" -nic none \
	-kernel "$dir/vmlinuz" -initrd "$dir/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=1" \
	-drive "file=$dir/disk.img,format=raw,if=virtio,cache=unsafe" \
	-serial "file:$dir/console.log" -serial "file:$dir/results.raw" \
	${DDF_VM_QEMU_ARGS:-} || qrc=$?
t2=$(now)
touch "$dir/results.raw" "$dir/console.log"
tr -d '\r' <"$dir/results.raw" >"$dir/results"

boots=$(grep -c '^ddf-result: boot ' "$dir/results" || true)
while read -r _ st what; do
	case $st in
	ok) pass "$what" ;;
	fail) flunk "$what" ;;
	boot) echo "  --   boot $what" ;;
	esac
done <"$dir/results"
if [ "$boots" = 2 ] && grep -q '^ddf-result: done' "$dir/results"; then
	pass "two boots, a reboot between, and power off in $((t2 - t1)) s"
elif [ "$qrc" = 124 ]; then
	flunk "the VM did not finish within $DDF_VM_TIMEOUT_PACKAGES s ($boots boots)"
else
	flunk "the VM stopped after $boots boots without its results (exit $qrc)"
fi
grep -aE 'BUG:|WARNING:|Call Trace|Oops|Kernel panic|general protection fault' \
	"$dir/console.log" >"$dir/console.reports" || true
if [ -s "$dir/console.reports" ]; then
	flunk "kernel reports on the console ($(wc -l <"$dir/console.reports") lines)"
	head -n 20 "$dir/console.reports" | sed 's/^/       /'
else
	pass "kernel log clean"
fi
[ "$failed" = 0 ] || show_tail "$dir/console.log" 60
rm -f "$dir/disk.img"
summary
