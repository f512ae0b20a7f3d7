set terminal pngcairo size 900,560 font ",11" noenhanced
set output "docs/img/h100-u32.png"
set logscale xy
set xlabel "n (u32 keys, random)"
set ylabel "Gkeys/s"
set title "NVIDIA H100, 2026-11-22 (commit 5067e29): u32 keys on the device; CUB in the same run; std::sort on the host"
set key left top
set grid
plot "/tmp/plot.dat" index 0 using 1:2 with linespoints lw 2 title columnheader(1), "/tmp/plot.dat" index 1 using 1:2 with linespoints lw 2 title columnheader(1), "/tmp/plot.dat" index 2 using 1:2 with linespoints lw 2 title columnheader(1), "/tmp/plot.dat" index 3 using 1:2 with linespoints lw 2 title columnheader(1), "/tmp/plot.dat" index 4 using 1:2 with linespoints lw 2 title columnheader(1), "/tmp/plot.dat" index 5 using 1:2 with linespoints lw 2 title columnheader(1), "/tmp/plot.dat" index 6 using 1:2 with linespoints lw 2 title columnheader(1)
