set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-rect-time.png'
set title 'grabcut rect: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu§ pthread§ pthread-bk§ openmp§ cuda-global cuda-launches cuda-tiles cuda-warm cuda-graph cuda-waves cuda-ilp cuda-halo cuda-inplace cuda-settled cuda-tally cuda-longer cuda-warpsums cuda-keep cuda-bfs32'
colours = '#4d4d4d #1f77b4 #6baed6 #17becf #d62728 #e377c2 #8c6d31 #637939 #843c39 #3182bd #e6550d #7b4173 #31a354 #e377c2 #8c6d31 #637939 #843c39 #3182bd #e6550d'
plot for [i=0:18] 'grabcut-rect-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1), \
     for [i=0:18] 'grabcut-rect-time.dat' index i using 1:($3 < 3 ? $2 : 1/0) with points pt 6 ps 2.2 lc rgb '#000000' title (i == 0 ? 'ringed: a median of 1 or 2 runs' : '')
