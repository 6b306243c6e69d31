# SPDX-License-Identifier: GPL-2.0
# ns per test-and-insert of every filter at each memory size, with the
# memory system's limits measured in the same run (report.py writes the
# data and speed-vars.gp). gnuplot -e "dir='build/bench'" speed.gp
load dir.'/speed-vars.gp'
set terminal pngcairo size 1200,600 noenhanced font ',10'
set output dir.'/bench-filters-speed.png'
set title sprintf("ns per test-and-insert of a new key, every filter sized at fpr 1e-3 for the budget (hashes precomputed)\n%s", machine)
set logscale y
set format y '%g'
set ylabel 'ns per operation (log)'
set xrange [-0.6:nfilt - 0.4]
set xtics rotate by -35 nomirror
set grid ytics mytics
set key outside right top spacing 1.2
set datafile missing '-'
plot for [i=1:nsize] dir.'/speed.dat' using 1:(column(2 + i)):xtic(2) \
	with points pt (4 + 2 * i) ps 1.6 lc i title word(slabels, i).' filter', \
     for [i=1:nsize] dir.'/speed-limits.dat' index (i - 1) using 1:2 \
	with lines dt 2 lw 1.5 lc i title 'one dependent read, '.word(slabels, i), \
     for [i=1:nsize] dir.'/speed-limits.dat' index (i - 1) using 1:3 \
	with lines dt 3 lw 1.5 lc i title 'one random cache line, '.word(slabels, i)
