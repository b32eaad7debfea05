#!/usr/bin/env bats
# -save-decisions and -decisions: the choices nv-inline, nv-unroll and
# nv-vectorize take,
# saved as lines a person can edit and replayed; the round trip gives the
# same PTX, an edited line changes that one decision, and a line that
# matches nothing is said.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$FIXTURES/explain.cu" x.cu
	cat > inl.cu <<'EOF2'
__device__ float poly(float x, const float *c)
{
	float s = 0;
	for (int i = 0; i < 8; i++)
		s = s * x + c[i];
	return s;
}

__global__ void k(float *out, const float *in, const float *c)
{
	out[threadIdx.x] = poly(in[threadIdx.x], c);
}
EOF2
}

@test "-save-decisions: a line per choice, keyed by stage, source line and function; replayed, the PTX and the file are the same, and a plain build's" {
	nvcc-lite -arch=sm_90 -ptx x.cu -o plain.ptx
	nvcc-lite -arch=sm_90 -ptx x.cu -o saved.ptx -save-decisions d1.txt
	cmp plain.ptx saved.ptx
	# the three unroll runs and the inliner, each line STAGE FILE:LINE in FUNCTION CHOICE
	grep -qxF "unroll-P x.cu:8 in _Z3bigPfPKfi full count=48" d1.txt
	grep -qxF "unroll-P x.cu:11 in _Z3bigPfPKfi full count=48" d1.txt
	grep -qE '^unroll x\.cu:9 in _Z3bigPfPKfi ' d1.txt
	grep -qE '^unroll-D x\.cu:9 in _Z3bigPfPKfi ' d1.txt
	grep -qE '^inline x\.cu:34 in _Z5smallPi yes callee=' d1.txt
	# nv-remat's target, at the function's first line
	grep -qE '^remat x\.cu:4 in _Z3bigPfPKfi target=[0-9]+$' d1.txt
	run awk '!/^(unroll-P|unroll|unroll-D|inline|unswitch|vectorize|remat) [^ ]+:[0-9]+(#[0-9]+)? in [^ ]+ [a-z]/' d1.txt
	assert_output ""
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o replayed.ptx -decisions d1.txt -save-decisions d2.txt
	assert_success
	assert_equal "$stderr" ""
	cmp saved.ptx replayed.ptx
	cmp d1.txt d2.txt
}

@test "-decisions: an edited line changes that one decision, as the remarks say; the others are replayed as saved" {
	nvcc-lite -arch=sm_90 -ptx x.cu -o saved.ptx -save-decisions d1.txt
	# big's init loop (line 8) stays rolled instead of the early unroll's full unroll
	sed 's/^unroll-P x.cu:8 in _Z3bigPfPKfi full count=48$/unroll-P x.cu:8 in _Z3bigPfPKfi none mark=now/' d1.txt > d2.txt
	[ "$(diff d1.txt d2.txt | grep -c '^>')" -eq 1 ]
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o edited.ptx -decisions d2.txt -save-decisions d3.txt \
		-Xcicc -pass-remarks-missed=nv-unroll
	assert_success
	grep -qF "x.cu:8:" <<<"$stderr" || fail "$stderr"
	grep -F "x.cu:8:" <<<"$stderr" | grep -qF "not unrolled: as -decisions says" || fail "$stderr"
	grep -qxF "unroll-P x.cu:8 in _Z3bigPfPKfi none mark=now" d3.txt
	! cmp -s saved.ptx edited.ptx
	# the other kernels' decisions and PTX are as saved
	for k in _Z4widePfPKfi _Z5smallPi; do
		diff <(grep " in $k " d1.txt) <(grep " in $k " d3.txt)
		diff <(sed -n "/\.entry $k(/,/^}/p" saved.ptx) <(sed -n "/\.entry $k(/,/^}/p" edited.ptx)
	done
	# inlining: "no" keeps the call
	nvcc-lite -arch=sm_90 -ptx inl.cu -o inl.ptx -save-decisions i1.txt
	grep -qE '^inline inl\.cu:11#2 in _Z1kPfPKfS1_ yes callee=_Z4polyfPKf$' i1.txt
	! grep -q 'call' inl.ptx
	sed 's/ yes callee=_Z4polyfPKf$/ no callee=_Z4polyfPKf/' i1.txt > i2.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx inl.cu -o inl2.ptx -decisions i2.txt -Xcicc -pass-remarks-missed=nv-inline
	assert_success
	grep -qF "'_Z4polyfPKf' not inlined into '_Z1kPfPKfS1_': as -decisions says" <<<"$stderr"
	grep -q 'call.uni' inl2.ptx
	# the loop of poly was the kernel's when inlined: its line now matches nothing, and says so
	grep -qxF "nv-unroll: warning: i2.txt:4: decision 'unroll inl.cu:4 in _Z1kPfPKfS1_ full count=8' matched nothing" <<<"$stderr" ||
		fail "$stderr"
}

