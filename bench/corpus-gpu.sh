#!/bin/sh
# bench/corpus-gpu.sh: run the corpus's self-checking programs, as nvcc and
# nvcc-lite built them (bench/corpus-build.sh), on a GPU, and compare their
# exit status and the times they print.  See bench/README.md, "On a GPU".
#
#   sh bench/corpus-gpu.sh pack [-o BUNDLE] [-l LIST] BUILD [NAME=BUILD...]
#   sh bench/corpus-gpu.sh run [-o DIR] [-t SECS] [-d SECS] BUNDLE
#   sh bench/corpus-gpu.sh report DIR
#
# pack (here, where the programs were built): the executables of BUILD (a
# corpus-build output directory, nvcc's and nvcc-lite's), of each NAME=BUILD
# (one built with -c, nvcc-lite with other knobs: a variant called NAME),
# each program's data/ directory, the list and this script, into one
# tar.gz (default corpus-gpu.tar.gz) to take to the GPU machine.
#   -l LIST   what to run, a line each: "PROGRAM [ARGS...]", PROGRAM as
#             corpus-build names it (llm.c/dev/cuda/softmax_forward 7);
#             '#' starts a comment.  Default: every program both built.
# run (on the GPU machine; needs only sh, tar and gzip): each line of the list
# by each build in turn, nvcc first, in a copy of the program's directory; a
# variant whose executable is nvcc-lite's, byte for byte, is not run again
# (pack leaves it out of the bundle and names it in the program's "same").
#   -o DIR    output (default corpus-gpu-out): runs.csv, logs/
#   -t SECS   time limit of one run (default 60)
#   -d SECS   start no program after this many seconds (default: none)
# report: per program, each build's exit status against nvcc's and the ratio
# of the times it printed (lines with a time in ms or s: "time 0.12 ms",
# "GPU time: 0.77 msec", "Time = 0.00022 s"; the geometric mean when both
# printed as many), into DIR/corpus-gpu.md and on stdout.
#
# Exit: 0; 1 when a build failed where nvcc's passed (run, report); 2 on a
# usage error.
set -u
me=$0
die() { echo "corpus-gpu: $*" >&2; exit 2; }
usage() { sed -n '2,30p' "$me" | sed 's/^# \{0,1\}//'; }

pack() {
	bundle=corpus-gpu.tar.gz list=''
	while [ $# -gt 0 ]; do
		case $1 in
		-o) bundle=${2:?}; shift 2 ;;
		-l) list=${2:?}; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		-*) die "unknown option '$1' (try --help)" ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || die "pack: no build directory (try --help)"
	base=$1
	shift
	[ -d "$base/corpus-build" ] || die "pack: $base is not a corpus-build output (no corpus-build/)"
	stage=$(mktemp -d) || exit 2
	trap 'rm -rf "$stage"' EXIT
	mkdir "$stage/apps"
	if [ -n "$list" ]; then
		[ -r "$list" ] || die "pack: cannot read $list"
		sed 's/[[:space:]]*#.*//' "$list" | grep . >"$stage/list"
	else
		(cd "$base/corpus-build" && find . -path '*/nvcc/app' | sed 's|^\./||; s|/nvcc/app$||' | sort |
			while read -r p; do [ -x "$p/lite/app" ] && echo "$p"; done) >"$stage/list"
	fi
	n=0
	for p in $(awk '{ print $1 }' "$stage/list" | sort -u); do
		src=$base/corpus-build/$p
		[ -x "$src/nvcc/app" ] || die "pack: $p: nvcc did not build it in $base"
		[ -x "$src/lite/app" ] || die "pack: $p: nvcc-lite did not build it in $base"
		d=$stage/apps/$p
		mkdir -p "$d"
		cp "$src/nvcc/app" "$d/nvcc"
		cp "$src/lite/app" "$d/lite"
		for v in "$@"; do
			name=${v%%=*} dir=${v#*=}
			case $name in ''|nvcc|lite|*[!A-Za-z0-9_-]*) die "pack: bad variant name in '$v'" ;; esac
			va=$dir/corpus-build/$p/lite/app
			[ -x "$va" ] || continue
			# a variant built the same as nvcc-lite is not packed (nor run)
			if cmp -s "$va" "$src/lite/app"; then echo "$name" >>"$d/same"; else cp "$va" "$d/$name"; fi
		done
		# the data a sample reads from its own directory (sdkFindFilePath's ./data/)
		first=$(awk -F'\t' '$1 == "src" { print $2; exit }' "$src/plan" 2>/dev/null)
		for dd in "$(dirname "$first")/data" "$(dirname "$first")/../data"; do
			[ -n "$first" ] && [ -d "$dd" ] && { cp -r "$dd" "$d/data"; break; }
		done
		n=$((n + 1))
	done
	builds='nvcc lite'
	for v in "$@"; do builds="$builds ${v%%=*}"; done
	echo "$builds" >"$stage/builds"
	cp "$me" "$stage/corpus-gpu.sh"
	tar -C "$stage" -czf "$bundle.tmp" apps list builds corpus-gpu.sh && mv "$bundle.tmp" "$bundle" ||
		{ rm -f "$bundle.tmp"; die "pack: cannot write $bundle"; }
	echo "corpus-gpu: $n programs, $(wc -l <"$stage/list") runs, each by: $builds; $bundle"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

