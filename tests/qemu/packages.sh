#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-packages-vm: ddf's Debian packages on a Debian system with
# systemd, across a real reboot, in QEMU (TCG).
#
#   packages.sh [RELEASE [DEB_DIR]]
#
# RELEASE: bookworm (Debian 12, the default) or trixie (Debian 13).
# bookworm takes the packages of DEB_DIR (default $DDF_DEBS, else
# $DDF_BUILD/deb): what make deb builds, ddf-dkms_VERSION_all.deb and
# ddf-tools_VERSION_amd64.deb (the newest version of each there).
#
# trixie builds its own: make deb in a Debian 13 root (rootfs.sh
# trixie-build, cached), from this tree, as a Debian 13 user does before
# apt install (README). What differs is inside: ddfctl's XDP program is
# compiled by trixie's clang (19) and its skeleton made by trixie's bpftool
# against libbpf 1.5's headers, and debian/ goes through debhelper 13.24
# and dh_dkms 3.2. Debian 12's packages do install and work on 13
# (DDF_DEBS=build/deb: libpcap0.8, which ddf-tools names because ddfctl
# opens it at run time, is provided by libpcap0.8t64; the other
# dependencies, from the libraries' symbols, are the same as 13's build
# writes; DKMS builds and signs for both kernels), but they are not what
# a Debian 13 machine builds.
# DDF_DEBS (or DEB_DIR) given with trixie installs those instead.
#
# 1. The root filesystem: the release with systemd, Debian's kernels (their
#    images, headers and initramfs) and DKMS, built once by rootfs.sh and
#    cached; each run unpacks a copy, so the cache stays as built.
#    bookworm has Debian's kernel DDF_PACKAGES_KERNEL; trixie its 6.12
#    and trixie-backports' newest (7.x).
# 2. On this machine, in a chroot of that copy: apt install of both
#    packages, so ddf-dkms's postinst has DKMS build and install nf_ddf for
#    each kernel of the image as on a real machine, at native speed (the
#    VM does not compile): dkms status says installed for each, each
#    module has BTF, and on trixie each is signed by DKMS's own key
#    (/var/lib/dkms/mok.pub: modinfo's signer and sig_key are the
#    certificate's subject and serial). The guest's test units
#    (tests/packages/) and ddfpkt (the copies' sender, make all) go in.
# 3. For each kernel booted (DDF_PACKAGES_BOOT), the tree becomes an ext4
#    image and QEMU boots that kernel and its initramfs with it as its root
#    disk (virtio-blk). First boot (tests/packages/boot-test.sh): DKMS's
#    nf_ddf, a netdev rule with XDP on a late veth port, ddfctl save into
#    /etc/ddf/ddf.rules, systemctl enable ddf, systemctl reboot (QEMU
#    resets in place; the disk stays). Second boot: ddf.service restored
#    the rule and the program in its mode, and copies sent in are dropped.
#    Then it powers off.
#
# Results: "check-packages-vm-RELEASE: N passed, N failed (T s)"; a step
# this machine cannot do (no packages built, no mmdebstrap) is skipped with
# the reason, exit 0. Logs in $DDF_BUILD/vm/packages-RELEASE/: build.log
# (trixie's make deb), install.log (apt, DKMS), console-KERNEL.log (both
# boots), results-KERNEL.
set -eu
. "$(dirname "$0")/lib.sh"

: "${DDF_PACKAGES_KERNEL:=6.12.*-amd64}"
: "${DDF_VM_TIMEOUT_PACKAGES:=1500}"
: "${DDF_VM_MEM:=1024}"

release=${1:-bookworm}
case $release in
bookworm | trixie) ;;
*) die "packages: no release $release (bookworm, trixie)" ;;
esac
# bookworm boots its one kernel; trixie its newest (backports', the one
# no other lane boots with systemd), or those named here ("all": each)
: "${DDF_PACKAGES_BOOT:=newest}"

lane=check-packages-vm-$release
dir=$DDF_BUILD/vm/packages-$release
passed=0
failed=0
t_lane=$(now)
summary() {
	echo "$lane: $passed passed, $failed failed ($(($(now) - t_lane)) s)"
	[ "$failed" = 0 ]
	exit
}
skip() {
	echo "$lane: skipped: $*"
	exit 0
}