@test "-decisions: a line that matches nothing is one warning naming it; a line that is not one is one error, and nothing written" {
	nvcc-lite -arch=sm_90 -ptx x.cu -o saved.ptx -save-decisions d1.txt
	{ cat d1.txt; echo "unroll x.cu:99 in _Z3bigPfPKfi full count=4"; echo "# a comment"; echo; } > d2.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o replayed.ptx -decisions d2.txt
	assert_success
	n=$(($(wc -l < d1.txt) + 1))
	assert_equal "$stderr" "nv-unroll: warning: d2.txt:$n: decision 'unroll x.cu:99 in _Z3bigPfPKfi full count=4' matched nothing"
	cmp saved.ptx replayed.ptx
	# a choice the stage does not know: said, and the stage's own taken
	sed 's/^unroll-P x.cu:8 in _Z3bigPfPKfi full count=48$/unroll-P x.cu:8 in _Z3bigPfPKfi sideways/' d1.txt > d3.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o odd.ptx -decisions d3.txt
	assert_success
	[[ "$stderr" == "nv-unroll: warning: decision 'unroll-P x.cu:8 in _Z3bigPfPKfi sideways': not an unroll choice"* ]] || fail "$stderr"
	cmp saved.ptx odd.ptx
	# an empty file (or only comments) replays nothing: the plain build
	printf '# nothing\n\n' > empty.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o empty.ptx -decisions empty.txt
	assert_success
	assert_equal "$stderr" ""
	cmp saved.ptx empty.ptx
	# a line cut short is not one: one error, no PTX
	echo "unroll x.cu:8 in" > cut.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o cut.ptx -decisions cut.txt
	assert_failure
	[ ! -e cut.ptx ]
	assert_one_error nvcc-lite
	# not a line of the format: one error, no PTX
	echo "garbage" > bad.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o bad.ptx -decisions bad.txt
	assert_failure
	[ ! -e bad.ptx ]
	[[ "$stderr" == *"bad.txt:1: not a decision (STAGE FILE:LINE in FUNCTION CHOICE): 'garbage'"* ]] || fail "$stderr"
	[ "$(grep -c 'error' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	# a file that is not there: one error
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o bad.ptx -decisions nothere.txt
	assert_failure
	[ ! -e bad.ptx ]
	# a target line that names no GPU: one error
	printf 'target compute_9x\n' > badt.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o bad.ptx -decisions badt.txt
	assert_failure
	[ ! -e bad.ptx ]
	[[ "$stderr" == *"badt.txt:1: not a target (target compute_XX): 'target compute_9x'"* ]] || fail "$stderr"
}

@test "several targets: a section a target, 'target compute_XX'; an edit in one changes that target's PTX alone; a section for a target not built is a warning" {
	need_cuda
	two=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
	mkdir k1 k2
	nvcc-lite "${two[@]}" -c x.cu -o a.o -save-decisions two.txt -keep -keep-dir k1
	[ "$(grep -c '^target ' two.txt)" -eq 2 ] || fail "$(cat two.txt)"
	[ "$(sed -n 1p two.txt)" = "target compute_80" ] || fail "$(cat two.txt)"
	grep -qx "target compute_90" two.txt
	# replayed whole: the same object
	nvcc-lite "${two[@]}" -c x.cu -o b.o -decisions two.txt
	cmp a.o b.o
	# big's loop of line 8 left rolled in compute_80's section only
	awk '/^unroll-P x.cu:8 in _Z3bigPfPKfi full / && !done { $0 = "unroll-P x.cu:8 in _Z3bigPfPKfi none mark=now"; done = 1 } 1' \
		two.txt > e80.txt
	[ "$(diff two.txt e80.txt | grep -c '^>')" -eq 1 ] || fail "$(diff two.txt e80.txt)"
	nvcc-lite "${two[@]}" -c x.cu -o c.o -decisions e80.txt -keep -keep-dir k2
	! cmp -s k1/x.compute_80.ptx k2/x.compute_80.ptx || fail "compute_80's PTX unchanged"
	cmp k1/x.compute_90.ptx k2/x.compute_90.ptx
	# the lines before any section are every target's
	grep -v '^target ' e80.txt | awk '/^unroll-P x.cu:8 in _Z3bigPfPKfi/' > all.txt
	nvcc-lite -arch=sm_90 -ptx x.cu -o all.ptx -decisions all.txt
	nvcc-lite -arch=sm_90 -ptx x.cu -o plain.ptx
	! cmp -s all.ptx plain.ptx || fail "an unsectioned line not taken"
	# a section for a target the build does not compile
	printf 'target compute_75\nunroll-P x.cu:8 in _Z3bigPfPKfi none mark=now\n' > e75.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o s75.ptx -decisions e75.txt
	assert_success
	assert_equal "$stderr" "nvcc-lite: warning: e75.txt:2: decisions for target compute_75, which this build does not compile"
	cmp s75.ptx plain.ptx
}

@test "-dryrun's script saves the decisions as the run does: each step's file appended, a section a target, -split-compile's parts in the loop" {
	need_cuda
	two=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
	nvcc-lite "${two[@]}" -c x.cu -o a.o -save-decisions real.txt
	nvcc-lite "${two[@]}" -c x.cu -o b.o -save-decisions script.txt -dryrun > s.sh
	[ ! -e script.txt ]
	sh s.sh
	cmp real.txt script.txt
	cmp a.o b.o
	nvcc-lite -arch=sm_90 -ptx x.cu -o r.ptx -save-decisions r.txt -split-compile 2
	nvcc-lite -arch=sm_90 -ptx x.cu -o s.ptx -save-decisions s.txt -split-compile 2 -dryrun > s2.sh
	grep -q '^  cat .* >> "$tmp/decisions"$' s2.sh || fail "$(cat s2.sh)"
	sh s2.sh
	cmp r.txt s.txt
	cmp r.ptx s.ptx
}

@test "the stages take -save-decisions and -decisions alone, as the driver gives them" {
	# after Phase I, with line tables: the main unroll's loops still to decide
	nvcc-lite -arch=sm_90 -emit-llvm -lineinfo x.cu -o x.bc
	nv-unroll -O3 -arch=sm_90 -save-decisions=u1.txt x.bc -o u1.bc
	[ -s u1.txt ]
	run awk '$1 != "unroll"' u1.txt
	assert_output ""
	nv-unroll -O3 -arch=sm_90 -decisions=u1.txt -save-decisions=u2.txt x.bc -o u2.bc
	cmp u1.bc u2.bc
	cmp u1.txt u2.txt
	# no line tables, no places: nothing saved, nothing to match
	nvcc-lite -arch=sm_90 -emit-llvm x.cu -o plain.bc
	nv-unroll -O3 -arch=sm_90 -save-decisions=u3.txt plain.bc -o u3.bc
	[ -e u3.txt ] && [ ! -s u3.txt ]
}

@test "nv-vectorize's choices: vf and ic saved and replayed; none leaves the loop alone, as the remark says" {
	cat > vec.cu <<'EOF2'
__global__ void v(float *o, const float *a, int n)
{
	for (int i = threadIdx.x * 64; i < threadIdx.x * 64 + 64; i++)
		o[i] = a[i] * 2.0f + 1.0f;
}
EOF2
	nvcc-lite -arch=sm_90 -ptx vec.cu -o v1.ptx -save-decisions d1.txt
	grep -qxE 'vectorize vec\.cu:3 in _Z1vPfPKfi vf=[0-9]+ ic=[0-9]+' d1.txt || fail "$(cat d1.txt)"
	nvcc-lite -arch=sm_90 -ptx vec.cu -o v2.ptx -decisions d1.txt -save-decisions d2.txt
	cmp v1.ptx v2.ptx
	cmp d1.txt d2.txt
	sed -E 's/^(vectorize vec\.cu:3 in _Z1vPfPKfi) vf=[0-9]+ ic=[0-9]+$/\1 none/' d1.txt > d3.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx vec.cu -o v3.ptx -decisions d3.txt -save-decisions d4.txt \
		-Xcicc -pass-remarks-missed=nv-vectorize
	assert_success
	[[ "$stderr" == "nv-vectorize: remark: vec.cu:"*" in _Z1vPfPKfi not vectorized: as -decisions says"* ]] ||
		fail "$stderr"
	grep -qxF "vectorize vec.cu:3 in _Z1vPfPKfi none" d4.txt
	# a choice it cannot take: said, and its own kept
	sed -E 's/^(vectorize vec\.cu:3 in _Z1vPfPKfi) vf=[0-9]+ ic=[0-9]+$/\1 vf=3 ic=1/' d1.txt > d5.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx vec.cu -o v5.ptx -decisions d5.txt
	assert_success
	[[ "$stderr" == "nv-vectorize: warning: decision 'vectorize vec.cu:3 in _Z1vPfPKfi vf=3 ic=1': not a vectorize choice"* ]] ||
		fail "$stderr"
	cmp v1.ptx v5.ptx
}

@test "nv-remat's target: saved at the function's line, replayed, and an edited target is the one it aims at" {
	nvcc-lite -arch=sm_90 -ptx x.cu -o r1.ptx -save-decisions d1.txt
	t=$(sed -n 's/^remat x\.cu:19 in _Z4widePfPKfi target=\([0-9]*\)$/\1/p' d1.txt)
	[ -n "$t" ] || fail "$(cat d1.txt)"
	sed "s/^remat x.cu:19 in _Z4widePfPKfi target=$t\$/remat x.cu:19 in _Z4widePfPKfi target=$((t - 7))/" d1.txt > d2.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx x.cu -o r2.ptx -decisions d2.txt -save-decisions d3.txt \
		-Xcicc -pass-remarks-analysis=nv-remat
	assert_success
	grep -qF "target $((t - 7)) (as -decisions says)" <<<"$stderr" || fail "$stderr"
	grep -qxF "remat x.cu:19 in _Z4widePfPKfi target=$((t - 7))" d3.txt
	# the others as saved
	diff <(grep -v '^remat x.cu:19 ' d1.txt) <(grep -v '^remat x.cu:19 ' d3.txt)
}

@test "the unswitch engine's choices: a uniform branch offered (yes), replayed; no keeps the loop whole, and its copies' lines match nothing" {
	cat > us.cu <<'EOF2'
__global__ void u(float *o, const float *a, int n, int mode)
{
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		if (mode)
			o[i] = a[i] * 2.0f;
		else
			o[i] = a[i] + 1.0f;
	}
}
EOF2
	nvcc-lite -arch=sm_90 -ptx us.cu -o u1.ptx -save-decisions d1.txt
	grep -qxF "unswitch us.cu:4 in _Z1uPfPKfii yes" d1.txt
	# unswitched: the loop's two copies each have their decisions (#2)
	grep -qE '^unroll us\.cu:3#2 in _Z1uPfPKfii ' d1.txt
	nvcc-lite -arch=sm_90 -ptx us.cu -o u2.ptx -decisions d1.txt -save-decisions d2.txt
	cmp u1.ptx u2.ptx
	cmp d1.txt d2.txt
	sed 's/^unswitch us.cu:4 in _Z1uPfPKfii yes$/unswitch us.cu:4 in _Z1uPfPKfii no/' d1.txt > d3.txt
	run --separate-stderr nvcc-lite -arch=sm_90 -ptx us.cu -o u3.ptx -decisions d3.txt -Xcicc -pass-remarks-missed=loop-unswitch
	assert_success
	grep -qF "loop not unswitched on '%.not = icmp eq i32 %3, 0': as -decisions says" <<<"$stderr" || fail "$stderr"
	grep -qF "decision 'unroll us.cu:3#2 in _Z1uPfPKfii none' matched nothing" <<<"$stderr" || fail "$stderr"
	! cmp -s u1.ptx u3.ptx
}
