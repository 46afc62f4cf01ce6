set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'slic-s16-time.png'
set title 'slic s16: kernel time against image size (synthetic set)'
set logscale xy
set xlabel 'megapixels'
set ylabel 'kernel time, median (ms)'
names = 'cpu pthread openmp cuda-seed cuda-global cuda-tilecentres cuda-tilesums cuda-shared cuda-texture cuda-registers'
colours = '#4d4d4d #1f77b4 #17becf #ff7f0e #d62728 #e377c2 #8c6d31 #2ca02c #9467bd #637939'
plot for [i=0:9] 'slic-s16-time.dat' index i using 1:2 with linespoints lc rgb word(colours, i+1) title word(names, i+1)