debs=${2:-${DDF_DEBS:-}}
[ "$(id -u)" = 0 ] ||
	skip "installing into the image's tree needs root (chroot, file owners)"
for t in mmdebstrap mkfs.ext4 unshare chroot "$DDF_QEMU_BIN"; do
	command -v "$t" >/dev/null || skip "no $t (make setup)"
done
[ -x "$DDF_BUILD/ddfpkt" ] || skip "no $DDF_BUILD/ddfpkt (make all)"

# in_root ROOT COMMAND...: COMMAND in a chroot of ROOT, with /dev, /proc,
# /sys and /run; the mounts, in a namespace of their own, go away with it
in_root() {
	unshare -m sh -ec '
		r=$1
		shift
		mount --rbind /dev "$r/dev"
		mount -t proc proc "$r/proc"
		mount -t sysfs sys "$r/sys"
		mount -t tmpfs tmpfs "$r/run"
		chroot "$r" env DEBIAN_FRONTEND=noninteractive "$@"
	' - "$@"
}

mkdir -p "$dir"
exec 8>"$dir.lock"
if ! flock -n 8; then
	log "packages: waiting for another run in $dir"
	flock 8
fi

newest() {
	# shellcheck disable=SC2012,SC2086 # a glob of file names make deb writes
	ls "$debs"/$1 2>/dev/null | sort -V | tail -n 1
}
# trixie: make deb in a Debian 13 root, from a read-only view of the tree
if [ "$release" = trixie ] && [ -z "$debs" ]; then
	if ! btar=$("$DDF_QEMU/rootfs.sh" trixie-build); then
		flunk "the build root (rootfs.sh trixie-build)"
		summary
	fi
	t0=$(now)
	broot=$dir/build-root
	rm -rf "$broot" "$dir/deb"
	mkdir -p "$broot"
	tar -C "$broot" --numeric-owner -xpf "$btar"
	mkdir -p "$broot/src"
	brc=0
	unshare -m sh -ec '
		mount --bind -o ro "$1" "$2/src"
		mount -t proc proc "$2/proc"
		chroot "$2" make -C /src B=/tmp/ddf-build deb
	' - "$DDF_ROOT" "$broot" >"$dir/build.log" 2>&1 || brc=$?
	if [ "$brc" = 0 ]; then
		mv "$broot/tmp/ddf-build/deb" "$dir/deb"
		pass "make deb in a Debian 13 root ($(($(now) - t0)) s)"
		debs=$dir/deb
	else
		show_tail "$dir/build.log" 40
		flunk "make deb in a Debian 13 root (exit $brc; $dir/build.log)"
	fi
	rm -rf "$broot"
	[ "$brc" = 0 ] || summary
fi
: "${debs:=$DDF_BUILD/deb}"
dkms_deb=$(newest 'ddf-dkms_*_all.deb')
tools_deb=$(newest 'ddf-tools_*_amd64.deb')
[ -n "$dkms_deb" ] && [ -n "$tools_deb" ] ||
	skip "no ddf-dkms_*_all.deb and ddf-tools_*_amd64.deb in $debs (make deb)"

# The kernel: the newest Debian release of the pattern this machine has
# (the stock lane's), installed into the image from Debian's archive.
# trixie's come with its root.
if [ "$release" = bookworm ]; then
	rel=$(for d in /lib/modules/$DDF_PACKAGES_KERNEL; do
		[ -e "$d" ] && echo "${d##*/}"
	done | grep -v -e -cloud- -e -rt- | sort -V | tail -n 1)
	[ -n "$rel" ] ||
		skip "no kernel $DDF_PACKAGES_KERNEL here to name the image's"
	set -- bookworm "$rel"
else
	set -- trixie
fi
echo "packages: $release: $(basename "$dkms_deb") $(basename "$tools_deb")"

# 1. the cached tree
if ! tar=$("$DDF_QEMU/rootfs.sh" "$@"); then
	flunk "the root filesystem (rootfs.sh $*)"
	summary
