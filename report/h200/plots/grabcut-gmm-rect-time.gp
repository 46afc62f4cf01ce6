set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-gmm-rect-time.png'
set title 'grabcut-gmm rect: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread openmp cuda-global'
plot for [i=0:3] 'grabcut-gmm-rect-time.dat' index i using 1:2 with linespoints title word(names, i+1)
