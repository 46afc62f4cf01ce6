set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'slic-n1000-majority-time.png'
set title 'slic n1000-majority: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread§ openmp§ cuda-seed cuda-global cuda-tiles cuda-tilecentres cuda-tilesums cuda-warpagg cuda-texture cuda-rows cuda-held cuda-labels16 cuda-registers cuda-onelaunch'
colours = '#4d4d4d #1f77b4 #17becf #ff7f0e #d62728 #e377c2 #8c6d31 #637939 #843c39 #9467bd #3182bd #e6550d #7b4173 #31a354 #e377c2'
plot for [i=0:14] 'slic-n1000-majority-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1), \
     for [i=0:14] 'slic-n1000-majority-time.dat' index i using 1:($3 < 3 ? $2 : 1/0) with points pt 6 ps 2.2 lc rgb '#000000' title (i == 0 ? 'ringed: a median of 1 or 2 runs' : '')
