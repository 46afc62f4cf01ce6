set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'meanshift-filter-roofline.png'
set title 'meanshift-filter: instruction roofline (counts: Nsight Compute; time: the timed runs)'
set logscale xy
set xlabel 'warp instructions per DRAM byte'
set ylabel 'G warp instructions per second'
set xrange [0.0633492:1055.96]
set yrange [*:3136.32]
set key inside top left
set grid
plot (x*4125.7 < 1045.44 ? x*4125.7 : 1/0) with lines dt 2 lw 2 lc rgb '#000000' title 'memory roof: copy, 4126 GB/s', (x*4125.7 >= 1045.44 ? 1045.44 : 1/0) with lines lw 2 lc rgb '#000000' title 'issue roof: 4/cycle x 132 SMs at 1980 MHz', 'meanshift-filter-roofline.dat' using 1:2 with points pt 7 ps 1.5 lc rgb '#c0392b' notitle, 'meanshift-filter-roofline.dat' using 1:2:3 with labels offset 1,0.6 left font ',9' notitle
