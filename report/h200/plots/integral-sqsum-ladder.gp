set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'integral-sqsum-ladder.png'
set title 'integral sqsum at synth-3840x2160: the CUDA ladder, kernel time per step (log scale)'
set style fill solid 0.8 border -1
set logscale y
set key top right
set ylabel 'kernel time, median (ms)'
set xtics rotate by -30
base = 0.01
set yrange [base:*]
set offsets 0.3, 0.3, 0, 0
plot 'integral-sqsum-ladder.dat' using 1:3:($1-0.35):($1+0.35):(base):3:4:xtic(2) with boxxyerror lc rgb variable notitle, 0.029456 with lines dt 2 lw 2 lc rgb '#000000' title 'floor: cuda-copy'
