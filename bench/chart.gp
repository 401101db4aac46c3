# SPDX-License-Identifier: GPL-2.0
# Chart for bench/run.sh (called by it):
#   gnuplot -e "dat='chart.dat'; datf='chart.dat.f'; out='x.png'; sub='...'" chart.gp
# dat:  idx "label" ratio_median ratio_min ratio_max target_ratio verdict  (a)-(e)
#       ratio = throughput under uringcheck / plain (e: plain / checked time);
#       target_ratio = the ratio at which the added cost equals the target
#       ("?" where the workload has no target); verdict 0 none, 1 met, 2 missed,
#       3 no data (the runs failed; values are 0)
# datf: idx "label" cost_ratio_median min max target verdict   (f): per-request
#       cost, 8 instances / 1 instance
set datafile missing "?"
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1200,560 font "DejaVu Sans,11" noenhanced
} else {
	set terminal png size 1200,560 noenhanced
}
set output out

# bar colour by verdict: no target, met, missed
color(v) = v == 1 ? 0x59a14f : v == 2 ? 0xf28e2b : 0x9fb3c8
vtext(v) = v == 1 ? " met" : v == 2 ? " MISSED" : v == 3 ? " (no data)" : ""

# before any range is set (stats honours them)
stats datf using 5 nooutput
ymax = STATS_max > 1.5 ? STATS_max * 1.2 : 2.0
stats dat using 5 nooutput
lmax = STATS_max + 0.2 > 1.25 ? STATS_max + 0.2 : 1.25

set multiplot title "uringcheck: cost of checking, ratios per workload (" . sub . ")" font ",13"

# ---- left: throughput ratios -------------------------------------------------
set origin 0, 0
set size 0.72, 0.94
set title "throughput under uringcheck / plain   (1.0 = free; bar above the red line = target met)"
set ylabel "ratio (higher is better)"
set yrange [0:lmax]
set xrange [-0.6:4.6]
set ytics 0.1
set grid ytics lc rgb "#dddddd"
set style fill solid 0.55 border rgb "#333333"
set boxwidth 0.6
set key below horizontal font ",10"
plot dat using 1:3:(color($7)):xticlabels(2) with boxes lc rgb variable title "median over rounds (green: target met, orange: missed, grey: no target)", \
     dat using 1:4:(0):($5 - $4) with vectors heads size screen 0.008,90 lc rgb "black" lw 1.5 \
         title "min-max over rounds", \
     dat using ($1 - 0.42):6:(0.84):(0) with vectors nohead lw 4 lc rgb "#d62728" \
         title "target: ratio at +400 ns/request (start-up: +150 ms)", \
     dat using 1:((valid(6) && $6 > $5 ? $6 : $5) + 0.035):(sprintf("%.3f%s", $3, vtext($7))) \
         with labels font ",10" offset 0,0.6 notitle, \
     1 with lines lc rgb "#888888" dt 3 notitle

# ---- right: (f) cost of 8 instances vs one ----------------------------------
set origin 0.72, 0
set size 0.28, 0.94
set title "(f) per-request cost, 8 instances\nrelative to 1 instance\n(below the red line = target met)"
set ylabel "ratio (lower is better)"
set yrange [0:ymax]
set xrange [-0.8:0.8]
set ytics auto
set boxwidth 0.5
set key below horizontal font ",10"
plot datf using 1:3:(color($7)):xticlabels(2) with boxes lc rgb variable title "median", \
     datf using 1:4:(0):($5 - $4) with vectors heads size screen 0.008,90 lc rgb "black" lw 1.5 notitle, \
     datf using ($1 - 0.4):6:(0.8):(0) with vectors nohead lw 4 lc rgb "#d62728" title "target 1.5x", \
     datf using 1:($5 + ymax * 0.03):(sprintf("%.2fx%s", $3, vtext($7))) with labels font ",10" offset 0,0.6 notitle

unset multiplot