run() {
	out=corpus-gpu-out limit=60 deadline=''
	while [ $# -gt 0 ]; do
		case $1 in
		-o) out=${2:?}; shift 2 ;;
		-t) limit=${2:?}; shift 2 ;;
		-d) deadline=${2:?}; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		-*) die "unknown option '$1' (try --help)" ;;
		*) break ;;
		esac
	done
	[ $# -eq 1 ] || die "run: one bundle (try --help)"
	case $limit$deadline in *[!0-9]*) die "run: -t and -d want whole seconds" ;; esac
	work=$(mktemp -d) || exit 2
	trap 'rm -rf "$work"' EXIT
	tar -C "$work" -xzf "$1" 2>/dev/null && [ -f "$work/list" ] && [ -f "$work/builds" ] ||
		die "run: cannot unpack $1 (not a bundle of corpus-gpu.sh pack)"
	mkdir -p "$out/logs" || exit 2
	out=$(cd "$out" && pwd)
	start=$(date +%s) bad=0
	echo "program,args,build,status,ms" >"$out/runs.csv"
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1 || true
	while read -r p args; do
		if [ -n "$deadline" ] && [ $(($(date +%s) - start)) -ge "$deadline" ]; then
			echo "corpus-gpu: deadline: $p and the rest not run" >&2
			break
		fi
		tag=$(echo "$p $args" | tr -c 'A-Za-z0-9_.\n-' '_')
		nvcc_rc=''
		for b in $(cat "$work/builds"); do
			app=$work/apps/$p/$b
			if [ "$b" != nvcc ] && [ "$b" != lite ] && { grep -qx "$b" "$work/apps/$p/same" 2>/dev/null ||
			    cmp -s "$app" "$work/apps/$p/lite"; }; then
				echo "$p,$args,$b,same-as-lite," >>"$out/runs.csv"
				continue
			fi
			[ -x "$app" ] || continue
			t0=$(now_ms)
			# shellcheck disable=SC2086 # ARGS are words
			(cd "$work/apps/$p" && exec timeout "$limit" "./$b" $args) \
				>"$out/logs/$tag.$b.txt" 2>&1 </dev/null
			rc=$?
			echo "$p,$args,$b,$rc,$(($(now_ms) - t0))" >>"$out/runs.csv"
			[ "$b" = nvcc ] && nvcc_rc=$rc
			[ "$b" != nvcc ] && [ "$nvcc_rc" = 0 ] && [ "$rc" != 0 ] && bad=1
		done
	done <"$work/list"
	echo "corpus-gpu: $(($(wc -l <"$out/runs.csv") - 1)) runs in $(($(date +%s) - start)) s; $out/runs.csv, logs in $out/logs"
	return $bad
}

