set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'meanshift-filter-r16-time.png'
set title 'meanshift-filter r16: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread§ openmp§ cuda-global cuda-shared cuda-texture'
colours = '#4d4d4d #1f77b4 #17becf #d62728 #2ca02c #9467bd'
plot for [i=0:5] 'meanshift-filter-r16-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1), \
     for [i=0:5] 'meanshift-filter-r16-time.dat' index i using 1:($3 < 3 ? $2 : 1/0) with points pt 6 ps 2.2 lc rgb '#000000' title (i == 0 ? 'ringed: a median of 1 or 2 runs' : '')
