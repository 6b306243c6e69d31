#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# build-deb.sh OUTDIR: ddf's Debian packages (debian/), built by
# dpkg-buildpackage (binary only, unsigned) in a copy of the tree under
# OUTDIR/work, so that the tree itself stays as it is. The copy's
# debian/changelog is written here from dkms.conf's PACKAGE_VERSION, the
# tree's one version. Leaves OUTDIR/ddf-dkms_VERSION_all.deb,
# OUTDIR/ddf-tools_VERSION_ARCH.deb, OUTDIR/ddf-dev_VERSION_all.deb and the
# build's log, OUTDIR/build.log.
set -eu

out=$1
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
[ -n "$version" ] || { echo "build-deb: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
command -v dpkg-buildpackage >/dev/null ||
	{ echo "build-deb: no dpkg-buildpackage (make setup installs it)" >&2; exit 1; }

rm -rf "$out"
work=$out/work
src=$work/ddf-$version
mkdir -p "$src"
# the tree's files as they are now, committed or not, without build/
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf - | tar -xf - -C "$src"
	date=$(git log -1 --format=%cD 2>/dev/null || date -R)
else
	tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$src"
	date=$(date -R -r dkms.conf)
fi
maint=$(sed -n 's/^Maintainer: //p' debian/control)
cat >"$src/debian/changelog" <<-EOT
	ddf ($version) unstable; urgency=medium

	  * ddf $version.

	 -- $maint  $date
EOT

log=$out/build.log
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
# not the calling make's variables: with make B=DIR deb, debian/rules'
# make clean would remove DIR, where this writes
if ! (cd "$src" && unset MAKEFLAGS MFLAGS MAKELEVEL &&
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" \
	dpkg-buildpackage -b -us -uc) >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "build-deb: dpkg-buildpackage failed, see $log" >&2
	exit 1
fi
for p in "ddf-dkms_${version}_all" "ddf-tools_${version}_$arch" \
	"ddf-dev_${version}_all"; do
	mv "$work/$p.deb" "$out/$p.deb"
	echo "$out/$p.deb"
done
rm -rf "$work"
