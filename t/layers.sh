#!/bin/sh
# t/layers.sh [TOP]: libnv's layers (lib/README.md) held to their rule.
#
# The layers are the Makefile's LAYERS, lowest first.  Every .c, .h and
# .def file of lib/ is in one of their folders; each of its #include "..."
# names a file relative to its own directory (the only way an installed
# header, <nv/LAYER/NAME.h>, finds the others), in its own layer or one
# before it.  A module is a folder's NAME.c, NAME.h and NAME.def together;
# the folder's README.md lists every module of it ("    NAME  what"), and
# a module includes only those listed before it.  And no include cycle: no
# module reaches itself through the modules it includes.  Prints each
# violation on a line; exit 1 if there is one.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
layers=$(sed -n 's/^LAYERS *= *//p' Makefile)
[ -n "$layers" ] || { echo "layers: no LAYERS line in $top/Makefile" >&2; exit 2; }

{
for l in $layers; do
	[ -f "lib/$l/README.md" ] || { echo "nolist lib/$l"; continue; }
	sed -n 's/^    \([a-z0-9_]*\)  .*/\1/p' "lib/$l/README.md" | sed "s|^|list lib/$l/|"
done
find lib -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \) | LC_ALL=C sort |
while IFS= read -r f; do
	echo "file $f"
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while IFS= read -r inc; do
			d=$(dirname "$f")
			if [ -f "$d/$inc" ]; then echo "inc $f $inc found"; else echo "inc $f $inc missing"; fi
		done
done
} | awk -v layers="$layers" '
function norm(p,   n, a, out, i, k) {
	n = split(p, a, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "." || a[i] == "") continue
		if (a[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
		out[++k] = a[i]
	}
	p = out[1]
	for (i = 2; i <= k; i++) p = p "/" out[i]
	return p
}
function layer(p,   a) { split(p, a, "/"); return (a[1] == "lib" && a[3] != "") ? a[2] : "" }
function module(p) { sub(/\.[a-z]+$/, "", p); return p }
BEGIN {
	n = split(layers, L, " ")
	for (i = 1; i <= n; i++) rank[L[i]] = i
	bad = 0
}
$1 == "nolist" { print "layers: " $2 " has no README.md listing its files"; bad = 1; next }
$1 == "list" { pos[$2] = ++npos; listed[$2] = 0; next }
$1 == "file" {
	m = module($2)
	if (!(layer($2) in rank)) {
		print "layers: " $2 " is in no layer (" layers ")"
		bad = 1
	} else if (!(m in pos)) {
		print "layers: " $2 " is not in " layer($2) "/README.md\047s list"
		bad = 1
	}
	listed[m] = 1
	nodes[m] = 1
	next
}
$1 == "inc" {
	f = $2; inc = $3; from = layer(f)
	if ($4 == "missing") {
		print "layers: " f " includes \"" inc "\", which is not a file beside it (lib/ includes by relative path)"
		bad = 1
		next
	}
	d = f
	sub(/\/[^\/]*$/, "", d)
	t = norm(d "/" inc)
	to = layer(t)
	if (!(to in rank)) {
		print "layers: " f " includes \"" inc "\", which is in no layer of lib/"
		bad = 1
		next
	}
	if ((from in rank) && rank[to] > rank[from]) {
		print "layers: " f " includes \"" inc "\", of " to ", above " from
		bad = 1
	}
	a = module(f); b = module(t)
	if (to == from && (a in pos) && (b in pos) && pos[b] > pos[a]) {
		print "layers: " f " includes \"" inc "\", listed after it in " from "/README.md"
		bad = 1
	}
	if (a != b && !((a, b) in edge)) {
		edge[a, b] = 1
		out[a] = out[a] " " b
		deg[a]++
	}
}
END {
	for (m in listed)
		if (!listed[m]) { print "layers: " m " is listed in its README.md, but there is no such file"; bad = 1 }
	# Kahn: take away every module that includes nothing left; what stays is
	# on a cycle or includes one
	for (m in nodes) if (!(m in deg)) deg[m] = 0
	do {
		gone = 0
		for (m in deg) {
			if (deg[m] != 0 || (m in done)) continue
			done[m] = 1
			gone = 1
			for (k in deg) if ((k, m) in edge && !(k in done)) deg[k]--
		}
	} while (gone)
	first = ""
	for (m in deg) if (!(m in done) && (first == "" || m < first)) first = m
	if (first != "") {
		# follow includes among those left until a module comes round again
		m = first; path = ""
		while (!(m in seen)) {
			seen[m] = ++step
			order[step] = m
			k = split(out[m], nx, " ")
			next_m = ""
			for (i = 1; i <= k; i++)
				if (!(nx[i] in done) && (next_m == "" || nx[i] < next_m)) next_m = nx[i]
			m = next_m
		}
		for (i = seen[m]; i <= step; i++) path = path order[i] " -> "
		print "layers: include cycle: " path m
		bad = 1
	}
	exit bad
}'
