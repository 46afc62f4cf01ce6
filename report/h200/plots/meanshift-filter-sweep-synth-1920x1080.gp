set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'meanshift-filter-sweep-synth-1920x1080.png'
set title 'meanshift-filter on synth-1920x1080: kernel time against the radius'
set logscale xy 2
set xlabel 'radius'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread openmp cuda-global cuda-shared cuda-texture'
colours = '#4d4d4d #1f77b4 #17becf #d62728 #2ca02c #9467bd'
plot for [i=0:5] 'meanshift-filter-sweep-synth-1920x1080.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1)
