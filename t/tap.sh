#!/bin/sh
# The formatter t/run.sh gives bats (--formatter): bats' extended stream,
# kept for run.sh's timings in $NV_TEST_RAW, printed as TAP.
tee -a "${NV_TEST_RAW:-/dev/null}" | grep --line-buffered -v -e '^suite ' -e '^begin '
