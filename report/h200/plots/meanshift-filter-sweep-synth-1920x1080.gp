set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'meanshift-filter-sweep-synth-1920x1080.png'
set title 'meanshift-filter on synth-1920x1080: kernel time against the radius'
set logscale xy 2
set xlabel 'radius'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread openmp cuda-global cuda-shared cuda-texture'
plot for [i=0:5] 'meanshift-filter-sweep-synth-1920x1080.dat' index i using 1:2 with linespoints title word(names, i+1)
