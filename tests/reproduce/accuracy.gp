# SPDX-License-Identifier: GPL-2.0
# Measured error rates of every filter against its memory per window
# element (report.py writes the data and accuracy-vars.gp).
# gnuplot -e "dir='build/bench'" accuracy.gp
load dir.'/accuracy-vars.gp'
set terminal pngcairo size 1400,640 noenhanced font ',10'
set output dir.'/bench-filters-accuracy.png'
set multiplot layout 1,2 title sprintf("Error rate against memory, window %d keys (ddfbench accuracy --all); %s", window, machine)
set logscale xy
set format y '%g'
set xlabel 'memory, bits per window element (log)'
set grid
set key bottom left Left reverse font ',8' spacing 0.85 width -3 box opaque
set ylabel 'false-positive rate, measured (log)'
set xrange [0.25:400]
set yrange [3e-7:1.5]
set title 'false positives: never-inserted keys reported present'
plot for [i=0:nfpr - 1] dir.'/accuracy-fpr.dat' index i using 1:2 \
	with linespoints lc (i % 8 + 1) pt (i % 14 + 1) title word(fprnames, i + 1), \
     2**(-x) with lines dt 2 lc rgb 'black' title '2^-bits: the bound'
set ylabel 'rate of misses at the window''s oldest key (log)'
set title "false negatives inside the window (kinds that have them)"
set key bottom left Left reverse font ',8' spacing 0.85 width -3 box opaque
set autoscale y
set yrange [*:1.5]
plot for [i=0:nfn - 1] dir.'/accuracy-fn.dat' index i using 1:2 \
	with linespoints lc (i % 8 + 1) pt (i % 14 + 1) title word(fnnames, i + 1)
unset multiplot
