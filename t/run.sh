#!/bin/sh
# Runs the Bats suite, a tier of it, as TAP, tests side by side, and
# closes with the ten slowest tests, the ten slowest files and one summary
# line, "N passed, N failed, N skipped in M s".
#
#   t/run.sh [-t fast|slow|all] [-j N] [FILE...]
#
# -t: the tier (default fast): "slow" is the tests tagged slow (sweeps,
# probe batteries, long property runs: `# bats test_tags=slow`, or a
# file's `# bats file_tags=slow`), "fast" every other one, "all" both.
# -j: how many tests run at once (default: $NV_TEST_JOBS, else the CPUs);
# tests tagged serial (timings, the jobserver, mounts) run after, one at a
# time.  FILE...: Bats files or directories (default t).
# Each test's and file's seconds go to t/out/times-TIER.tsv (file, test,
# seconds, result), so a change's effect on the suite can be compared.
# Exit status: 0 when no test failed.
set -u
cd "$(dirname "$0")/.." || exit 1
tier=fast jobs=${NV_TEST_JOBS:-}
while getopts t:j: o; do
	case $o in
	t) tier=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) echo "usage: t/run.sh [-t fast|slow|all] [-j N] [FILE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $tier in
fast) sel='!slow,' ;;
slow) sel='slow,' ;;
all) sel= ;;
*) echo "t/run.sh: no tier '$tier' (fast, slow or all)" >&2; exit 2 ;;
esac
[ -n "$jobs" ] || jobs=$(nproc 2>/dev/null || echo 1)
[ $# -gt 0 ] || set -- t
mkdir -p t/out
raw=t/out/raw-$tier.txt
: >"$raw"
export NV_TEST_RAW="$PWD/$raw"
NV_LLVM_BINDIR=$(${LLVM_CONFIG:-llvm-config-22} --bindir) || exit 1
export NV_LLVM_BINDIR
start=$(date +%s)
rc=0
# bats --jobs needs GNU parallel; without it, one at a time
if [ "$jobs" -gt 1 ] && command -v parallel >/dev/null 2>&1; then
	# files side by side, each file's tests in turn: a test of its own
	# through GNU parallel costs more than most tests
	bats --timing --formatter "$PWD/t/tap.sh" --jobs "$jobs" --no-parallelize-within-files \
		--filter-tags "${sel}!serial" "$@" || rc=1
else
	bats --timing --formatter "$PWD/t/tap.sh" --filter-tags "${sel}!serial" "$@" || rc=1
fi
bats --timing --formatter "$PWD/t/tap.sh" --filter-tags "${sel}serial" "$@" || rc=1
secs=$(($(date +%s) - start))
# bats' extended stream: "suite FILE", then "ok N NAME in T ms [# skip ...]"
awk -v tsv="t/out/times-$tier.tsv" -v secs="$secs" -v tier="$tier" '
	function ms(line) { return match(line, / in [0-9]+ms/) ? substr(line, RSTART + 4, RLENGTH - 6) + 0 : 0 }
	function name(line, n) { sub(/^(not )?ok [0-9]+ /, "", line); sub(/ in [0-9]+ms.*$/, "", line); return line }
	/^suite / { file = $2; sub(/.*\//, "", file); next }
	/^(not )?ok [0-9]+ / {
		res = /^not ok/ ? "failed" : / # skip/ ? "skipped" : "passed"
		n[res]++
		t = ms($0) / 1000
		per_file[file] += t
		test_name = name($0)
		printf "%s\t%s\t%.1f\t%s\n", file, test_name, t, res >tsv
		tests[++count] = sprintf("%8.1f  %s: %s", t, file, test_name)
		times[count] = t
	}
	END {
		printf "\nthe ten slowest tests (s):\n"
		for (k = 0; k < 10 && k < count; k++) {
			best = 0
			for (i = 1; i <= count; i++) if (!(i in done) && (!best || times[i] > times[best])) best = i
			done[best] = 1
			print tests[best]
		}
		printf "the ten slowest files (s, their tests added):\n"
		for (k = 0; k < 10; k++) {
			bestf = ""
			for (f in per_file) if (!(f in fdone) && (bestf == "" || per_file[f] > per_file[bestf])) bestf = f
			if (bestf == "") break
			fdone[bestf] = 1
			printf "%8.1f  %s\n", per_file[bestf], bestf
		}
		printf "%d passed, %d failed, %d skipped in %d s (tier %s)\n", n["passed"], n["failed"], n["skipped"], secs, tier
	}' "$raw"
rm -f "$raw"
exit "$rc"
