set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'slic-roofline.png'
set title 'slic: instruction roofline (counts: Nsight Compute; time: the timed runs)'
set logscale xy
set xlabel 'warp instructions per DRAM byte'
set ylabel 'G warp instructions per second'
set xrange [0.0629973:5.65939]
set yrange [*:3118.9]
set key inside top left
set grid
plot (x*4125.7 < 1039.63 ? x*4125.7 : 1/0) with lines dt 2 lw 2 lc rgb '#000000' title 'memory roof: copy, 4126 GB/s', (x*4125.7 >= 1039.63 ? 1039.63 : 1/0) with lines lw 2 lc rgb '#000000' title 'issue roof: 4/cycle x 132 SMs at 1969 MHz', 'slic-roofline.dat' using 1:2 with points pt 7 ps 1.5 lc rgb '#c0392b' notitle, 'slic-roofline.dat' using 1:2:3 with labels offset 1,0.6 left font ',9' notitle
