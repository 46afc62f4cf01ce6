set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-kmeans-rect-throughput.png'
set title 'grabcut-kmeans rect: megapixels per second (log scale) at synth-1920x1080'
set style fill solid 0.8 border -1
set logscale y
set key off
set ylabel 'Mpx/s'
set xtics rotate by -30
base = 10
set yrange [base:*]
set offsets 0.3, 0.3, 0, 0
plot 'grabcut-kmeans-rect-throughput.dat' using 0:2:($0-0.35):($0+0.35):(base):2:3:xtic(1) with boxxyerror lc rgb variable notitle
