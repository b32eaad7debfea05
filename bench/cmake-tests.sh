#!/bin/sh
# bench/cmake-tests.sh: CMake's own CUDA test projects (Tests/Cuda/* and
# Tests/CudaOnly/* of a Kitware/CMake source tree, at the version of the
# cmake at hand) built with a CUDA compiler named by its path alone, the way
# a user names one: cmake -DCMAKE_CUDA_COMPILER=PATH, no initial cache.
#
#   sh bench/cmake-tests.sh [-o DIR] [-k REGEX] [-j N] COMPILER CMAKE_SOURCE
#
#   -o DIR     output directory (default bench/out/cmake-NAME, NAME the
#              compiler's base name)
#   -k REGEX   only the tests whose name (Cuda.Complex) matches this ERE
#   -j N       build with N jobs (default 2)
#
# Each test as CMake's own test suite runs it (Tests/Cuda*/CMakeLists.txt):
# configure, build, then the test's command (the program add_test_macro
# names, or ctest in the build tree for the ones that declare their own
# tests).  DIR/results.csv has a row a test: name, configure, build, run
# (ok, fail or -), and DIR/NAME.log the output of each step.  The run step
# needs a GPU wherever the program launches a kernel; compare two compilers'
# rows from the same machine.  Exit 0 when every step that ran passed.
set -u
out=
only=
jobs=2
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=${2:?}; shift 2 ;;
	-k) only=${2:?}; shift 2 ;;
	-j) jobs=${2:?}; shift 2 ;;
	-*) echo "cmake-tests.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: sh bench/cmake-tests.sh [-o DIR] [-k REGEX] [-j N] COMPILER CMAKE_SOURCE" >&2; exit 2; }
cc=$1 src=$2
case $cc in /*) ;; *) cc=$(command -v "$cc") || { echo "cmake-tests.sh: no compiler '$1'" >&2; exit 2; } ;; esac
[ -f "$src/Tests/Cuda/CMakeLists.txt" ] || { echo "cmake-tests.sh: no Tests/Cuda in '$src'" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
out=${out:-$top/bench/out/cmake-$(basename "$cc")}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

# "Cuda.Complex Tests/Cuda/Complex CudaComplex": the name, the source, the
# command (a program, perhaps in a directory of the build: main/Prog), from
# add_cuda_test_macro(NAME COMMAND) and add_test(NAME ...)
tests() {
	for suite in Cuda CudaOnly; do
		sed -n 's/^ *add_cuda_test_macro(\([^ ]*\) \([^ )]*\)).*/\1 \2/p; s/^add_test(NAME \([^ ]*\) COMMAND.*/\1 -ctest-/p' \
			"$src/Tests/$suite/CMakeLists.txt" |
		while read -r name cmd; do
			echo "$name $src/Tests/$suite/${name#*.} $cmd"
		done
	done
}

step() { # name log command...: ok or fail
	log=$1; shift
	if "$@" >>"$log" 2>&1; then echo ok; else echo fail; fi
}

echo "test,configure,build,run" > "$out/results.csv"
bad=0
tests | sort -u | while read -r name dir cmd; do
	[ -n "$only" ] && ! echo "$name" | grep -Eq "$only" && continue
	b=$out/build/$name log=$out/$name.log
	rm -rf "$b" "$log"
	c=$(step "$log" cmake -S "$dir" -B "$b" -DCMAKE_CUDA_COMPILER="$cc")
	m=- r=-
	[ "$c" = ok ] && m=$(step "$log" cmake --build "$b" -j "$jobs")
	if [ "$m" = ok ]; then
		if [ "$cmd" = -ctest- ]; then
			r=$(cd "$b" && step "$log" ctest --output-on-failure)
		else
			exe=$(find "$b" -type f -path "*/$cmd" -perm -u+x | head -1)
			if [ -n "$exe" ]; then r=$(cd "$(dirname "$exe")" && step "$log" "$exe"); else r=fail; echo "no program $cmd" >> "$log"; fi
		fi
	fi
	echo "$name,$c,$m,$r" | tee -a "$out/results.csv"
done
awk -F, 'NR > 1 { n++; c += $2 == "ok"; m += $3 == "ok"; r += $4 == "ok" }
	END { printf "%d tests: %d configure, %d build, %d run\n", n, c, m, r }' "$out/results.csv"
! grep -q ',fail' "$out/results.csv"
