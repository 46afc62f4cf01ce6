set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'slic-n1000-majority-throughput.png'
set title 'slic n1000-majority: megapixels per second (log scale) at synth-3840x2160'
set style fill solid 0.8 border -1
set logscale y
set key off
set ylabel 'Mpx/s'
set xtics rotate by -30
base = 1
set yrange [base:*]
set offsets 0.3, 0.3, 0, 0
plot 'slic-n1000-majority-throughput.dat' using 0:2:($0-0.35):($0+0.35):(base):2:3:xtic(1) with boxxyerror lc rgb variable notitle