fi
t0=$(now)
root=$dir/root
rm -rf "$root" "$dir"/disk*.img
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$tar"
# the image's kernels: those with headers, which DKMS builds for
kernels=$(for d in "$root"/usr/lib/modules/*/build; do
	[ -e "$d" ] || [ -L "$d" ] && d=${d%/build} && echo "${d##*/}"
done | sort -V)
if [ -z "$kernels" ]; then
	flunk "a kernel with its headers in the root filesystem ($tar)"
	summary
fi
echo "packages: kernels $(echo $kernels)"

# 2. the packages, with apt, in a chroot
mkdir -p "$root/tmp/debs"
cp "$dkms_deb" "$tools_deb" "$root/tmp/debs/"
irc=0
{
	in_root "$root" apt-get install -y --no-install-recommends \
		"/tmp/debs/$(basename "$dkms_deb")" \
		"/tmp/debs/$(basename "$tools_deb")" &&
		in_root "$root" dkms status
} >"$dir/install.log" 2>&1 || irc=$?
rm -rf "$root/tmp/debs"
built=0
for k in $kernels; do
	grep -q "^ddf/.*, $k, .*: installed" "$dir/install.log" &&
		built=$((built + 1))
done
if [ "$irc" = 0 ] && [ "$built" = "$(echo "$kernels" | wc -l)" ]; then
	pass "apt install of both packages; dkms status: ddf installed for $(echo $kernels) ($(($(now) - t0)) s)"
else
	show_tail "$dir/install.log" 40
	flunk "apt install of both packages with nf_ddf built for each of $(echo $kernels) (exit $irc; $dir/install.log)"
	summary
fi

# DKMS's certificate: its subject's CN and serial, as modinfo prints the
# signer and sig_key of a module it signed
if [ "$release" != bookworm ]; then
	mok=$root/var/lib/dkms/mok.pub
	cn='' serial=''
	if [ -s "$mok" ]; then
		cn=$(in_root "$root" openssl x509 -inform DER -in /var/lib/dkms/mok.pub \
			-noout -subject -nameopt multiline | sed -n 's/^ *commonName *= *//p')
		serial=$(in_root "$root" openssl x509 -inform DER -in /var/lib/dkms/mok.pub \
			-noout -serial | sed 's/^serial=//')
	fi
fi
for k in $kernels; do
	# DKMS compresses modules as the kernel's own are (xz on Debian)
	ko=$(find "$root/usr/lib/modules/$k" -name 'nf_ddf.ko*' | head -n 1)
	m=$dir/nf_ddf-$k.ko
	case $ko in
	*.xz) xz -dc "$ko" >"$m" ;;
	*.zst) zstd -qdc "$ko" >"$m" ;;
	*.gz) gzip -dc "$ko" >"$m" ;;
	?*) cp "$ko" "$m" ;;
	esac
	if [ -n "$ko" ] && readelf -S "$m" | grep -q ' \.BTF '; then
		pass "$k: nf_ddf.ko has BTF (XDP's kfunc): ${ko#"$root"}"
	else
		flunk "$k: nf_ddf.ko with BTF in the image (${ko:-none found})"
	fi
	# signing is Debian 13's check: bookworm's root has no openssl, with
	# which its DKMS would make a key, so its module stays unsigned
	[ "$release" != bookworm ] && [ -n "$ko" ] || continue
	signer=$(modinfo -F signer "$m" 2>/dev/null || true)
	key=$(modinfo -F sig_key "$m" 2>/dev/null | tr -d ':' || true)
	if [ -z "$cn" ] || [ -z "$serial" ]; then
		flunk "$k: DKMS's certificate /var/lib/dkms/mok.pub with a subject and serial (nf_ddf's signer: '${signer:-none}')"
	elif [ "$signer" = "$cn" ] && [ "$key" = "$serial" ]; then
		pass "$k: nf_ddf.ko signed by DKMS's key: signer '$signer', sig_key $key"
	else
		flunk "$k: nf_ddf.ko signed by DKMS's key '$cn' ($serial), not by '${signer:-nobody}' (${key:-no key})"
	fi
done

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

