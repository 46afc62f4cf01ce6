set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'meanshift-merge-r16-time.png'
set title 'meanshift-merge r16: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu§ pthread§ openmp§ cuda-global cuda-tiles cuda-blocksums cuda-graph cuda-blocks cuda-roots cuda-rag cuda-coop cuda-ranks cuda-active'
colours = '#4d4d4d #1f77b4 #17becf #d62728 #e377c2 #8c6d31 #637939 #843c39 #3182bd #e6550d #7b4173 #31a354 #e377c2'
plot for [i=0:12] 'meanshift-merge-r16-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1), \
     for [i=0:12] 'meanshift-merge-r16-time.dat' index i using 1:($3 < 3 ? $2 : 1/0) with points pt 6 ps 2.2 lc rgb '#000000' title (i == 0 ? 'ringed: a median of 1 or 2 runs' : '')
