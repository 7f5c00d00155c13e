#!/bin/sh
# Fmax and area of the CRC engine and the exported CRC tops on ECP5 LFE5U-85F speed 6, seed 1
# (fpga/ecp5_ooc.sh for each), as reported in the README. Run from the workspace root; writes
# build/fpga/<top>/ and prints one line per design. Takes about 20 minutes on 2 cores.
set -eu
cargo run -q -p sim --example export_engines
for w in 8 16 32 64; do
    f=250; [ "$w" -ge 32 ] && f=156.25
    for g in 2 4; do
        fpga/ecp5_ooc.sh build/verilog/engines/crc_engine_w${w}_g$g.v crc_engine_w${w}_g$g $f
    done
    fpga/ecp5_ooc.sh build/verilog/engines/crc_engine_resumable_w$w.v crc_engine_resumable_w$w $f
    fpga/ecp5_ooc.sh build/verilog/mpa_crc32c_w$w.v mpa_crc32c_w$w $f
done
