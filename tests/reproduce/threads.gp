# SPDX-License-Identifier: GPL-2.0
# Scaling of one shared filter over one thread, against the threads using
# it (report.py writes threads.dat: threads, Mops/s, scaling; and
# threads-vars.gp). gnuplot -e "dir='build/bench'" threads.gp
load dir.'/threads-vars.gp'
set terminal pngcairo size 900,500 noenhanced font ',10'
set output dir.'/bench-filters-threads.png'
set title sprintf("test-and-insert on one filter shared by threads, distinct keys (fpr 1e-3; filter, bytes)\n%s", machine)
set xlabel 'threads'
set ylabel 'Mops/s of all threads over one thread alone'
set logscale x 2
set format x '%g'
set yrange [0:*]
set grid
set key outside right top
plot for [i=1:nf] dir.'/threads.dat' index (i - 1) using 1:3 \
	with linespoints lw 2 pt 7 title word(names, i), \
     1 with lines dt 2 lc 'black' title 'one thread'
