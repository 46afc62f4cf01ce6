set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'integral-sqsum-bandwidth.png'
set title 'integral sqsum: % of the measured peak bandwidth at synth-3840x2160'
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:*]
set key top right
set ylabel '% of peak'
set xtics rotate by -30
plot 'integral-sqsum-bandwidth.dat' using 0:2:3:xtic(1) with boxes lc rgb variable notitle, 61.82 with lines dt 2 lw 2 lc rgb '#000000' title 'floor: cuda-copy'
