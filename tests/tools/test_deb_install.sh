#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb's packages on this machine, as an operator installs them:
# apt install builds and installs nf_ddf.ko through DKMS for the kernels
# whose headers are installed (dkms status: installed), the tools run, the
# units are there but neither enabled nor started, the kfunc's example
# (ddf-dev) builds against the installed headers; then apt purge, after
# the operator enabled the units and edited /etc/ddf/ddf.rules, leaves
# nothing behind. It changes the machine's packages (root; not part of
# make check) and purges them again whatever happens.
# Usage: tests/tools/test_deb_install.sh [DEB_DIR]   (make check-packages)
set -e

D=${1:-build/deb}
pass=0
fail=0
tmp=$(mktemp -d)

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

[ "$(id -u)" = 0 ] || { echo "FAIL apt install needs root"; exit 1; }
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
debs="$D/ddf-dkms_${version}_all.deb $D/ddf-tools_${version}_$arch.deb"
debs="$debs $D/ddf-dev_${version}_all.deb"
for f in $debs; do
	[ -f "$f" ] || { echo "FAIL no $f (make deb)"; exit 1; }
done

# What the packages leave on the machine, or a trace of them: nothing
# before (else the purge's check would prove nothing), nothing after.
traces() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' ddf-dkms ddf-tools \
		ddf-dev 2>/dev/null | grep -v '^un ' || true
	ls -d /usr/src/ddf-* /var/lib/dkms/ddf /etc/ddf /etc/default/ddf \
		/lib/systemd/system/ddf* /usr/lib/systemd/system/ddf* \
		/usr/sbin/ddfctl \
		/usr/lib/*/xtables/libxt_ddf.so \
		/usr/share/bash-completion/completions/ddfctl \
		/usr/share/man/man7/ddf.7.gz /usr/share/man/man8/ddfctl.8.gz \
		/usr/share/man/man8/libxt_ddf.8.gz /usr/share/doc/ddf-* \
		/usr/include/ddf /usr/include/linux/ddf.h \
		/usr/share/man/man7/ddf-xdp.7.gz \
		/lib/modules/*/updates/dkms/nf_ddf.ko* 2>/dev/null || true
	grep -l 'nf_ddf' /lib/modules/*/modules.dep 2>/dev/null || true
	find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
		/var/lib/systemd/deb-systemd-helper-masked -name '*ddf*' \
		2>/dev/null || true
}
before=$(traces)
if [ -n "$before" ]; then
	echo "FAIL ddf is installed on this machine already (apt purge ddf-dkms" \
		"ddf-tools ddf-dev; remove a make install or make dkms-src):"
	echo "$before" | sed 's/^/       /'
	exit 1
fi
# another apt at work: wait for it rather than fail
lock="-o DPkg::Lock::Timeout=600"
purge() {
	DEBIAN_FRONTEND=noninteractive apt-get purge $lock -y -q ddf-dkms \
		ddf-tools ddf-dev >"$tmp/purge.log" 2>&1
}
# interrupted or failed: the machine gets its packages back as they were
trap 'purge || true; rm -rf "$tmp"' EXIT

# kernels with headers: DKMS builds for each (the running one has none
# when it is a container's or a VM's host)
releases=
for mk in /lib/modules/*/build/Makefile; do
	[ -e "$mk" ] || continue
	r=${mk#/lib/modules/}
	releases="$releases ${r%%/*}"
done
[ -n "$releases" ] || echo "no kernel headers under /lib/modules/*/build: DKMS builds nothing"

start=$(date +%s)
# shellcheck disable=SC2086
if DEBIAN_FRONTEND=noninteractive apt-get install $lock -y -q $(realpath $debs) \
	>"$tmp/install.log" 2>&1; then
	ok "apt install ${debs//$D\//} ($(($(date +%s) - start)) s)"
else
	tail -n 30 "$tmp/install.log" | sed 's/^/       /'
	bad "apt install failed"
fi
sed -n '/^Setting up ddf-dkms/,/^Setting up ddf-tools/p' "$tmp/install.log" |
	grep -E '^(Building|Installing|  *- Installing|It is likely)' | sed 's/^ */       /'

status=$(dkms status 2>&1 | grep '^ddf/' || true)
echo "$status" | sed 's/^/       dkms status: /'
for r in $releases; do
	if grep -F "ddf/$version, $r, " <<<"$status" | grep -q ': installed$'; then
		ok "dkms status: ddf/$version installed for $r"
	else
		bad "dkms status: ddf/$version not installed for $r"
	fi
	ko=$(ls /lib/modules/"$r"/updates/dkms/nf_ddf.ko* 2>/dev/null | head -n 1)
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')
	v=$(modinfo -F version "$ko" 2>/dev/null)
	if [ -n "$ko" ] && [ "$vm" = "$r" ] && [ "$v" = "$version" ]; then
		ok "$ko: vermagic $vm, version $v"
	else
		bad "no nf_ddf.ko $version for $r under /lib/modules/$r/updates/dkms ($ko)"
		continue
	fi
	# the module's BTF (XDP's kfunc) when pahole is there
	case $ko in
	*.xz) xz -dc "$ko" >"$tmp/m.ko" ;;
	*.zst) zstd -qdc "$ko" >"$tmp/m.ko" ;;
	*) cp "$ko" "$tmp/m.ko" ;;
	esac
	if ! command -v pahole >/dev/null; then
		echo "skip the BTF of $ko: no pahole (dwarves) on this machine"
	elif readelf -S "$tmp/m.ko" | grep -q ' \.BTF '; then
		ok "$ko has its BTF"
	else
		bad "$ko has no BTF though pahole is installed"
	fi
