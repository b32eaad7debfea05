# Shared set-up for every Bats file: paths, libraries, fixtures, assertions.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
# t/run.sh asks once for the whole run; a test run alone asks itself
LLVM_BINDIR=${NV_LLVM_BINDIR:-$(${LLVM_CONFIG:-llvm-config-22} --bindir)}
PATH="$TOP/bin:$LLVM_BINDIR:$PATH"
export PATH
FIXTURES="$TOP/t/fixtures"
# The front end's header cache: the suite's own, not the user's
export NVCC_LITE_CACHE_DIR="${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/nvcc-lite-cache"

# Every stage program (bin/nv-*), for the contract loops.
stages() {
	for p in "$TOP"/bin/nv-*; do basename "$p"; done
}

# text_flag PROG: "-S" when PROG writes bitcode (and so offers -S), else "".
text_flag() {
	"$1" --help | grep -q '^  -S ' && echo -S
}

# fixture_bc NAME: device bitcode of t/fixtures/NAME.cu, as the front end
# gives it (unoptimized, sm_90), built once per test file.
fixture_bc() {
	local out="$BATS_FILE_TMPDIR/$1.bc"
	if [ ! -f "$out" ]; then
		CUDA_PATH=/nonexistent clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 \
			-nocudalib -nocudainc -include "$TOP/share/nvcc-lite/cuda_shim.h" \
			-Wno-unknown-cuda-version -O3 -Xclang -disable-llvm-passes \
			-emit-llvm -c "$FIXTURES/$1.cu" -o "$out" || return 1
	fi
	echo "$out"
}

# have_ptxas: true when the real assembler is installed.
have_ptxas() {
	command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]
}

# have_nvcc: true when nvcc is installed (to compare with).
have_nvcc() {
	command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" ]
}

# nvcc_bin: the nvcc have_nvcc found.
nvcc_bin() {
	command -v nvcc 2>/dev/null || echo "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"
}

ptxas_bin() {
	command -v ptxas 2>/dev/null || echo /usr/local/cuda/bin/ptxas
}

# assert_one_error PROG: the last `run --separate-stderr` failed with
# exactly one line on stderr, naming PROG, and nothing on stdout.
assert_one_error() {
	local prog=$1 lines
	lines=$(printf '%s' "$stderr" | grep -c '')
	[ "$lines" -eq 1 ] || fail "$prog: expected one line on stderr, got $lines: $stderr"
	[[ "$stderr" == "$prog: error: "* ]] || fail "$prog: stderr does not start with '$prog: error: ': $stderr"
	[ -z "$output" ] || fail "$prog: expected nothing on stdout, got: ${output:0:200}"
}

# The header cache stores no entry built from a file changed within 100 ms
# of its build (it could change again unseen, its times no different): a
# test that edits a header and expects an entry lets that time pass first.
settle() {
	sleep 0.2
}

# CUDA's tools and runtime that whole builds need: ptxas, fatbinary, nvlink,
# the static cudart.
have_cuda() {
	local r=${CUDA_PATH:-/usr/local/cuda}
	[ -x "$r/bin/ptxas" ] && [ -x "$r/bin/fatbinary" ] && [ -x "$r/bin/nvlink" ] &&
		[ -f "$r/lib64/libcudart_static.a" ]
}

need_cuda() {
	have_cuda || skip "needs CUDA (ptxas, fatbinary, nvlink, cudart)"
}
