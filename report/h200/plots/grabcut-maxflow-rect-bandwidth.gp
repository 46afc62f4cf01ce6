set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-maxflow-rect-bandwidth.png'
set title 'grabcut-maxflow rect: % of measured peak bandwidth at synth-1920x1080'
set style data histograms
set style fill solid 0.8 border -1
set yrange [0:*]
set key off
set ylabel '% of peak'
set xtics rotate by -30
plot 'grabcut-maxflow-rect-bandwidth.dat' using 2:xtic(1)