done
modprobe -n -S "${releases##* }" nf_ddf >/dev/null 2>&1 &&
	ok "modprobe finds nf_ddf for ${releases##* } (depmod)" ||
	bad "modprobe does not find nf_ddf for ${releases##* }"

/usr/sbin/ddfctl --help 2>&1 | grep -q 'rule add' && ok "/usr/sbin/ddfctl runs" ||
	bad "/usr/sbin/ddfctl does not run"
man -w ddfctl ddf libxt_ddf ddf-xdp >/dev/null 2>&1 &&
	ok "man finds ddfctl, ddf, libxt_ddf and ddf-xdp" ||
	bad "man does not find the pages: $(man -w ddfctl ddf libxt_ddf ddf-xdp 2>&1 | tr '\n' ' ')"
# the example, copied out and built as its README says: no include path
# but the system's, so the installed headers are the ones it finds
cp -r /usr/share/doc/ddf-dev/examples "$tmp/ddf-vxlan"
if make -s -C "$tmp/ddf-vxlan" >"$tmp/example.log" 2>&1 &&
	bpftool btf dump file "$tmp/ddf-vxlan/ddf_vxlan.bpf.o" |
	grep -q "FUNC 'bpf_ddf_xdp' type_id=[0-9]* linkage=extern"; then
	ok "ddf-dev's example builds against /usr/include and calls bpf_ddf_xdp"
else
	sed 's/^/       /' "$tmp/example.log"
	bad "ddf-dev's example does not build against the installed headers"
fi
for u in ddf.service ddf-metrics.timer; do
	s=$(systemctl is-enabled "$u" 2>&1 || true)
	[ "$s" = disabled ] && ok "$u is installed, not enabled" || bad "$u is $s"
done

# the operator's part: enabled units, a rules file of their own
systemctl enable ddf.service ddf-metrics.timer >/dev/null 2>&1 &&
	[ "$(systemctl is-enabled ddf.service)" = enabled ] &&
	ok "systemctl enable ddf.service ddf-metrics.timer" ||
	bad "systemctl enable ddf.service ddf-metrics.timer failed"
echo '# the operator edited this' >>/etc/ddf/ddf.rules

start=$(date +%s)
if purge; then
	ok "apt purge ddf-dkms ddf-tools ddf-dev ($(($(date +%s) - start)) s)"
else
	tail -n 20 "$tmp/purge.log" | sed 's/^/       /'
	bad "apt purge failed"
fi
after=$(traces)
if [ -z "$after" ]; then
	ok "nothing is left: packages, sources, DKMS tree, modules, /etc, units, their links"
else
	bad "left after the purge:"
	echo "$after" | sed 's/^/       /'
fi
[ -z "$(dkms status 2>&1 | grep '^ddf/')" ] && ok "dkms status lists no ddf" ||
	bad "dkms status: $(dkms status 2>&1 | grep '^ddf/')"

echo "test_deb_install: $pass passed, $fail failed"
[ "$fail" = 0 ]
