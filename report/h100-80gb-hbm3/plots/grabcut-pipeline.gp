set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'grabcut-pipeline.png'
set title 'grabcut at synth-1920x1080: where the time goes (share of each step)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:100]
set ylabel '% of the sum of the steps'
plot for [i=2:5] 'grabcut-pipeline.dat' using i:xtic(1) title columnheader(i)
