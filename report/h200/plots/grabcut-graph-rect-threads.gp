set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-graph-rect-threads.png'
set title 'grabcut-graph rect: thread scaling at synth-640x480 (log-log)'
set logscale x 2
set logscale y 10
set format y '%g'
set xtics (1, 2, 4, 8, 16)
set xrange [1:16]
set xlabel 'threads'
set ylabel 'speedup over 1 thread'
names = 'pthread§ openmp§'
colours = '#1f77b4 #17becf'
plot x title 'ideal (speed-up = threads)' with lines dashtype 2 lc rgb '#000000', for [i=0:1] 'grabcut-graph-rect-threads.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1)
