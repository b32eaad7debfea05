#!/usr/bin/env bats
# bats file_tags=serial
# nvcc-lite under GNU make's jobserver (make 4.3's pipe, make 4.4's fifo):
# never more stages computing than make's -j, every token given back, also
# when a compile fails or the build is interrupted.

load helper

setup_file() {
	command -v make >/dev/null || skip "make is not installed"
	command -v flock >/dev/null || skip "flock is not installed"
	export W="$BATS_FILE_TMPDIR/w"
	mkdir -p "$W/bin" "$W/src"
	ln -s "$TOP/share" "$W/share"
	cp "$TOP/bin/nvcc-lite" "$W/bin/"
	# Each stage, wrapped: it first reads all its input (a stage waiting on
	# its pipe is not computing), then counts itself running, under flock,
	# and records the peak.  NVL_FAIL=STAGE makes that stage fail, with a
	# line of its own as a stage does (nvcc-lite then adds none).  The
	# count and a marker change together under the lock, and the SIGTERM
	# trap is set before either: a stage killed at any point uncounts
	# itself exactly once (nvcc-lite stops the rest of a failed chain).
	# Both files are written aside and renamed: a stage killed as it
	# writes (SIGINT to the build) leaves the old value, not an empty file.
	for p in "$TOP"/bin/nv-*; do
		cat >"$W/bin/$(basename "$p")" <<SH
#!/bin/sh
c=$W/count
t=\$(mktemp)
down() { flock \$c.lock sh -c '[ -e "\$1.n" ] || exit 0; rm -f "\$1.n"; echo \$((\$(cat $W/count) - 1)) >\$1.c && mv \$1.c $W/count' x "\$t"; rm -f "\$t"; }
trap '[ -n "\${kid:-}" ] && kill \$kid; down; exit 143' TERM INT
cat >"\$t"
flock \$c.lock sh -c 'n=\$((\$(cat $W/count) + 1)); echo \$n >\$1.c && mv \$1.c $W/count; : >"\$1.n"; [ \$n -gt \$(cat $W/peak) ] && echo \$n >\$1.p && mv \$1.p $W/peak; exit 0' x "\$t"
sleep 0.05
if [ "\${NVL_FAIL:-}" = "\$(basename \$0)" ]; then echo "\$(basename \$0): error: failing, as NVL_FAIL asks" >&2; rc=1; else "$p" "\$@" <"\$t" & kid=\$!; wait \$kid; rc=\$?; kid=; fi
down
exit \$rc
SH
		chmod +x "$W/bin/$(basename "$p")"
	done
	# four files of four kernels each
	set -- "$TOP"/bench/kernels/*.cu
	for i in 0 1 2 3; do
		for k in 1 2 3 4; do
			f=$1; shift
			echo "namespace ns_$(basename "$f" .cu) {"
			grep -v '^#include' "$f"
			echo "}"
		done >"$W/src/f$i.cu"
	done
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	echo 0 >"$W/count"
	echo 0 >"$W/peak"
	cp "$W"/src/*.cu .
	printf 'all: f0.ptx f1.ptx f2.ptx f3.ptx\n%%.ptx: %%.cu\n\t%s$(LITE) -ptx -arch=sm_90 $< -o $@\n' \
		"${PLUS-+}" >Makefile
}

# bats test_tags=slow
@test "make -j2 and -j3: never more stages computing than -j, every token back" {
	for j in 2 3; do
		echo 0 >"$W/peak"
		rm -f ./*.ptx
		run make -j$j LITE="$W/bin/nvcc-lite"
		assert_success
		refute_output --partial "INTERNAL"
		refute_output --partial "warning"
		peak=$(cat "$W/peak")
		[ "$peak" -le "$j" ] || fail "-j$j: $peak stages at once"
		[ "$peak" -ge 2 ] || fail "-j$j: never more than one stage at once"
		for i in 0 1 2 3; do assert_file_exists f$i.ptx; done
	done
	nvcc-lite -ptx -arch=sm_90 f0.cu -o serial.ptx 2>/dev/null
	cmp serial.ptx f0.ptx
}

# bats test_tags=slow
@test "a compile that fails in Phase II gives every token back" {
	printf 'f2.ptx: export NVL_FAIL = nv-unroll\n' >>Makefile
	run make -k -j3 LITE="$W/bin/nvcc-lite"
	assert_failure
	assert_output --partial "nv-unroll: error: failing, as NVL_FAIL asks"
	refute_output --partial "nvcc-lite: error:"
	refute_output --partial "INTERNAL"
	assert_file_not_exists f2.ptx
	assert_file_exists f3.ptx
	[ "$(cat "$W/peak")" -le 3 ]
}

@test "SIGINT to the build: stages stopped, every token back" {
	command -v setsid >/dev/null && command -v perl >/dev/null || skip "setsid or perl missing"
	# a new process group, with SIGINT back to default (bats ignores it in background jobs)
	mkdir tmp
	TMPDIR=$PWD/tmp setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' make -j3 LITE="$W/bin/nvcc-lite" >make.log 2>&1 &
	pid=$!
	for _ in $(seq 100); do [ "$(cat "$W/peak")" -ge 2 ] && break; sleep 0.1; done
	sleep 0.5
	kill -INT -- -"$pid"
	wait "$pid" || true
	for _ in $(seq 50); do [ "$(cat "$W/count")" -le 0 ] && break; sleep 0.1; done
	run cat make.log
	refute_output --partial "INTERNAL"
	[ "$(cat "$W/peak")" -le 3 ]
	# the drivers' temporary directories are gone (tmp.* are the test's wrappers')
	for _ in $(seq 50); do [ -z "$(ls -A tmp | grep nvcc-lite)" ] && break; sleep 0.1; done
	assert_equal "$(ls -A tmp | grep nvcc-lite)" ""
	assert_file_not_exists f0.ptx
}

# bats test_tags=slow
@test "without '+' on the recipe line (CMake's Makefiles): make -j4 prints nothing extra, each compile serial" {
	PLUS= setup
	run --separate-stderr make -s -j4 LITE="$W/bin/nvcc-lite"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" ""
	for i in 0 1 2 3; do assert_file_exists f$i.ptx; done
	# one compile alone runs its four kernels' parts one at a time
	rm f0.ptx
	echo 0 >"$W/peak"
	run --separate-stderr make -s -j4 LITE="$W/bin/nvcc-lite" f0.ptx
	assert_success
	assert_equal "$stderr" ""
	[ "$(cat "$W/peak")" -le 1 ]
	# with '+' the same make -j4 shares make's jobs again
	PLUS=+ setup
	echo 0 >"$W/peak"
	run --separate-stderr make -s -j4 LITE="$W/bin/nvcc-lite" f0.ptx
	assert_success
	assert_equal "$stderr" ""
	[ "$(cat "$W/peak")" -ge 2 ] || fail "the jobserver was not used"
}

# bats test_tags=slow
@test "make 4.4's fifo: a fifo made and filled here, all tokens back after" {
	mkfifo fifo
	exec 7<>fifo
	printf 'ab' >&7
	MAKEFLAGS=" -j3 --jobserver-auth=fifo:$PWD/fifo" run "$W/bin/nvcc-lite" -ptx -arch=sm_90 f1.cu -o f1.ptx
	assert_success
	[ "$(cat "$W/peak")" -le 3 ]
	[ "$(cat "$W/peak")" -ge 2 ] || fail "the tokens were not used"
	read -r -t 2 -n 2 -u 7 back
	# the same two bytes back (in the order they were returned)
	[ "$back" = ab ] || [ "$back" = ba ] || fail "got '$back' back"
	exec 7>&-
}

# bats test_tags=slow
@test "MAKEFLAGS: the last auth wins, -j alone or make -n means no jobserver, -jobserver requires one" {
	MAKEFLAGS=" -j3 --jobserver-auth=fifo:$PWD/nonexistent --jobserver-auth=-2,-2" run nvcc-lite -ptx -arch=sm_90 f0.cu -o a.ptx
	assert_success
	refute_output --partial warning
	MAKEFLAGS="n -j3 --jobserver-auth=fifo:$PWD/nonexistent" run nvcc-lite -ptx -arch=sm_90 f0.cu -o b.ptx
	assert_success
	refute_output --partial warning
	MAKEFLAGS=" -j3 --jobserver-auth=fifo:$PWD/nonexistent" run nvcc-lite -ptx -arch=sm_90 f0.cu -o c.ptx
	assert_success
	assert_output --partial "nvcc-lite: warning: cannot open make's jobserver fifo"
	MAKEFLAGS=" -j3 --jobserver-auth=fifo:$PWD/nonexistent" run --separate-stderr nvcc-lite -ptx -jobserver -arch=sm_90 f0.cu -o d.ptx
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: GNU Jobserver support requested, but an error occurred"
	cmp a.ptx c.ptx
}