report() {
	[ $# -eq 1 ] && [ -f "$1/runs.csv" ] || die "report: a run's output directory (with runs.csv)"
	dir=$1
	awk -F, -v dir="$dir" '
	function times(file,   line, n, v, u, s) {
		n = 0
		while ((getline line < file) > 0) {
			if (line !~ /[Tt]ime/)
				continue
			s = line
			while (match(s, /[0-9]+\.?[0-9]*(e[-+]?[0-9]+)? *(ms|msec|msecs|s|sec)([^a-zA-Z]|$)/)) {
				v = substr(s, RSTART, RLENGTH)
				u = v; sub(/^[0-9.e+-]+ */, "", u); sub(/[^a-z]$/, "", u)
				v += 0
				t[file, ++n] = (u == "s" || u == "sec") ? v * 1000 : v
				s = substr(s, RSTART + RLENGTH)
			}
		}
		close(file)
		return n
	}
	function tag(p, a,   s) { s = p " " a; gsub(/[^A-Za-z0-9_.-]/, "_", s); return s }
	NR == 1 { next }
	{
		key = $1 SUBSEP $2
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
		st[key, $3] = $4
		if ($3 != "nvcc" && !(($3) in isb)) { isb[$3] = 1; builds[++nb] = $3 }
	}
	END {
		printf "| program | args | nvcc |"
		for (i = 1; i <= nb; i++) printf " %s | %s time / nvcc |", builds[i], builds[i]
		printf "\n|---|---|---|"
		for (i = 1; i <= nb; i++) printf "---|---|"
		printf "\n"
		for (k = 1; k <= nk; k++) {
			split(order[k], pa, SUBSEP)
			nf = dir "/logs/" tag(pa[1], pa[2]) ".nvcc.txt"
			nn = times(nf)
			printf "| %s | %s | %s |", pa[1], pa[2], st[order[k], "nvcc"]
			for (i = 1; i <= nb; i++) {
				b = builds[i]; s = st[order[k], b]
				ratio = "-"
				if (s != "" && s != "same-as-lite") {
					bf = dir "/logs/" tag(pa[1], pa[2]) "." b ".txt"
					nm = times(bf)
					if (nm == nn && nn > 0) {
						sum = 0; cnt = 0
						for (j = 1; j <= nn; j++)
							if (t[nf, j] > 0 && t[bf, j] > 0) { sum += log(t[bf, j] / t[nf, j]); cnt++ }
						if (cnt) {
							ratio = sprintf("%.3f (%d)", exp(sum / cnt), cnt)
							all[b] += sum; alln[b] += cnt
						}
					} else if (nn || nm) {
						ratio = sprintf("%d vs %d times", nm, nn)
					}
					if (st[order[k], "nvcc"] == 0 && s != 0) fail[b]++
				}
				printf " %s | %s |", s == "" ? "-" : s, ratio
			}
			printf "\n"
		}
		printf "\n"
		for (i = 1; i <= nb; i++) {
			b = builds[i]
			printf "%s: failed where nvcc passed: %d; geomean of time ratios: %s\n", b, fail[b] + 0,
			       alln[b] ? sprintf("%.3f over %d times", exp(all[b] / alln[b]), alln[b]) : "-"
			if (fail[b]) bad = 1
		}
		exit bad
	}' "$dir/runs.csv" >"$dir/corpus-gpu.md"
	rc=$?
	cat "$dir/corpus-gpu.md"
	return $rc
}

[ $# -gt 0 ] || { usage; exit 2; }
cmd=$1
shift
case $cmd in
pack) pack "$@" ;;
run) run "$@" ;;
report) report "$@" ;;
-h|--help) usage ;;
*) die "unknown command '$cmd' (pack, run or report; try --help)" ;;
esac
