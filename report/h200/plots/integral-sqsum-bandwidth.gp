set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'integral-sqsum-bandwidth.png'
set title 'integral sqsum: bandwidth, GB/s (log scale) at synth-3840x2160'
set style fill solid 0.8 border -1
set logscale y
set key inside top left
set ylabel 'GB/s'
set xtics rotate by -30
base = 1
set yrange [base:*]
set offsets 0.3, 0.3, 0, 0
plot 'integral-sqsum-bandwidth.dat' using 0:2:($0-0.35):($0+0.35):(base):2:3:xtic(1) with boxxyerror lc rgb variable notitle, 4125.7 with lines dt 1 lw 2 lc rgb '#d62728' title 'device copy peak (4126 GB/s)', 75.6 with lines dt 1 lw 2 lc rgb '#1f77b4' title 'host memcpy peak, 16 threads (76 GB/s)', 3660.62 with lines dt 2 lw 2 lc rgb '#000000' title 'floor: cuda-copy'
