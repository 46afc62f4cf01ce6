set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'kmeans-fixed10-time.png'
set title 'kmeans fixed10: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu§ pthread-pool§ pthread§ pthread-spawn§ openmp§ cuda-seed§ cuda-copyonce§ cuda-devsums§ cuda-global cuda-blocksums cuda-warpsums cuda-fourpixels cuda-quad cuda-quadsums cuda-blockcount cuda-lastblock cuda-texture cuda-colours cuda-onelaunch'
colours = '#4d4d4d #6baed6 #1f77b4 #08519c #17becf #ff7f0e #e377c2 #8c6d31 #d62728 #637939 #843c39 #3182bd #e6550d #7b4173 #31a354 #e377c2 #9467bd #8c6d31 #637939'
plot for [i=0:18] 'kmeans-fixed10-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1), \
     for [i=0:18] 'kmeans-fixed10-time.dat' index i using 1:($3 < 3 ? $2 : 1/0) with points pt 6 ps 2.2 lc rgb '#000000' title (i == 0 ? 'ringed: a median of 1 or 2 runs' : '')
