#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd units of systemd/: systemd-analyze verify takes each one
# without a word (the commands they run named as this build's ddfctl), and
# ddf.service is the boot unit ddfctl(8) describes: a oneshot that stays
# active, ordered before network-pre.target, whose default rules file
# restores as nothing at all.
# Usage: tests/tools/test_units.sh [BUILD_DIR]
set -e

B=${1:-build}
CTL=$(cd "$(dirname "$B/ddfctl")" && pwd)/ddfctl
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

if ! command -v systemd-analyze >/dev/null; then
	echo "FAIL systemd-analyze is not installed (package systemd)"
	exit 1
fi
for unit in systemd/*.service systemd/*.timer systemd/*.path; do
	[ -e "$unit" ] || continue
	name=${unit##*/}
	sed "s|/usr/sbin/ddfctl|$CTL|g" "$unit" >"$tmp/$name"
	# man pages: not installed here (test_install.sh renders them)
	if out=$(systemd-analyze verify --man=no "$tmp/$name" 2>&1) && [ -z "$out" ]; then
		ok "systemd-analyze verify $unit"
	else
		bad "systemd-analyze verify $unit: $out"
	fi
done

# a broken copy must be refused, or the check above proves nothing
sed 's/^RemainAfterExit=/RemainAfterExt=/' "$tmp/ddf.service" >"$tmp/broken.service"
if out=$(systemd-analyze verify --man=no "$tmp/broken.service" 2>&1) && [ -z "$out" ]; then
	bad "systemd-analyze verify takes a unit with an unknown key"
else
	ok "systemd-analyze verify names an unknown key: $out"
fi

u=systemd/ddf.service
for line in Type=oneshot RemainAfterExit=yes Wants=network-pre.target \
	SuccessExitStatus=75 \
	'ExecStart=-/sbin/modprobe nf_ddf' \
	'ExecStart=/usr/sbin/ddfctl restore --wait ${DDF_DEVICE_WAIT} ${DDF_RULES}' \
	'ExecReload=/usr/sbin/ddfctl apply --wait 0 ${DDF_RULES}' \
	'ExecStop=-/usr/sbin/ddfctl xdp detach all' \
	'ExecStop=/usr/sbin/ddfctl rule flush'; do
	grep -qxF -- "$line" "$u" && ok "$u: $line" || bad "$u has no '$line'"
done
for w in Before=network-pre.target After=systemd-udev-trigger.service; do
	grep -qE "^${w%%=*}=(.* )?${w#*=}( |\$)" "$u" && ok "$u: $w" ||
		bad "$u is not $w"
done
# the defaults the unit sets are those /etc/default/ddf describes
for v in DDF_RULES=/etc/ddf/ddf.rules DDF_DEVICE_WAIT=10; do
	grep -q "^Environment=.*\b$v\b" "$u" && grep -qx "#$v" systemd/ddf.default &&
		ok "default $v" || bad "default $v: not in both $u and systemd/ddf.default"
done
if "$CTL" -n restore systemd/ddf.rules >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ] &&
	"$CTL" -n apply --against systemd/ddf.rules systemd/ddf.rules >"$tmp/out" 2>&1 &&
	grep -qx 'apply (dry run): rules: 0 kept, 0 changed, 0 added, 0 deleted; xdp: 0 kept, 0 attached, 0 detached' "$tmp/out"; then
	ok "the default ddf.rules restores and applies as nothing"
else
	bad "the default ddf.rules: $(cat "$tmp/out")"
fi

echo "test_units: $pass passed, $fail failed"
[ "$fail" = 0 ]
