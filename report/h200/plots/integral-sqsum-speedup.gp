set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'integral-sqsum-speedup.png'
set title 'integral sqsum: speedup of kernel time over serial cpu (log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel 'speedup (x)'
set xlabel 'image size (photos: geometric mean)'
cols = '2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 23'
colours = '#4d4d4d #1f77b4 #6baed6 #17becf #ff7f0e #bcbd22 #e377c2 #8c6d31 #637939 #843c39 #3182bd #9467bd #e6550d #7b4173 #31a354 #e377c2 #8c6d31 #637939 #843c39 #3182bd #8c564b'
plot for [k=1:21] 'integral-sqsum-speedup.dat' using int(word(cols, k)):xtic(1) title columnheader(int(word(cols, k))) lc rgb word(colours, k), 'integral-sqsum-speedup-floor.dat' using 1:2 with linespoints dt 2 lw 2 lc rgb '#000000' title 'floor: cuda-copy'
