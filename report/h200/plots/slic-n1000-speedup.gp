set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'slic-n1000-speedup.png'
set title 'slic n1000: speedup of kernel time over serial cpu (log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel 'speedup (x)'
set xlabel 'image size (photos: geometric mean)'
cols = '2 3 4 5 6 7 8 9 10 11 12 13 14 15 16'
colours = '#4d4d4d #1f77b4 #17becf #ff7f0e #d62728 #e377c2 #8c6d31 #637939 #843c39 #9467bd #3182bd #e6550d #7b4173 #31a354 #e377c2'
plot for [k=1:15] 'slic-n1000-speedup.dat' using int(word(cols, k)):xtic(1) title columnheader(int(word(cols, k))) lc rgb word(colours, k)
