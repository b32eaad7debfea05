#!/usr/bin/env bats
# nvcc-lite --explain: each kernel's ptxas figures and occupancy, the point
# where the IR that goes to instruction selection has the most values live
# and what they are, and the ladder of ptxas runs at the next occupancy
# steps; the PTX itself unchanged.  Known answers in t/fixtures/explain.cu.

load helper

setup_file() {
	have_cuda || return 0
	cd "$BATS_FILE_TMPDIR"
	cp "$FIXTURES/explain.cu" x.cu
	nvcc-lite -arch=sm_90 -ptx x.cu -o plain.ptx
	nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx --explain 2> explain.txt
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$FIXTURES/explain.cu" x.cu
}

# The explanation of x.cu for sm_90, made once.
explained() {
	stderr=$(cat "$BATS_FILE_TMPDIR/explain.txt")
	cp "$BATS_FILE_TMPDIR/x.ptx" "$BATS_FILE_TMPDIR/plain.ptx" .
}

# The figure after "$2" in the stderr line of kernel $1 that has it.
figure() {
	grep -F "kernel '$1'" <<<"$stderr" | grep -F -- "$2" | head -1
}

@test "--explain: ptxas's figures and occupancy of each kernel, the PTX byte for byte a plain compile's" {
	need_cuda
	explained
	cmp plain.ptx x.ptx
	# ptxas's own count for the PTX written
	"$(ptxas_bin)" -arch=sm_90 -v x.ptx -o x.cubin 2> v.txt
	for k in _Z3bigPfPKfi _Z4widePfPKfi _Z5smallPi; do
		r=$(awk -v k="$k" '$0 ~ "entry function ." k "." { w = 1 } w && /Used/ { print $5; exit }' v.txt)
		line=$(figure "$k" " on sm_90: ")
		[[ "$line" == "x.cu:"*": kernel '$k' on sm_90: $r registers, 0 bytes spill stores, 0 bytes spill loads, 0 bytes stack frame" ]] ||
			fail "$k: ptxas says $r: $line"
	done
	# the occupancy words are --resource-usage's
	run --separate-stderr nvcc-lite -arch=sm_90 -cubin x.cu -o x.cubin --resource-usage
	usage=$stderr
	explained
	for k in _Z3bigPfPKfi _Z4widePfPKfi _Z5smallPi; do
		want=$(grep -F "occupancy of '$k' on sm_90: " <<<"$usage" | sed 's/.*on sm_90: //')
		[ -n "$want" ] || fail "no occupancy of $k in $usage"
		grep -qF "kernel '$k': $want" <<<"$stderr" || fail "$k: want '$want' in $stderr"
	done
	figure _Z3bigPfPKfi "its launch bounds" | grep -q "blocks of 128 threads"
}

