#!/usr/bin/env bats
# libnv's layers (lib/README.md) through t/layers.sh: no file includes a
# layer above its own or a file listed after it in its folder's README,
# no include cycle; and the check fails on each kind of planted include.

load helper

# A copy of what the check reads (sources, headers, READMEs, the Makefile)
# in $BATS_TEST_TMPDIR/top, for planting a bad include.
copy_tree() {
	mkdir -p "$BATS_TEST_TMPDIR/top"
	(cd "$TOP" && find lib -name '*.[ch]' -o -name '*.def' -o -name README.md | tar -cf - Makefile -T -) |
		tar -C "$BATS_TEST_TMPDIR/top" -xf -
	cd "$BATS_TEST_TMPDIR/top"
}

@test "every file of lib/ is in a layer and its folder's list, and includes only what comes before it" {
	run sh "$TOP/t/layers.sh" "$TOP"
	assert_success
	assert_output ""
}

@test "the layers are the Makefile's, and each has its README" {
	assert_equal "$(sed -n 's/^LAYERS = //p' "$TOP/Makefile")" "base ir stages driver"
	for l in base ir stages driver; do
		assert_file_exists "$TOP/lib/$l/README.md"
	done
	assert_equal "$(ls "$TOP"/lib/*.[ch] 2>/dev/null)" ""
}

# bats test_tags=slow
@test "the check fails on an include of a layer above the file's own" {
	copy_tree
	run sh "$TOP/t/layers.sh" .
	assert_success
	echo '#include "../driver/plan.h"' >>lib/base/util.c
	run sh "$TOP/t/layers.sh" .
	assert_failure 1
	assert_line 'layers: lib/base/util.c includes "../driver/plan.h", of driver, above base'
}

# bats test_tags=slow
@test "the check fails on an include cycle between files, and on an include of a file listed later" {
	copy_tree
	# io includes diag: diag including io closes a circle
	echo '#include "io.h"' >>lib/base/diag.c
	run sh "$TOP/t/layers.sh" .
	assert_failure 1
	assert_line 'layers: lib/base/diag.c includes "io.h", listed after it in base/README.md'
	assert_line 'layers: include cycle: lib/base/diag -> lib/base/io -> lib/base/diag'
	# the driver's plan runs nothing: its planner may not include the run
	copy_tree
	sed -i 's|^#include "job.h"$|#include "job.h"\n#include "run.h"|' lib/driver/plan.c
	run sh "$TOP/t/layers.sh" .
	assert_failure 1
	assert_line 'layers: lib/driver/plan.c includes "run.h", listed after it in driver/README.md'
}

# bats test_tags=slow
@test "the check fails on a file outside the layers or the lists, and on an include not relative to the file" {
	copy_tree
	touch lib/stray.c lib/ir/stray.c
	sed -i 's|^#include "../base/util.h"$|#include "base/util.h"|' lib/ir/cfg.c
	run sh "$TOP/t/layers.sh" .
	assert_failure 1
	assert_line 'layers: lib/stray.c is in no layer (base ir stages driver)'
	assert_line "layers: lib/ir/stray.c is not in ir/README.md's list"
	assert_line 'layers: lib/ir/cfg.c includes "base/util.h", which is not a file beside it (lib/ includes by relative path)'
}