# The kernels booted
case $release:$DDF_PACKAGES_BOOT in
bookworm:* | *:newest) boot=$(echo "$kernels" | tail -n 1) ;;
*:all) boot=$kernels ;;
*) boot=$DDF_PACKAGES_BOOT ;;
esac
for k in $boot; do
	# 7.x puts the image beside its modules (/boot/vmlinuz-REL may not be)
	for f in "$root/boot/vmlinuz-$k" "$root/usr/lib/modules/$k/vmlinuz" ""; do
		[ -z "$f" ] || [ -e "$f" ] && break
	done
	if [ -z "$f" ] || [ ! -e "$root/boot/initrd.img-$k" ] ||
		! echo "$kernels" | grep -qxF -e "$k"; then
		flunk "kernel $k to boot: its image and initramfs in the tree, and nf_ddf built for it (the tree's: $(echo $kernels))"
		summary
	fi
	cp "$f" "$dir/vmlinuz-$k"
	cp "$root/boot/initrd.img-$k" "$dir/initrd.img-$k"
done
mb=$(du -sm "$root" | cut -f1)
log "packages: tree ready in $(($(now) - t0)) s"

# 3. for each kernel, an image of the tree and two boots in one QEMU: the
# guest's reboot resets it, its poweroff ends it
boot_vm() {
	k=$1
	disk=$dir/disk-$k.img
	console=$dir/console-$k.log
	results=$dir/results-$k
	t1=$(now)
	if ! mkfs.ext4 -q -F -L ddf-root -d "$root" "$disk" \
		"$((mb + mb / 4 + 256))M" >"$dir/mkfs.log" 2>&1; then
		show_tail "$dir/mkfs.log" 20
		flunk "$k: the ext4 image of the tree ($dir/mkfs.log)"
		return
	fi
	log "packages: $k: image in $(($(now) - t1)) s; booting (TCG; limit $DDF_VM_TIMEOUT_PACKAGES s; console $console)"
	rm -f "$console" "$results" "$results.raw"
	t1=$(now)
	qrc=0
	timeout -k 10 "$DDF_VM_TIMEOUT_PACKAGES" "$DDF_QEMU_BIN" \
		-nodefaults -no-user-config -display none -accel tcg -cpu max \
		-smp 1 -m "$DDF_VM_MEM" -nic none \
		-kernel "$dir/vmlinuz-$k" -initrd "$dir/initrd.img-$k" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=1" \
		-drive "file=$disk,format=raw,if=virtio,cache=unsafe" \
		-serial "file:$console" -serial "file:$results.raw" \
		${DDF_VM_QEMU_ARGS:-} || qrc=$?
	t2=$(now)
	rm -f "$disk"
	touch "$results.raw" "$console"
	tr -d '\r' <"$results.raw" >"$results"

	boots=$(grep -c '^ddf-result: boot ' "$results" || true)
	f0=$failed
	while read -r _ st what; do
		case $st in
		ok) pass "$k: $what" ;;
		fail) flunk "$k: $what" ;;
		boot) echo "  --   boot $what" ;;
		esac
	done <"$results"
	if [ "$boots" = 2 ] && grep -q '^ddf-result: done' "$results"; then
		pass "$k: two boots, a reboot between, and power off in $((t2 - t1)) s"
	elif [ "$qrc" = 124 ]; then
		flunk "$k: the VM did not finish within $DDF_VM_TIMEOUT_PACKAGES s ($boots boots)"
	else
		flunk "$k: the VM stopped after $boots boots without its results (exit $qrc)"
	fi
	grep -aE 'BUG:|WARNING:|Call Trace|Oops|Kernel panic|general protection fault' \
		"$console" >"$console.reports" || true
	if [ -s "$console.reports" ]; then
		flunk "$k: kernel reports on the console ($(wc -l <"$console.reports") lines)"
		head -n 20 "$console.reports" | sed 's/^/       /'
	else
		pass "$k: kernel log clean"
	fi
	[ "$failed" = "$f0" ] || show_tail "$console" 60
}
# shellcheck disable=SC2086 # kernel releases, no blanks
for k in $boot; do
	boot_vm "$k"
done
rm -rf "$root"
summary
