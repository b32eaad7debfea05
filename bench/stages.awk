# bench/stages.awk: where nvcc-lite's time goes, from its -time CSV files:
# a markdown table with a row per step (Phase II's parts together), its
# wall time (each step's own: the rows add up to the compiles' time) and
# CPU time, totals and shares.  awk -f bench/stages.awk FILE...
BEGIN { FS = " , " }
$1 == "source file name" || NF < 8 { next }
{
	step = $2
	sub(/ \(phase II part [0-9]+\)$/, " (phase II)", step)
	if (!(step in seen)) {
		seen[step] = 1
		order[++n] = step
	}
	if ($8 == "ms") {
		wall[step] += $7
		twall += $7
	} else if ($8 == "ms (cpu)") {
		cpu[step] += $7
		tcpu += $7
	}
	if ($2 == "nvcc-lite (driver)" && $8 == "ms")
		compiles++
}
END {
	if (!n)
		exit
	printf "| step | wall ms | wall %% | CPU ms | CPU %% |\n|---|---:|---:|---:|---:|\n"
	for (i = 1; i <= n; i++)
		printf "| %s | %.0f | %.1f | %.0f | %.1f |\n", order[i], wall[order[i]],
		    twall ? 100 * wall[order[i]] / twall : 0, cpu[order[i]], tcpu ? 100 * cpu[order[i]] / tcpu : 0
	printf "| all (%d compiles) | %.0f | 100 | %.0f | 100 |\n", compiles, twall, tcpu
}
