#!/bin/sh
# deps.sh --check | --install: what nvcc-lite needs to build and test.
#   --check    exit 1 naming the missing packages (used before every build)
#   --install  install them with apt-get when root, else name them and exit 1
# LLVM_CONFIG and BATS may point at other locations.
set -u
mode=${1:---check}
llvm_config=${LLVM_CONFIG:-llvm-config-22}
missing=""

need() { # need PACKAGE TEST...
	pkg=$1; shift
	"$@" >/dev/null 2>&1 || missing="$missing $pkg"
}
have_file() { [ -e "$1" ]; }

need llvm-22-dev command -v "$llvm_config"
need clang-22 command -v clang-22
need llvm-22-tools have_file /usr/lib/llvm-22/bin/FileCheck
if [ "$mode" = --install ]; then
	need bats command -v bats
	# bats --jobs: the tests side by side (t/run.sh)
	need parallel command -v parallel
	need bats-support have_file /usr/lib/bats/bats-support/load.bash
	need bats-assert have_file /usr/lib/bats/bats-assert/load.bash
	need bats-file have_file /usr/lib/bats/bats-file/load.bash
	need libclang-rt-22-dev have_file /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a
	need zsh command -v zsh
	need csmith command -v csmith
	# the ecosystem tests: pkg-config, man pages, LLVM's opt-viewer
	need pkg-config command -v pkg-config
	need groff-base command -v groff
	need man-db command -v man
	need python3-yaml have_file /usr/lib/python3/dist-packages/yaml/__init__.py
	need python3-pygments have_file /usr/lib/python3/dist-packages/pygments/__init__.py
	need libcsmith-dev have_file /usr/include/csmith/csmith.h
	# the build caches teams put in front of nvcc (t/9013-build-caches.bats)
	need ccache command -v ccache
	need sccache command -v sccache
	need redis-server command -v redis-server
	# CMake with nvcc-lite named as its CUDA compiler (t/9007-whole-build.bats)
	need cmake command -v cmake
fi
[ -z "$missing" ] && exit 0

if [ "$mode" = --check ]; then
	echo "nvcc-lite: missing packages:$missing (run 'make deps' as root, or apt-get install$missing)" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "nvcc-lite: missing packages:$missing; as root run: apt-get install$missing" >&2
	exit 1
fi
echo "nvcc-lite: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 && apt-get install -y -qq $missing >&2 || {
	echo "nvcc-lite: apt-get could not install$missing" >&2
	exit 1
}
