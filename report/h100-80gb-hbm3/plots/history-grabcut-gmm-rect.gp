set terminal pngcairo size 960,540 noenhanced font ',10'
set key outside right top
set grid ytics
set output 'history-grabcut-gmm-rect.png'
set title 'grabcut-gmm rect: the fastest variant at each run of record (median and quartiles, log scale)'
set logscale y
set ylabel 'kernel time (ms)'
set xtics rotate by -60 ('11-21 a176f95' 0, '11-22 f691528' 1, '11-22 c6f97d0' 2, '11-22 6c0adbd' 3, '11-23 62924a8' 4, '11-23 501c9e0' 5, '11-23 b02f8f3' 6, '11-23 4e97209' 7, '11-23 9ea2792' 8, '11-23 4465bf2' 9, '11-23 d51fbf1' 10, '11-23 0197977' 11, '11-23 d8117d4' 12, '11-23 cf5a67e' 13, '11-23 458109a' 14, '11-25 ca72cd4' 15, '11-25 1c287f3' 16, '11-25 e091dfd' 17, '11-25 decb75a' 18, '11-25 048a344' 19, '11-25 2d3c0c8' 20, '11-26 b61ee6c' 21, '11-26 3e5c7aa' 22, '11-27 daff45f' 23, '11-27 e056bd9' 24, '11-27 04eda04' 25, '11-27 9ca0ce4' 26, '11-27 5137f98' 27)
plot 'history-grabcut-gmm-rect.dat' index 0 using 1:2:3:4 with yerrorlines title 'synth-640x480', 'history-grabcut-gmm-rect.dat' index 1 using 1:2:3:4 with yerrorlines title 'synth-1280x720', 'history-grabcut-gmm-rect.dat' index 2 using 1:2:3:4 with yerrorlines title 'synth-1920x1080', 'history-grabcut-gmm-rect.dat' index 3 using 1:2:3:4 with yerrorlines title 'fruits', 'history-grabcut-gmm-rect.dat' index 4 using 1:2:3:4 with yerrorlines title 'messi5', 'history-grabcut-gmm-rect.dat' index 5 using 1:2:3:4 with yerrorlines title 'butterfly'
