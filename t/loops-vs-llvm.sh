#!/usr/bin/env bash
# t/loops-vs-llvm.sh FILE...: our dominator and post-dominator trees, loops
# and trip counts (nv-opt -print=) against LLVM's (opt print<domtree>,
# print<postdomtree>, print<loops>, print<scalar-evolution>) on each module,
# blocks named by instnamer.  Prints the agreement and every disagreement;
# exits 1 if any tree edge or loop differs, or any constant trip count of
# ours differs from LLVM's.
set -u
opt=${OPT:-opt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/all.llvm.loops"; : >"$tmp/all.ours.loops"; : >"$tmp/all.llvm.trip"; : >"$tmp/all.ours.trip"
: >"$tmp/all.llvm.dom"; : >"$tmp/all.ours.dom"
# LLVM's "[k] %b" tree (k = depth) -> "file fn tree block parent"; ours "  %b: idom %p"
norm_llvm_tree() {
	awk -v file="$1" '
	/^DominatorTree for function: / { fn = $4; kind = "dom"; next }
	/^PostDominatorTree for function: / { fn = $4; kind = "postdom"; next }
	/^ *\[[0-9]+\] / { k = $1; gsub(/[][]/, "", k); b = $2; if (b == "<<exit") b = "<exit>"
		at[k] = b; if (k > 1) print file, fn, kind, b, at[k - 1] }' | sort -u
}
norm_our_tree() {
	awk -v file="$1" '
	/^(dom|postdom) for function/ { kind = $1; fn = $4; sub(/^./, "", fn); sub(/.:$/, "", fn); next }
	/: (i|ip)dom / { b = $1; sub(/:$/, "", b); print file, fn, kind, b, $3 }' | sort -u
}
# normalize "<fn> Loop at depth D containing: %a<header>,%b..." -> "file fn depth header sorted-blocks"
norm_loops() {
	awk -v file="$1" '
	/^Loop info for function|^loops for function/ { fn = $0; sub(/.*function ./, "", fn); sub(/.:$/, "", fn); next }
	/Loop at depth/ {
		d = $4; s = $0; sub(/.*containing: /, "", s); n = split(s, b, ",")
		h = ""; out = ""
		for (i = 1; i <= n; i++) { x = b[i]; if (x ~ /<header>/) { h = x }; gsub(/<[a-z]*>/, "", x); bs[i] = x }
		gsub(/<[a-z]*>/, "", h)
		for (i = 2; i <= n; i++) { x = bs[i]; for (j = i - 1; j >= 1 && bs[j] > x; j--) bs[j + 1] = bs[j]; bs[j + 1] = x }
		for (i = 1; i <= n; i++) out = out " " bs[i]; delete bs
		print file, fn, d, h, out }' | sort
}
norm_trip() {
	awk -v file="$1" '
	/^Determining loop execution counts for: @/ { fn = $0; sub(/.*@/, "", fn); next }
	/^tripcount for function/ { fn = $0; sub(/.*function ./, "", fn); sub(/.:$/, "", fn); next }
	/backedge-taken count is i[0-9]+ [0-9-]+$/ && !/max/ { h = $2; sub(/:$/, "", h); print file, fn, h, $NF }' | sort
}
for f in "$@"; do
	name=$(basename "$f")
	"$opt" -passes=instnamer "$f" -o "$tmp/m.bc" 2>/dev/null || { echo "skip $name (opt cannot read it)"; continue; }
	"$opt" -passes='print<domtree>,print<postdomtree>' -disable-output "$tmp/m.bc" 2>&1 | norm_llvm_tree "$name" >>"$tmp/all.llvm.dom"
	nv-opt -print=dom -print=postdom -disable-output "$tmp/m.bc" 2>&1 | norm_our_tree "$name" >>"$tmp/all.ours.dom"
	"$opt" -passes='print<loops>' -disable-output "$tmp/m.bc" 2>&1 | norm_loops "$name" >>"$tmp/all.llvm.loops"
	"$opt" -passes='print<scalar-evolution>' -disable-output "$tmp/m.bc" 2>&1 | norm_trip "$name" >>"$tmp/all.llvm.trip"
	nv-opt -print=loops -print=tripcount -disable-output "$tmp/m.bc" 2>"$tmp/ours" || { echo "nv-opt failed on $name"; exit 1; }
	norm_loops "$name" <"$tmp/ours" >>"$tmp/all.ours.loops"
	norm_trip "$name" <"$tmp/ours" >>"$tmp/all.ours.trip"
done
for k in llvm.loops ours.loops llvm.trip ours.trip llvm.dom ours.dom; do sort -o "$tmp/all.$k" "$tmp/all.$k"; done
domdiff=$(comm -3 "$tmp/all.llvm.dom" "$tmp/all.ours.dom")
nl=$(wc -l <"$tmp/all.llvm.loops")
loopdiff=$(comm -3 "$tmp/all.llvm.loops" "$tmp/all.ours.loops")
nt=$(wc -l <"$tmp/all.llvm.trip")
same=$(comm -12 "$tmp/all.llvm.trip" "$tmp/all.ours.trip" | wc -l)
# ours claims a constant LLVM does not have for that loop: wrong (or LLVM weaker)
wrong=$(join -j1 <(awk '{print $1"|"$2"|"$3, $4}' "$tmp/all.ours.trip" | sort) \
	<(awk '{print $1"|"$2"|"$3, $4}' "$tmp/all.llvm.trip" | sort) | awk '$2 != $3')
extra=$(comm -13 <(awk '{print $1"|"$2"|"$3}' "$tmp/all.llvm.trip" | sort) <(awk '{print $1"|"$2"|"$3}' "$tmp/all.ours.trip" | sort))
missed=$(comm -23 "$tmp/all.llvm.trip" "$tmp/all.ours.trip")
echo "(post)dominator tree edges: $(wc -l <"$tmp/all.llvm.dom") in LLVM, $(wc -l <"$tmp/all.ours.dom") in ours, $(printf '%s' "$domdiff" | grep -c .) differing"
echo "loops: $nl in LLVM, $(wc -l <"$tmp/all.ours.loops") in ours, $(printf '%s' "$loopdiff" | grep -c .) differing"
echo "constant trip counts: $nt in LLVM, $same found by ours with the same value ($(awk -v a="$same" -v b="$nt" 'BEGIN { printf "%.1f", b ? 100 * a / b : 100 }')%)"
[ -n "$domdiff" ] && { echo "tree differences (< LLVM, > ours):"; echo "$domdiff" | sed 's/^\t/> /; s/^[^>]/< &/' | head -40; }
[ -n "$loopdiff" ] && { echo "loop differences (< LLVM, > ours):"; echo "$loopdiff" | sed 's/^\t/> /; s/^[^>]/< &/' | head -40; }
[ -n "$missed" ] && { echo "missed constant trip counts:"; echo "$missed" | head -40; }
[ -n "$extra" ] && { echo "constants ours finds that LLVM does not:"; echo "$extra" | head -40; }
[ -n "$wrong" ] && { echo "WRONG trip counts (loop, ours, LLVM):"; echo "$wrong"; }
[ -z "$domdiff" ] && [ -z "$loopdiff" ] && [ -z "$wrong" ]
