set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'history-meanshift-merge-r16.png'
set title 'meanshift-merge r16: the fastest variant at each run of record (median and quartiles, log scale)'
set logscale y
set ylabel 'kernel time (ms)'
set xtics rotate by -60 ('11-22 f691528' 0, '11-29 4fff157' 1, '11-29 0f21aff' 2, '11-29 9cee363' 3, '11-30 967457e' 4, '11-30 0f63fe8' 5, '11-30 6f01549' 6)
plot 'history-meanshift-merge-r16.dat' index 0 using 1:2:3:4 with yerrorlines title 'synth-640x480', 'history-meanshift-merge-r16.dat' index 1 using 1:2:3:4 with yerrorlines title 'synth-1280x720', 'history-meanshift-merge-r16.dat' index 2 using 1:2:3:4 with yerrorlines title 'synth-1920x1080', 'history-meanshift-merge-r16.dat' index 3 using 1:2:3:4 with yerrorlines title 'fruits', 'history-meanshift-merge-r16.dat' index 4 using 1:2:3:4 with yerrorlines title 'messi5', 'history-meanshift-merge-r16.dat' index 5 using 1:2:3:4 with yerrorlines title 'butterfly', 'history-meanshift-merge-r16.dat' index 6 using 1:2:3:4 with yerrorlines title 'home', 'history-meanshift-merge-r16.dat' index 7 using 1:2:3:4 with yerrorlines title 'smarties', 'history-meanshift-merge-r16.dat' index 8 using 1:2:3:4 with yerrorlines title 'building', 'history-meanshift-merge-r16.dat' index 9 using 1:2:3:4 with yerrorlines title 'board', 'history-meanshift-merge-r16.dat' index 10 using 1:2:3:4 with yerrorlines title 'rubberwhale1'
