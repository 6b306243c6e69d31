#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A Debian kernel from the archive, in a root of its own release, for the
# x86_64 lanes that boot Debian's kernels (run.sh stock, demo, bench,
# shell stock): nothing of it is installed on this machine.
#
#   kroot.sh root NAME
#	the entry NAME of kernels.txt: prints the directory holding root/
#	(the release's essential packages, the kernel's image, modules and
#	headers, the compiler and tools its headers want: make, the gcc
#	they depend on, pahole, kmod, xz and zstd for module-btf.sh) and
#	kernel.conf (rel: the kernel's release; image: its image, a path
#	here; tree: its headers, a path in the root).
#   kroot.sh run DIR SRC CMD...
#	CMD in a chroot of DIR/root, with /proc mounted (objtool reads the
#	stack limit there) and SRC (a directory here) at the same path,
#	in a mount namespace of its own: nothing stays mounted after it.
#	The modules are always built this way, so that they are the same
#	whatever this machine's release.
#   kroot.sh names
#	the entries of kernels.txt.
#   kroot.sh --background [NAME...]
#	the roots of those entries (names or globs of names; default
#	$DDF_STOCK_KERNELS) made detached, their output in
#	$DDF_CACHE/kroot-background-NAME.log: make check starts the stock
#	lane's while the userspace checks run (a lane asking for a root
#	being made waits for it).
#
# "The newest" kernel of a suite is what its meta packages depend on
# today: an apt state of this script's own ($DDF_CACHE/kroot-apt-HASH,
# updated when 10 minutes old, a few seconds) resolves them, and the root is
# cached in $DDF_CACHE/kroot-NAME-HASH, keyed by the recipe, the entry,
# the sources and the resolved versions of the kernel's packages and
# its compiler: a new upload makes a new root. Roots are installed
# (mmdebstrap, essential variant; package scripts run, the compiler
# works in a chroot). Without the archive, the last root of the entry is
# used.
set -eu
. "$(dirname "$0")/lib.sh"

recipe=2
table=$DDF_QEMU/kernels.txt

names() {
	awk '!/^#/ && NF { print $1 }' "$table"
}

run() {
	d=${1:?usage: kroot.sh run DIR SRC CMD...}
	src=${2:?usage: kroot.sh run DIR SRC CMD...}
	shift 2
	[ -e "$d/ok" ] || die "kroot: $d is no root made by kroot.sh"
	mkdir -p "$d/root$src"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private sh -c '
		r=$1 src=$2
		shift 2
		mount -t proc proc "$r/proc" &&
			mount --bind "$src" "$r$src" &&
			exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				HOME=/root LANG=C.UTF-8 "$@"' sh "$d/root" "$src" "$@"
}

