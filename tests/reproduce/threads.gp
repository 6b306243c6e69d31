# SPDX-License-Identifier: GPL-2.0
# Mops/s of one shared filter against the threads using it (report.py
# writes threads.dat and threads-vars.gp). gnuplot -e "dir='build/bench'" threads.gp
load dir.'/threads-vars.gp'
set terminal pngcairo size 900,500 noenhanced font ',10'
set output dir.'/bench-filters-threads.png'
set title sprintf("test-and-insert on one filter shared by threads, distinct keys (window 10^6, fpr 1e-3)\n%s", machine)
set xlabel 'threads'
set ylabel 'Mops/s, all threads'
set logscale x 2
set format x '%g'
set yrange [0:*]
set grid
set key outside right top
plot for [i=1:nf] dir.'/threads.dat' index (i - 1) using 1:2 \
	with linespoints lw 2 pt 7 title word(names, i)
