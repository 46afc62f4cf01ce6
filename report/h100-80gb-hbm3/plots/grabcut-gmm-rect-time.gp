set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-gmm-rect-time.png'
set title 'grabcut-gmm rect: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu§ pthread§ openmp§ cuda-atomics cuda-global'
colours = '#4d4d4d #1f77b4 #17becf #e377c2 #d62728'
plot for [i=0:4] 'grabcut-gmm-rect-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1)