root() {
	name=${1:?usage: kroot.sh root NAME}
	entry=$(awk -v n="$name" '!/^#/ && $1 == n' "$table")
	[ -n "$entry" ] ||
		die "kroot: no kernel $name in $table (there: $(names | paste -s -d ' '))"
	# shellcheck disable=SC2086
	set -- $entry
	[ $# -ge 5 ] || die "kroot: $table: $name: too few fields"
	release=$2 suite=$3 image=$4 headers=$5 btf_from=${6:--}

	suites=$release
	[ "$release" = sid ] ||
		suites="$release $release-updates $release-security"
	case " $suites " in *" $suite "*) ;; *) suites="$suites $suite" ;; esac
	specs="$image $headers"
	[ "$suite" = "$release" ] || specs="$image/$suite $headers/$suite"
	tools="make binutils kmod dwarves xz-utils zstd"

	# shellcheck disable=SC2086 # one suite a word
	sources=$(debian_sources $suites)
	# the apt state that resolves the meta packages, one per set of
	# sources, updated under a lock (several lanes may ask at once)
	adir=$DDF_CACHE/kroot-apt-$(echo "$sources" | sha256sum | cut -c1-12)
	mkdir -p "$adir/lists/partial" "$adir/cache/archives/partial" \
		"$adir/state" "$adir/parts"
	echo "$sources" >"$adir/sources.list"
	touch "$adir/status"
	set -- -o Dir::Etc::SourceList="$adir/sources.list" \
		-o Dir::Etc::SourceParts="$adir/parts" \
		-o Dir::Etc::Preferences="$adir/parts/none" \
		-o Dir::Etc::PreferencesParts="$adir/parts" \
		-o Dir::State="$adir/state" -o Dir::State::Lists="$adir/lists" \
		-o Dir::State::status="$adir/status" -o Dir::Cache="$adir/cache" \
		-o APT::Architectures=amd64 -o Acquire::Languages=none \
		-o Acquire::Check-Valid-Until=false -o Debug::NoLocking=1 \
		-o APT::Install-Recommends=false -q
	exec 7>"$adir.lock"
	flock 7
	# (asked again after 10 minutes: the lanes of one make check ask once)
	if [ -n "$(find "$adir/updated" -mmin -10 2>/dev/null)" ]; then
		:
	elif ! apt-get "$@" update >"$adir/update.log" 2>&1 ||
		grep -q '^\(W\|E\): .*\(Failed\|not signed\|NO_PUBKEY\)' \
			"$adir/update.log"; then
		log "kroot: $name: the archive did not answer as it should (log: $adir/update.log)"
	else
		touch "$adir/updated"
	fi
	# the resolution, kept until the lists change (apt reads them
	# slowly); apt dates them by the archive's clock, not ours: their
	# names, sizes and dates tell
	res=$adir/resolved-$(echo "$specs $btf_from" | tr ' /' '__')
	lists=$(ls -l --time-style=+%s "$adir/lists" | sha256sum | cut -c1-16)
	if [ -s "$res" ] && grep -qx "lists $lists" "$res"; then
		inst=$(sed -n 's/^inst //p' "$res")
		extra=$(sed -n 's/^extra //p' "$res")
	else
		# shellcheck disable=SC2086
		inst=$(apt-get "$@" -s install $specs 2>"$adir/resolve.log" |
			sed -n 's/^Inst \(linux-[^ ]*\|gcc-[^ ]*\|dwarves\|pahole\) (\([^ ]*\) .*/\1 \2/p' |
			sort) || true
		extra=
		if [ "$btf_from" != - ]; then
			extra=$(apt-get "$@" -s install "$btf_from" 2>>"$adir/resolve.log" |
				sed -n 's/^Inst \(linux-kbuild-[^ ]*\) .*/\1/p') || true
		fi
		rm -f "$res"
		if [ -n "$inst" ]; then
			{
				echo "lists $lists"
				echo "$inst" | sed 's/^/inst /'
				[ -z "$extra" ] || echo "extra $extra"
			} >"$res"
		fi
	fi
	exec 7>&-
	if [ -z "$inst" ] || { [ "$btf_from" != - ] && [ -z "$extra" ]; }; then
		last=$(ls -td "$DDF_CACHE/kroot-$name"-*/ok 2>/dev/null | head -n 1)
		[ -n "$last" ] || {
			show_tail "$adir/resolve.log" 20
			die "kroot: $name: cannot resolve $specs (log: $adir/update.log)"
		}
		log "kroot: $name: cannot resolve $specs; the last root made: ${last%/ok}"
		echo "${last%/ok}"
		return
	fi

	hash=$({
		echo "recipe $recipe"
		echo "$entry"
		echo "$tools $extra"
		echo "$sources"
		echo "$inst"
	} | sha256sum | cut -c1-12)
	dir=$DDF_CACHE/kroot-$name-$hash

	cache_claim kroot "$dir" "$dir"

	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(now)
	echo "$inst" >"$dir/versions"
	log "kroot: $name: $(sed -n 's/^\(linux-image-[^ ]*\|linux-binary-[^ ]*\) /\1 /p' "$dir/versions" | head -n 1), a $release root in $dir (log: $dir/build.log)"
	# (the descriptors above 2 closed, the locks' among them: mmdebstrap
	# hands its own to a shell that takes one digit only; the lock on
	# DIR stays held here)
	# (INITRD=No: the kernel's package makes no initramfs, whichever
	# tool the release prefers; the lanes make their own. No fsync:
	# the root is made again if this fails.)
	# shellcheck disable=SC2086
	echo "$sources" | INITRD=No mmdebstrap --variant=essential --mode=root \
		--format=directory \
		--include="$(echo $specs $tools $extra | tr ' ' ',')" \
		--hook-dir=/usr/share/mmdebstrap/hooks/maybe-merged-usr \
		--aptopt='APT::Install-Recommends "false"' \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--dpkgopt=force-unsafe-io \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		"$release" "$dir/root" - >"$dir/build.log" 2>&1 \
		3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- || {
		show_tail "$dir/build.log" 40
		die "kroot: $name: mmdebstrap failed (log: $dir/build.log)"
	}

	# the kernel: the release under /usr/lib/modules with a kernel/
	# directory; from 7.x no modules.dep ships, and the image is there
	# too rather than in /boot
	rel=
	for m in "$dir/root"/usr/lib/modules/*/kernel; do
		[ -d "$m" ] || continue
		[ -z "$rel" ] || die "kroot: $name: more than one kernel in $dir/root"
		rel=${m%/kernel}
		rel=${rel##*/}
	done
	[ -n "$rel" ] || die "kroot: $name: no kernel's modules in $dir/root"
	[ -e "$dir/root/usr/lib/modules/$rel/modules.dep" ] ||
		chroot "$dir/root" depmod "$rel"
	img=
	for i in /boot/vmlinuz-$rel /usr/lib/modules/$rel/vmlinuz; do
		if [ -f "$dir/root$i" ]; then img=$dir/root$i && break; fi
	done
	[ -n "$img" ] || die "kroot: $name: no image of $rel in $dir/root"
	[ ! -e "$dir/root/boot/initrd.img-$rel" ] ||
		log "kroot: $name: an initramfs was made all the same (INITRD=No)"
	tree=/usr/lib/modules/$rel/build
	[ -e "$dir/root$tree/Makefile" ] || tree=/usr/src/linux-headers-$rel
	[ -e "$dir/root$tree/Makefile" ] ||
		die "kroot: $name: no headers of $rel in $dir/root"
	cat >"$dir/kernel.conf" <<-EOF
		rel=$rel
		image=$img
		tree=$tree
	EOF
	log "kroot: $name: $rel in $(($(now) - t0)) s ($(du -sm "$dir/root" | cut -f1) MiB)"
	touch "$dir/ok"
	echo "$dir"
}

background() {
	# shellcheck disable=SC2086 # one name a word
	[ $# -gt 0 ] || set -- $DDF_STOCK_KERNELS
	for pat; do
		for n in $(names); do
			# shellcheck disable=SC2254 # a glob
			case $n in $pat) ;; *) continue ;; esac
			setsid "$0" root "$n" >"$DDF_CACHE/kroot-background-$n.log" \
				2>&1 </dev/null &
		done
	done
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
root) root "$@" ;;
run) run "$@" ;;
names) names ;;
--background) background "$@" ;;
*) die "usage: $0 root NAME | run DIR SRC CMD... | names | --background [NAME...]" ;;
esac
