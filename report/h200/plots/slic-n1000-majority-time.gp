set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'slic-n1000-majority-time.png'
set title 'slic n1000-majority: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread openmp cuda-seed cuda-global cuda-shared cuda-texture'
plot for [i=0:6] 'slic-n1000-majority-time.dat' index i using 1:2 with linespoints title word(names, i+1)
