set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-maxflow-rect-time.png'
set title 'grabcut-maxflow rect: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu cpu-pr cpu-rounds pthread openmp cuda-global cuda-shared'
plot for [i=0:6] 'grabcut-maxflow-rect-time.dat' index i using 1:2 with linespoints title word(names, i+1)
