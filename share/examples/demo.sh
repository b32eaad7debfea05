#!/bin/sh
# The main job on the built-in examples: each share/examples/*.cu through
# nvcc-lite to PTX, checked by ptxas when installed, and a per-kernel table
# of registers and spills (beside nvcc's, when nvcc is installed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${DEMO_OUT:-$top/bin/demo}
arch=${ARCH:-sm_90}
mkdir -p "$out"
ptxas=$(command -v ptxas || { [ -x /usr/local/cuda/bin/ptxas ] && echo /usr/local/cuda/bin/ptxas; })
nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
fail=0

# ptxas -v output -> "function regs spill_stores spill_loads" lines
ptxas_table() {
	awk '/Compiling entry function/ { f = $7; gsub(/\047/, "", f) }
	     /bytes spill stores/ { st = $5; ld = $9 }
	     /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") r = $(i + 1);
	                               print f, r, st, ld }'
}

printf '%-12s %-28s %6s %8s %8s %10s\n' example kernel regs spill-st spill-ld nvcc-regs
for cu in "$top"/share/examples/*.cu; do
	name=$(basename "$cu" .cu)
	if ! "$top/bin/nvcc-lite" -ptx -arch="$arch" -O3 "$cu" -o "$out/$name.ptx"; then
		echo "$name: nvcc-lite failed" >&2
		fail=1
		continue
	fi
	if [ -z "$ptxas" ]; then
		printf '%-12s %-28s %6s\n' "$name" "(ptxas not installed)" "-"
		continue
	fi
	if ! "$ptxas" -v -arch="$arch" "$out/$name.ptx" -o /dev/null 2>"$out/$name.ptxas"; then
		cat "$out/$name.ptxas" >&2
		echo "$name: ptxas rejected the PTX" >&2
		fail=1
		continue
	fi
	: >"$out/$name.nvcc"
	if [ -n "$nvcc" ] && "$nvcc" -ptx -arch="$arch" "$cu" -o "$out/$name.nvcc.ptx" 2>/dev/null; then
		"$ptxas" -v -arch="$arch" "$out/$name.nvcc.ptx" -o /dev/null 2>&1 | ptxas_table >"$out/$name.nvcc"
	fi
	ptxas_table <"$out/$name.ptxas" | while read -r fn regs st ld; do
		theirs=$(awk -v f="$fn" '$1 == f { print $2 }' "$out/$name.nvcc")
		short=$(echo "$fn" | { c++filt 2>/dev/null || cat; } | sed 's/(.*//' | cut -c1-28)
		printf '%-12s %-28s %6s %8s %8s %10s\n' "$name" "$short" "$regs" "$st" "$ld" "${theirs:--}"
	done
done
echo "PTX in $out"
exit $fail
