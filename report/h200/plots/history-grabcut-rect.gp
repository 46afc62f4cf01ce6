set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'history-grabcut-rect.png'
set title 'grabcut rect: the fastest variant at each run of record (median and quartiles, log scale)'
set logscale y
set ylabel 'kernel time (ms)'
set xtics rotate by -60 ('11-22 f691528' 0, '11-29 4fff157' 1, '11-29 0f21aff' 2, '11-29 2aa256c' 3, '11-29 de1d689' 4, '11-30 3c3451e' 5, '11-30 f880716' 6, '11-30 7b2d285' 7, '11-30 0f63fe8' 8, '11-30 6f01549' 9)
plot 'history-grabcut-rect.dat' index 0 using 1:2:3:4 with yerrorlines title 'synth-640x480', 'history-grabcut-rect.dat' index 1 using 1:2:3:4 with yerrorlines title 'synth-1280x720', 'history-grabcut-rect.dat' index 2 using 1:2:3:4 with yerrorlines title 'synth-1920x1080', 'history-grabcut-rect.dat' index 3 using 1:2:3:4 with yerrorlines title 'fruits', 'history-grabcut-rect.dat' index 4 using 1:2:3:4 with yerrorlines title 'messi5', 'history-grabcut-rect.dat' index 5 using 1:2:3:4 with yerrorlines title 'butterfly'