@test "--explain: the peak's line, the loop around it, and the values live there grouped by what they are" {
	need_cuda
	explained
	# big's 48 accumulators, carried around the loop of line 9, at line 11
	line=$(figure _Z3bigPfPKfi "most live before instruction selection: ")
	[[ "$line" =~ ^x\.cu:11:\ kernel\ \'_Z3bigPfPKfi\':\ most\ live\ before\ instruction\ selection:\ ([0-9]+)\ register\ units,\ ([0-9]+)\ values,\ at\ x\.cu:11\  ]] ||
		fail "$line"
	[ "${BASH_REMATCH[1]}" -ge 50 ] && [ "${BASH_REMATCH[1]}" -le 60 ] || fail "$line"
	figure _Z3bigPfPKfi "in the loop " | grep -q " at x.cu:9, depth 1$"
	grep -qxF "x.cu:11: kernel '_Z3bigPfPKfi':   acc (carried float): 48 x float, 48 units, line 11" <<<"$stderr" ||
		fail "$stderr"
	grep -qxF "x.cu:11: kernel '_Z3bigPfPKfi':   out (argument ptr): 1 x ptr, 2 units, arguments" <<<"$stderr"
	# wide's 40
	grep -qF "kernel '_Z4widePfPKfi':   acc (carried float): 40 x float, 40 units, line " <<<"$stderr"
	# a kernel of one block: its one line
	figure _Z5smallPi "most live" | grep -q "at x.cu:34 in block %entry$"
}

@test "--explain: the ladder meets each step it tries, by -maxrregcount or by the launch bounds that ptxas takes instead" {
	need_cuda
	explained
	# no launch bounds: -maxrregcount at each step below, its registers within the cap
	n=0
	while read -r cap regs blocks; do
		[ "$regs" -le "$cap" ] || fail "-maxrregcount=$cap gave $regs registers"
		n=$((n + 1))
	done < <(grep -F "kernel '_Z4widePfPKfi': -maxrregcount=" <<<"$stderr" |
		sed -E 's/.*-maxrregcount=([0-9]+): ([0-9]+) registers, .* ([0-9]+) blocks? an SM$/\1 \2 \3/')
	[ "$n" -ge 1 ] || fail "no ladder for wide: $stderr"
	# launch bounds: ptxas ignores -maxrregcount for them, so the copy of
	# the PTX asks for the blocks (.minnctapersm), and gets them, highest
	# cap first
	got=$(grep -F "kernel '_Z3bigPfPKfi': __launch_bounds__(128, " <<<"$stderr" |
		sed -E 's/.*__launch_bounds__\(128, ([0-9]+)\): .* ([0-9]+) blocks? an SM$/\1 \2/')
	[ "$(wc -l <<<"$got")" -eq 3 ] || fail "$stderr"
	prev=0
	while read -r want blocks; do
		[ "$want" -eq "$blocks" ] || fail "asked $want blocks, got $blocks"
		[ "$want" -gt "$prev" ] || fail "not in order: $got"
		prev=$want
	done <<<"$got"
	# a kernel at the warp limit has no ladder
	! grep -qF "kernel '_Z5smallPi': -maxrregcount" <<<"$stderr"
}

@test "--explain's what-ifs: each undoes one decision of the kernel, nearest the peak first, and its figures are a real compile's" {
	need_cuda
	explained
	# big: three of its decisions, each a line "what if the loop at
	# FILE:LINE stays rolled (STAGE: CHOICE): R registers (+-D), ..." or
	# "what if remat aims at N register units (remat: target=M): ..."
	[ "$(grep -c "kernel '_Z3bigPfPKfi': what if " <<<"$stderr")" -eq 3 ] || fail "$stderr"
	# flat has no loop: nv-remat aimed at the next step's share of its
	# target, then its calls inlined; none costs it registers, and it says so
	grep -qE "kernel '_Z4flatP6float4PKS_i': what if remat aims at [0-9]+ register units \(remat: target=[0-9]+\): " <<<"$stderr" ||
		fail "$stderr"
	grep -qF "kernel '_Z4flatP6float4PKS_i': what if the call at x.cu:49 stays a call (callee=_ZL11make_float4ffff): " <<<"$stderr"
	grep -qxF "x.cu:42: kernel '_Z4flatP6float4PKS_i': none of these decisions costs it registers" <<<"$stderr"
	# the loop around the peak (line 9) or the peak's own line first in the
	# choice; the report sorts by registers
	line=$(grep -F "kernel '_Z3bigPfPKfi': what if the loop at x.cu:8 stays rolled (unroll-P: full count=48): " <<<"$stderr")
	[ -n "$line" ] || fail "$stderr"
	[[ "$line" =~ :\ ([0-9]+)\ registers\ \(([-+][0-9]+)\),\ ([0-9]+)\ bytes\ spill\ stores,\ ([0-9]+)\ bytes\ stack\ frame,\ ([0-9]+)\ PTX ]] ||
		fail "$line"
	regs=${BASH_REMATCH[1]} frame=${BASH_REMATCH[4]}
	# the same edit by hand, through -decisions, gives the same figures
	nvcc-lite -arch=sm_90 -ptx x.cu -o saved.ptx -save-decisions d.txt
	sed 's/^unroll-P x.cu:8 in _Z3bigPfPKfi full count=48$/unroll-P x.cu:8 in _Z3bigPfPKfi none mark=now/' d.txt > e.txt
	nvcc-lite -arch=sm_90 -ptx x.cu -o edited.ptx -decisions e.txt
	"$(ptxas_bin)" -arch=sm_90 -v edited.ptx -o e.cubin 2> v.txt
	r=$(awk '/entry function ._Z3bigPfPKfi./ { w = 1 } w && /Used/ { print $5; exit }' v.txt)
	f=$(awk '/Function properties for _Z3bigPfPKfi/ { getline; print $1; exit }' v.txt)
	[ "$r" = "$regs" ] && [ "$f" = "$frame" ] || fail "by hand $r registers, $f frame; --explain: $line"
	# a Phase II decision's what-if starts from the explain compile's
	# Phase I module: its figures are still a whole compile's
	line=$(grep -E "kernel '_Z4flatP6float4PKS_i': what if remat aims at [0-9]+ register units \(remat: target=[0-9]+\): " <<<"$stderr")
	[[ "$line" =~ aims\ at\ ([0-9]+)\ register.*\):\ ([0-9]+)\ registers ]] || fail "$line"
	sed -E "s/^(remat x.cu:[0-9]+ in _Z4flatP6float4PKS_i) target=[0-9]+$/\1 target=${BASH_REMATCH[1]}/" d.txt > r.txt
	regs=${BASH_REMATCH[2]}
	! cmp -s d.txt r.txt || fail "no remat line for flat: $(cat d.txt)"
	nvcc-lite -arch=sm_90 -ptx x.cu -o remat.ptx -decisions r.txt
	"$(ptxas_bin)" -arch=sm_90 -v remat.ptx -o r.cubin 2> v.txt
	r=$(awk '/entry function ._Z4flatP6float4PKS_i./ { w = 1 } w && /Used/ { print $5; exit }' v.txt)
	[ "$r" = "$regs" ] || fail "by hand $r registers; --explain: $line"
	# wide has what-ifs too; small (at the warp limit) none
	grep -qF "kernel '_Z4widePfPKfi': what if " <<<"$stderr"
	! grep -qF "kernel '_Z5smallPi': what if" <<<"$stderr"
}

@test "--explain's what-ifs keep their own messages: a loop left rolled takes its remainder's decision lines with it, and nothing says so" {
	need_cuda
	# the t2 loop is unrolled at run time with a remainder loop (line 9's
	# second copy); left rolled, the remainder's lines match nothing
	cat > tri.cu <<'EOF'
__global__ void tri(float *d, const float *a, const float *b, const float *c, int T, int NH)
{
	int t3 = blockIdx.x * blockDim.x + threadIdx.x;
	if (t3 >= T) return;
	for (int h = 0; h < NH; h++)
		for (int t = t3; t < T; t++) {
			const float *ab = a + h * T * T + t * T, *db = b + h * T * T + t * T, *cb = c + h * T * T + t * T;
			float acc = 0.0f, acc2 = 0.0f;
			for (int t2 = 0; t2 <= t; t2++) {
				acc += ab[t2] * ((t2 == t3 ? 1.0f : 0.0f) - ab[t3]) * db[t2];
				acc2 += cb[t2] * db[t2 + 1];
			}
			d[h * T * T + t * T + t3] = acc * acc2;
		}
}
EOF
	nvcc-lite -arch=sm_90 -ptx tri.cu -o t.ptx -save-decisions d.txt
	grep -qE '^unroll tri.cu:9 in _Z3triPfPKfS1_S1_ii runtime ' d.txt || fail "$(cat d.txt)"
	grep -qE '^unroll(-D)? tri.cu:9#2 in ' d.txt || fail "$(cat d.txt)"
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx tri.cu -o t.ptx --explain
	assert_success
	grep -qF "what if the loop at tri.cu:9 stays rolled (unroll: runtime " <<<"$stderr" || fail "$stderr"
	! grep -q 'matched nothing\|warning' <<<"$stderr" || fail "$stderr"
}

@test "--explain-format=json: a JSON object a kernel, with the same figures" {
	need_cuda
	command -v python3 >/dev/null || skip "python3 is not installed"
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx --explain-format=json
	assert_success
	run python3 -c '
import json, sys
ks = {}
for line in sys.stdin:
    k = json.loads(line)
    ks[k["kernel"]] = k
b = ks["_Z3bigPfPKfi"]
assert b["launch_bounds"] and b["threads"] == 128, b
assert b["next_step"]["blocks"] > b["blocks"], b
assert b["peak"]["at"] == "x.cu:11" and b["peak"]["loops"][0]["at"] == "x.cu:9", b["peak"]
acc = [v for v in b["peak"]["live"] if v["what"] == "acc (carried float)"][0]
assert acc["count"] == 48 and acc["units"] == 48 and acc["type"] == "float" and acc["lines"] == "line 11", acc
assert [r["by"] for r in b["ladder"]] == ["launch_bounds"] * 3, b["ladder"]
assert len(b["whatifs"]) == 3 and all(w["registers"] is not None and (w["now"].endswith(" none mark=now") or " target=" in w["now"]) for w in b["whatifs"]), b["whatifs"]
assert b["ptx_instructions"] > 0 and all(w["ptx_instructions"] > 0 for w in b["whatifs"]), b
assert all(r["blocks"] == r["min_blocks"] for r in b["ladder"]), b["ladder"]
w = ks["_Z4widePfPKfi"]
assert all(r["registers"] <= r["maxrregcount"] for r in w["ladder"]) and w["ladder"], w["ladder"]
print(len(ks), b["registers"])
f = ks["_Z4flatP6float4PKS_i"]
assert [w["now"].split()[-1].startswith("target=") for w in f["whatifs"]].count(True) == 1, f["whatifs"]
' <<<"$stderr"
	assert_success
	[[ "$output" == "4 "* ]] || fail "$output"
	# the text gives the same registers
	explained
	figure _Z3bigPfPKfi " on sm_90: ${output#4 } registers"
}

# bats test_tags=slow
@test "--explain on a whole build and several targets: each target's kernels once; the program the same" {
	need_cuda
	nvcc-lite -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -c x.cu -o plain.o
	run --separate-stderr nvcc-lite -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
		-c x.cu -o x.o --explain
	assert_success
	cmp plain.o x.o
	[ "$(grep -c "kernel '_Z3bigPfPKfi' on sm_80: " <<<"$stderr")" -eq 1 ] || fail "$stderr"
	[ "$(grep -c "kernel '_Z3bigPfPKfi' on sm_90: " <<<"$stderr")" -eq 1 ] || fail "$stderr"
	# split into parts, the same explanation
	explained
	one=$stderr
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx --explain -split-compile=3
	assert_success
	assert_equal "$stderr" "$one"
	# nothing of the explanation's compile is left behind, or kept as the build's
	run nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx --explain -keep-dir kd -keep
	assert_success
	ls kd | grep -q '^x\.explain\.bc$'
	[ ! -e x.explain.cubin ] && [ ! -e kd/x.explain.cubin ]
}

@test "--explain: what it cannot explain is said in one line" {
	run --separate-stderr nvcc-lite -E x.cu --explain
	assert_failure
	assert_one_error nvcc-lite
	[[ "$stderr" == *"--explain explains PTX"* ]] || fail "$stderr"
	run --separate-stderr nvcc-lite -ptx x.cu --explain-format=xml
	assert_failure
	assert_one_error nvcc-lite
	run --separate-stderr nvcc-lite -G -ptx x.cu --explain
	assert_failure
	assert_one_error nvcc-lite
	need_cuda
	# the PTX on standard output: explained nowhere, and said so
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o - --explain
	assert_success
	[[ "$stderr" == "nvcc-lite: warning: --explain: the PTX of 'x.cu' goes to standard output, so it is not explained (give -o FILE)" ]] ||
		fail "$stderr"
	[[ "$output" == *".entry _Z3bigPfPKfi"* ]]
}

@test "--explain's compiles are planned beside the build's: the explain compile with clang's value names, up to instruction selection; the what-ifs replaying their files" {
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx --explain -dryrun
	assert_success
	fe=$(grep -F 'x.explain.0-cudafe.bc' <<<"$output" | head -1)
	[[ "$fe" == *" -gline-tables-only "* && "$fe" == *" -fno-discard-value-names"* ]] || fail "$fe"
	grep -F -- '-stop-after=codegenprepare' <<<"$output" | grep -qF -- '-lineinfo'
	grep -qE 'nv-remat .* -o "\$tmp/x\.explain\.bc"' <<<"$output"
	grep -qE 'nv-opt -print=peak -disable-output "\$tmp/x\.explain\.bc"' <<<"$output"
	# the explain compile saves its decisions; each what-if replays its own file
	grep -F 'nv-unroll' <<<"$output" | grep -qF -- '-save-decisions="$tmp/x.explain.'
	for k in 1 2 3; do
		grep -F 'nv-unroll' <<<"$output" | grep -qF -- "-decisions=\"\$tmp/x.whatif$k.dec\"" || fail "what-if $k: $output"
	done
	# the build's own compile is a plain one, its front end's command (and
	# so its header-cache entries) a plain build's: no names, no line tables
	build=$(grep -F -- '-o "$tmp/x.0-cudafe.bc"' <<<"$output")
	[ -n "$build" ] || fail "$output"
	[[ "$build" != *"-fno-discard-value-names"* && "$build" != *"-gline-tables-only"* ]] || fail "$build"
	plain=$(nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx -dryrun | grep -F -- '-o "$tmp/x.0-cudafe.bc"')
	assert_equal "$build" "$plain"
}

@test "--explain through the header cache (the explain compile's entries its own) says what it says without it" {
	need_cuda
	export NVCC_LITE_CACHE_DIR="$BATS_TEST_TMPDIR/cache"
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx --explain -no-cache
	assert_success
	want=$stderr
	for pass in cold warm; do
		run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o x.ptx --explain
		assert_success
		assert_equal "$stderr" "$want"
	done
	# a plain compile's entries and the explain compile's are not the same
	[ "$(find "$NVCC_LITE_CACHE_DIR" -name '*.pch' | wc -l)" -ge 2 ] || fail "$(find "$NVCC_LITE_CACHE_DIR")"
}

@test "the README's worked example is what nvcc-lite prints: the explanation, the decision's line, and the edit's occupancy" {
	need_cuda
	cd "$TOP"
	d=$BATS_TEST_TMPDIR
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx share/examples/registers.cu -o "$d/r.ptx" --explain
	assert_success
	want=$(sed -n 's/^    \(share\/examples\/registers\.cu:12: kernel .*\)$/\1/p' README.md)
	[ -n "$want" ] || fail "no example in README.md"
	assert_equal "$stderr" "$want"
	nvcc-lite -arch=sm_90 -ptx share/examples/registers.cu -o "$d/r.ptx" -save-decisions "$d/r.dec"
	line=$(grep 'registers.cu:7 ' "$d/r.dec")
	grep -qxF "    # $line" README.md || fail "README.md does not show '$line'"
	edit=$(sed -n "s/^    \(sed -i 's.*' \)r\.dec$/\1/p" README.md)
	[ -n "$edit" ] || fail "no sed line in README.md"
	eval "$edit \"\$d/r.dec\""
	run --separate-stderr nvcc-lite -arch=sm_90 -cubin share/examples/registers.cu -o "$d/r.cubin" -decisions "$d/r.dec" --resource-usage
	assert_success
	for l in "$(grep -F 'Used ' <<<"$stderr")" "$(grep -F 'occupancy of' <<<"$stderr")"; do
		[ -n "$l" ] && grep -qxF "    # $l" README.md || fail "README.md does not show '$l'"
	done
}
