#!/usr/bin/env python3
"""LUT levels per flip-flop endpoint of a synthesized ECP5 netlist, without placement.

Usage: python3 fpga/lut_depth.py NETLIST.json TOP [N] [-v]

NETLIST.json is Yosys's `synth_ecp5 -json` output (`rnic synth` leaves it in
OUT/ecp5-85f/TOP/TOP.json). For every flip-flop input (DI, CE, LSR, M) the script finds the
longest combinational path from a flip-flop or block-RAM output, counting a LUT4 as 1, a
PFUMX / L6MUX21 as 0.3 and a CCU2C as 1 through its logic inputs and 0.15 along the carry.
Paths from the top's input ports are not counted (nextpnr does not time them out of context).
It prints the N deepest endpoints (one line per register, default 15) with the register the
path starts at; -v adds the nets along the path.

Unlike Fmax after placement, which moves by 5 to 10 % between nextpnr seeds, this figure is
the same for the same netlist, so it shows whether an RTL change made the logic shallower
before any seed is placed.
"""
import collections
import json
import sys

WEIGHTS = {"LUT4": 1.0, "PFUMX": 0.3, "L6MUX21": 0.3}
SOURCES = ("TRELLIS_FF", "DP16KD", "TRELLIS_DPR16X4")
UNTIMED = -100.0


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv
    if len(args) < 2:
        sys.exit(__doc__)
    netlist = json.load(open(args[0]))
    top = args[1]
    count = int(args[2]) if len(args) > 2 else 15
    if top not in netlist["modules"]:
        sys.exit(f"lut_depth: no module {top} in {args[0]}")
    mod = netlist["modules"][top]
    cells = mod["cells"]
    names = {}
    for name, net in mod["netnames"].items():
        for bit in net["bits"]:
            if isinstance(bit, int) and (bit not in names or len(name) < len(names[bit])):
                names[bit] = name
    driver = {}
    for cname, cell in cells.items():
        for port, direction in cell["port_directions"].items():
            if direction == "output":
                for bit in cell["connections"][port]:
                    driver[bit] = (cname, port)

    memo = {}

    def arrival(bit):
        """(levels, input bit on the longest path) at `bit`."""
        if not isinstance(bit, int) or bit not in driver:
            return (UNTIMED, None)
        cname, port = driver[bit]
        cell = cells[cname]
        kind = cell["type"]
        if kind in SOURCES:
            return (0.0, None)
        if (cname, port) in memo:
            return memo[(cname, port)]
        memo[(cname, port)] = (UNTIMED, None)  # a combinational loop ends here
        best = (UNTIMED, None)
        for iport, direction in cell["port_directions"].items():
            if direction != "input":
                continue
            if kind == "CCU2C":
                weight = 0.15 if iport == "CIN" else 1.0
            else:
                weight = WEIGHTS.get(kind, 1.0)
            for ibit in cell["connections"][iport]:
                level = arrival(ibit)[0] + weight
                if level > best[0] or (
                    level == best[0] and isinstance(ibit, int) and not isinstance(best[1], int)
                ):
                    best = (level, ibit)
        memo[(cname, port)] = best
        return best

    sys.setrecursionlimit(100000)
    ends = []
    for cname, cell in cells.items():
        if cell["type"] != "TRELLIS_FF":
            continue
        for port in ("DI", "CE", "LSR", "M"):
            for bit in cell["connections"].get(port, []):
                ends.append((arrival(bit)[0], cname, port, bit))
    ends.sort(key=lambda e: -e[0])
    per_register = collections.OrderedDict()
    for level, cname, port, bit in ends:
        register = cname.split("_TRELLIS")[0].split("$")[0]
        if register not in per_register:
            per_register[register] = (level, port, bit)
    for register, (level, port, bit) in list(per_register.items())[:count]:
        path = []
        while True:
            path.append(names.get(bit, str(bit)))
            if not (isinstance(bit, int) and bit in driver) or cells[driver[bit][0]]["type"] in SOURCES:
                break
            nxt = arrival(bit)[1]
            if nxt is None:
                break
            bit = nxt
        print(f"{level:5.2f}  {register}  ({port})  from {path[-1]}")
        if verbose:
            print("       " + " <- ".join(path))


if __name__ == "__main__":
    main()
