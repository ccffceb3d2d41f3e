#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The toolchain matrix: three generations of GNU producers of .sframe.
#
#   bookworm  host            gcc 12 / binutils 2.40    SFrame V1
#   trixie    chroot          gcc 14 / binutils 2.44    SFrame V2
#   sid       chroot          gcc 16 / binutils 2.47    SFrame V3
#
# Usage:
#   tools/toolchain.sh ensure [SUITE...]   build missing chroots (default: trixie sid)
#   tools/toolchain.sh install SUITE PKG...  make sure PKGs are installed in
#                                          SUITE's chroot (a test that needs
#                                          more than the base packages calls
#                                          this; idempotent)
#   tools/toolchain.sh host-deps           install the host's Debian packages
#   tools/toolchain.sh run SUITE CMD...    run CMD with SUITE's tools, in $PWD
#   tools/toolchain.sh path SUITE          print the chroot folder
#
# Chroots are cached outside the build tree, in $SFU_CHROOT_DIR (default
# /var/cache/sfu-chroots), so a fresh clone reuses them.  Changes to a
# chroot (building it, adding packages) hold a lock, so clones that share
# the cache take turns; packages are only ever added, never removed, so
# checkouts that need different extras can share one chroot.  `run` bind-mounts
# the current directory at the same path inside the chroot, in a private
# mount namespace (nothing is left mounted), so paths are the same inside
# and outside.  SUITE=bookworm runs CMD on the host directly.
set -euo pipefail

CHROOT_DIR=${SFU_CHROOT_DIR:-/var/cache/sfu-chroots}

# The Debian mirror debootstrap fetches from: SFU_MIRROR if set, else the
# one this machine's apt already uses (a local mirror or proxy keeps
# working), else deb.debian.org.
apt_mirror() {
	local u
	u=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk 'tolower($1) == "uris:" { uri = $2 } tolower($1) == "suites:" && uri != "" {
			for (i = 2; i <= NF; i++) if ($i !~ /-security$/) { print uri; exit } }')
	[ -n "$u" ] || u=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
		awk '$3 !~ /-security$/ && $2 ~ /^(https?|file):/ { print $2; exit }')
	echo "${u:-http://deb.debian.org/debian}"
}
MIRROR=${SFU_MIRROR:-$(apt_mirror)}

# Host packages every target of the Makefile may need.
HOST_PKGS="debootstrap gcc clang lld-14 binutils gcc-aarch64-linux-gnu
 binutils-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
 qemu-system-x86 qemu-user libunwind-dev libfuzzer-14-dev libclang-rt-14-dev
 valgrind make python3 libelf-dev libdw-dev"

# The install suite's consumers: CMake (find_package, add_subdirectory,
# FetchContent) and pkg-config.
HOST_PKGS="$HOST_PKGS cmake pkgconf"

# Packages inside each chroot.  s390x cross tools only where the suite has
# an SFrame-capable s390x assembler (binutils >= 2.45).
COMMON_PKGS="gcc binutils libc6-dev gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross make"
SID_EXTRA="gcc-s390x-linux-gnu binutils-s390x-linux-gnu"

die() { echo "toolchain.sh: $*" >&2; exit 1; }

need_root() {
	[ "$(id -u)" = 0 ] || die "building chroots needs root (debootstrap); run as root or: sudo $0 $*"
}

pkgs_for() {
	case "$1" in
	trixie) echo "$COMMON_PKGS" ;;
	sid) echo "$COMMON_PKGS $SID_EXTRA" ;;
	*) die "unknown suite '$1' (trixie or sid)" ;;
	esac
}

host_deps() {
	local missing=""
	for p in $HOST_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		die "missing Debian packages:$missing
  install with: sudo apt-get update && sudo apt-get install -y$missing"
	fi
	echo "toolchain.sh: installing host packages:$missing" >&2
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null; then
		apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
			die "apt-get install$missing failed"
	fi
}

# Serialise changes to the chroot cache (several clones may share it).
lock_cache() {
	mkdir -p "$CHROOT_DIR"
	exec 8>"$CHROOT_DIR/.lock"
	flock 8
}

