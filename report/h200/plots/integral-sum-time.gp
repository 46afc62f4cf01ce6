set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'integral-sum-time.png'
set title 'integral sum: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread§ pthread-strips§ openmp§ cuda-naive cuda-blocked6 cuda-smemscan cuda-tilescan cuda-transposed cuda-inflight cuda-pdl cuda-texture cuda-lookback cuda-strips cuda-wide cuda-staged cuda-fused cuda-resident cuda-ticket cuda-colour cuda-copy npp'
colours = '#4d4d4d #1f77b4 #6baed6 #17becf #ff7f0e #bcbd22 #e377c2 #8c6d31 #637939 #843c39 #3182bd #9467bd #e6550d #7b4173 #31a354 #e377c2 #8c6d31 #637939 #843c39 #3182bd #000000 #8c564b'
plot for [i=0:21] 'integral-sum-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1), \
     for [i=0:21] 'integral-sum-time.dat' index i using 1:($3 < 3 ? $2 : 1/0) with points pt 6 ps 2.2 lc rgb '#000000' title (i == 0 ? 'ringed: a median of 1 or 2 runs' : '')
