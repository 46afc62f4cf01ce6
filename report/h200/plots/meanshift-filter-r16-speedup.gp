set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'meanshift-filter-r16-speedup.png'
set title 'meanshift-filter r16: speedup of kernel time over serial cpu (log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel 'speedup (x)'
set xlabel 'image size (photos: geometric mean)'
plot for [i=2:7] 'meanshift-filter-r16-speedup.dat' using i:xtic(1) title columnheader(i)
