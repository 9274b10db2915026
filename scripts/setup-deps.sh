#!/bin/sh
# Installs what cbtools needs on a fresh Debian 12 machine, and only what is
# missing: valgrind (the tool links its static libraries), protobuf-c (library
# and compiler), the Z3 library, a C compiler, and perl's prove; for the
# tests of cbtest: meson and ninja (a project run through `cbtest --wrap`)
# and Python's jsonschema (report.sarif against the SARIF schema); clang
# with libFuzzer for the fuzz harnesses; GLib's development files (the test
# programs that use GLib's locks) and its installed tests (the threaded
# suite that scripts/glib-suite.sh runs).
set -eu

# The tool is built for amd64 only (the Makefile says so too).
arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
    echo "setup-deps: this machine is $arch; the cbtools Valgrind tool is built for amd64 (x86_64) Linux only" >&2
    exit 1
fi

missing=""
need() { # need PACKAGE TEST-COMMAND...
    pkg=$1; shift
    if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
need gcc            command -v gcc
need make           command -v make
need valgrind       test -f /usr/lib/x86_64-linux-gnu/valgrind/libcoregrind-amd64-linux.a
need libprotobuf-c-dev test -f /usr/include/protobuf-c/protobuf-c.h
need protobuf-c-compiler command -v protoc-c
need libz3-dev      test -f /usr/include/z3.h
need perl           command -v prove
need meson          command -v meson
need ninja-build    command -v ninja
need python3-jsonschema /usr/bin/python3 -c 'import jsonschema'
# GLib is the C library most programs link, and it has locks of its own
# (GMutex, GCond, g_once: cbtools wraps them); its tests are a ready suite
# of real threaded code.  libglib2.0-dev brings pkg-config with it.
need libglib2.0-dev sh -c 'pkg-config --exists glib-2.0'
need libglib2.0-tests test -x /usr/libexec/installed-tests/glib/mutex
# The fuzz harnesses (tests/fuzz/): clang, and libFuzzer's runtime, which
# Debian 12 ships apart from clang (libclang-rt-14-dev, pulled in by the
# libclang-rt-dev metapackage; clang only recommends it).
need clang          command -v clang
need libclang-rt-dev sh -c 'ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'

[ -z "$missing" ] && exit 0

echo "cbtools: installing:$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "cbtools: setup: cannot install$missing: not root and no sudo" >&2
        exit 2
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y $missing || {
    $SUDO apt-get update && $SUDO apt-get install -y $missing
}
