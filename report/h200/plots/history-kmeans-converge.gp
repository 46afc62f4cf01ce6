set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'history-kmeans-converge.png'
set title 'kmeans converge: the fastest variant at each run of record (median and quartiles, log scale)'
set logscale y
set ylabel 'kernel time (ms)'
set xtics rotate by -60 ('11-22 f691528' 0, '11-29 4fff157' 1, '11-29 0f21aff' 2, '11-29 f1ddc2f' 3, '11-29 51727c7' 4, '11-29 b65c5c0' 5, '11-29 32054a0' 6, '11-30 967457e' 7, '11-30 0f63fe8' 8, '11-30 116f9c4' 9, '11-30 6f01549' 10, '11-30 57c526f' 11)
plot 'history-kmeans-converge.dat' index 0 using 1:2:3:4 with yerrorlines title 'synth-640x480', 'history-kmeans-converge.dat' index 1 using 1:2:3:4 with yerrorlines title 'synth-1280x720', 'history-kmeans-converge.dat' index 2 using 1:2:3:4 with yerrorlines title 'synth-1920x1080', 'history-kmeans-converge.dat' index 3 using 1:2:3:4 with yerrorlines title 'synth-3840x2160', 'history-kmeans-converge.dat' index 4 using 1:2:3:4 with yerrorlines title 'fruits', 'history-kmeans-converge.dat' index 5 using 1:2:3:4 with yerrorlines title 'messi5', 'history-kmeans-converge.dat' index 6 using 1:2:3:4 with yerrorlines title 'butterfly', 'history-kmeans-converge.dat' index 7 using 1:2:3:4 with yerrorlines title 'home', 'history-kmeans-converge.dat' index 8 using 1:2:3:4 with yerrorlines title 'smarties', 'history-kmeans-converge.dat' index 9 using 1:2:3:4 with yerrorlines title 'building', 'history-kmeans-converge.dat' index 10 using 1:2:3:4 with yerrorlines title 'board', 'history-kmeans-converge.dat' index 11 using 1:2:3:4 with yerrorlines title 'rubberwhale1'
