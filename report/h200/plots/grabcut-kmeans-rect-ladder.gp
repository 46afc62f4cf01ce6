set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-kmeans-rect-ladder.png'
set title 'grabcut-kmeans rect at synth-1920x1080: the CUDA ladder, kernel time per step (log scale)'
set style fill solid 0.8 border -1
set logscale y
set key top right
set ylabel 'kernel time, median (ms)'
set xtics rotate by -30
base = 0.1
set yrange [base:*]
set offsets 0.3, 0.3, 0, 0
plot 'grabcut-kmeans-rect-ladder.dat' using 1:3:($1-0.35):($1+0.35):(base):3:4:xtic(2) with boxxyerror lc rgb variable notitle