# Packages of LIST not installed in the chroot at ROOT.
chroot_missing() { # ROOT PKG...
	local root=$1 p missing=""
	shift
	for p in "$@"; do
		chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	echo "$missing"
}

chroot_install() { # SUITE PKG...
	local suite=$1 root="$CHROOT_DIR/$1" missing
	shift
	missing=$(chroot_missing "$root" "$@")
	[ -z "$missing" ] && return 0
	need_root install "$suite"
	echo "toolchain.sh: installing into the $suite chroot:$missing" >&2
	# Check-Valid-Until off: the archive may be a frozen snapshot whose
	# Release files have expired (debootstrap does not check; apt does).
	local rc=0
	unshare -m -- sh -c '
		root=$1; shift
		mount -t proc proc "$root/proc" 2>/dev/null || true
		chroot "$root" sh -c "apt-get -o Acquire::Check-Valid-Until=false update -q >/dev/null &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $*"
	' sh "$root" $missing >>"$CHROOT_DIR/$suite.log" 2>&1 || rc=$?
	if [ $rc != 0 ]; then
		tail -20 "$CHROOT_DIR/$suite.log" >&2
		die "apt-get install$missing in the $suite chroot failed (log: $CHROOT_DIR/$suite.log)"
	fi
	missing=$(chroot_missing "$root" $missing)
	[ -z "$missing" ] || die "still missing in the $suite chroot:$missing"
}

ensure_one() {
	local suite=$1 root="$CHROOT_DIR/$1"
	local pkgs; pkgs=$(pkgs_for "$suite")
	# Ready and nothing missing: no lock, no root needed.
	if [ -f "$root/.sfu-ready" ] && [ -z "$(chroot_missing "$root" $pkgs)" ]; then
		return 0
	fi
	need_root ensure "$suite"
	lock_cache
	if [ ! -f "$root/.sfu-ready" ]; then
		command -v debootstrap >/dev/null || host_deps
		echo "toolchain.sh: building the $suite chroot in $root from $MIRROR (once)" >&2
		rm -rf "$root.tmp"
		local inc; inc=$(echo $pkgs | tr ' ' ',')
		if ! debootstrap --variant=minbase --include="$inc" "$suite" "$root.tmp" "$MIRROR" \
			>"$CHROOT_DIR/$suite.log" 2>&1; then
			tail -20 "$CHROOT_DIR/$suite.log" >&2
			die "debootstrap of $suite failed (log: $CHROOT_DIR/$suite.log)"
		fi
		rm -rf "$root"
		mv "$root.tmp" "$root"
		date -u +%FT%TZ >"$root/.sfu-ready"
	fi
	# An older cache, or a suite whose base list grew: add what is missing.
	chroot_install "$suite" $pkgs
	exec 8>&-
}

run_in() {
	local suite=$1; shift
	if [ "$suite" = bookworm ]; then
		exec "$@"
	fi
	local root="$CHROOT_DIR/$suite"
	[ -f "$root/.sfu-ready" ] || die "no $suite chroot; run: $0 ensure $suite"
	local here; here=$(pwd -P)
	mkdir -p "$root$here"
	# Private mount namespace: the bind mount disappears with the command.
	exec unshare -m -- sh -c '
		root=$1; here=$2; shift 2
		mount --bind "$here" "$root$here" || exit 125
		mount -t proc proc "$root/proc" 2>/dev/null || true
		exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$here" "$@"
	' sh "$root" "$here" "$@"
}

cmd=${1:-}; shift || true
case "$cmd" in
ensure)
	[ $# -gt 0 ] || set -- trixie sid
	for s in "$@"; do ensure_one "$s"; done ;;
install)
	[ $# -ge 2 ] || die "usage: $0 install SUITE PKG..."
	suite=$1; shift
	pkgs_for "$suite" >/dev/null
	ensure_one "$suite"
	lock_cache
	chroot_install "$suite" "$@" ;;
host-deps) host_deps ;;
run)
	[ $# -ge 2 ] || die "usage: $0 run SUITE CMD..."
	run_in "$@" ;;
path)
	echo "$CHROOT_DIR/${1:?suite}" ;;
*) die "usage: $0 ensure [SUITE...] | install SUITE PKG... | host-deps | run SUITE CMD... | path SUITE" ;;
esac
