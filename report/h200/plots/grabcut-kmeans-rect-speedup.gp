set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-kmeans-rect-speedup.png'
set title 'grabcut-kmeans rect: speedup of kernel time over serial cpu (log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel 'speedup (x)'
set xlabel 'image size (photos: geometric mean)'
cols = '2 3 4 5 6 7'
colours = '#4d4d4d #1f77b4 #17becf #d62728 #e377c2 #8c6d31'
plot for [k=1:6] 'grabcut-kmeans-rect-speedup.dat' using int(word(cols, k)):xtic(1) title columnheader(int(word(cols, k))) lc rgb word(colours, k)
