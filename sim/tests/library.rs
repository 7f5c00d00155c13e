//! The `sim` library's own tests, one module per source file. They live here because its
//! `[lib] test = false`: a `cfg(test)` build of the library compiled all of it a second time
//! (329 s of a clean `cargo test` build on two cores).

mod profile {
    use sim::profile::*;

    // Two cycles: a stream `s` transfers then stalls; `x_valid`/`x_ready` starves then
    // transfers; `lone.valid` has no ready and is not a boundary.
    const VCD: &str = "$timescale 1 ps $end
$scope module uut $end
$var wire 1 ! clock $end
$scope module s $end
$var wire 1 \" valid $end
$var wire 1 # ready $end
$upscope $end
$var wire 1 $ x_valid $end
$var wire 1 % x_ready $end
$scope module lone $end
$var wire 1 & valid $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
0!
1\"
1#
0$
b1 %
#5
1!
#10
0!
0#
1$
#15
1!
#20
0!
";

    #[test]
    fn counts_transfers_stalls_and_starved_cycles_per_boundary() {
        let p = profile(VCD, 0, 10).unwrap();
        assert_eq!(p.cycles, 2);
        let names: Vec<&str> = p.boundaries.iter().map(|b| b.path.as_str()).collect();
        assert_eq!(names, ["uut.s", "uut.x"]);
        assert_eq!(
            p.boundaries[0],
            Boundary { path: "uut.s".into(), transfer: 1, stall: 1, starve: 0, trace: "Ts".into() }
        );
        assert_eq!(
            p.boundaries[1],
            Boundary { path: "uut.x".into(), transfer: 1, stall: 0, starve: 1, trace: ".T".into() }
        );
        // A window: only the second cycle.
        let p = profile(VCD, 1, 2).unwrap();
        assert_eq!(p.boundaries[0].trace, "s");
    }

    #[test]
    fn a_waveform_without_a_top_clock_is_an_error() {
        assert!(profile("$scope module uut $end\n$enddefinitions $end\n", 0, 1).is_err());
    }
}

mod engine {
    use sim::Engine;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for e in Engine::ALL {
            assert_eq!(e.name().parse::<Engine>(), Ok(e));
            assert_eq!(e.to_string(), e.name());
        }
        let err = "iverilog".parse::<Engine>().unwrap_err();
        assert!(err.contains("unknown engine iverilog"), "{err}");
        assert!("RustHdl".parse::<Engine>().is_err());
    }
}

mod icarus {
    use sim::icarus::hex;

    #[test]
    fn hex_is_most_significant_digit_first() {
        assert_eq!(hex(&[0xA5], 8), "a5");
        assert_eq!(hex(&[0x1F], 5), "1f");
        assert_eq!(hex(&[u64::MAX, 1], 65), "1ffffffffffffffff");
    }
}

mod lib {
    use rust_hdl::prelude::Bits;
    use sim::rusthdl::WordValue;
    use sim::{bytes_from_words, verilator, words_for, words_from_bytes};

    #[test]
    fn bytes_and_words_round_trip_lane_0_in_bits_7_to_0() {
        let bytes: Vec<u8> = (0..64).map(|i| (i * 37 + 1) as u8).collect();
        let mut w = vec![0u64; 8];
        words_from_bytes(&bytes, &mut w);
        assert_eq!(w[0] & 0xFF, bytes[0] as u64);
        assert_eq!(w[7] >> 56, bytes[63] as u64);
        assert_eq!(bytes_from_words(&w, 64), bytes);
        assert_eq!(words_for(1), 1);
        assert_eq!(words_for(64), 1);
        assert_eq!(words_for(65), 2);
    }

    #[test]
    fn wide_rust_hdl_values_convert_to_words_and_back() {
        let w: Vec<u64> = (0..8).map(|i| 0x0123_4567_89AB_CDEFu64.rotate_left(i * 8)).collect();
        let b: Bits<512> = WordValue::from_words(&w);
        assert!(b.get_bit(0) && !b.get_bit(4) && b.get_bit(511) == ((w[7] >> 63) & 1 != 0));
        let mut back = vec![0u64; 8];
        b.to_words(&mut back);
        assert_eq!(back, w);
        let s: Bits<12> = WordValue::from_words(&[0xFFFF]);
        let mut one = [0u64];
        s.to_words(&mut one);
        assert_eq!(one[0], 0xFFF, "bits above the width are dropped");
    }

    #[test]
    fn verilator_shim_masks_inputs_and_reads_wide_ports_by_32_bit_words() {
        let top =
            sim::export::export_top(&hdl::export::crc_calc_spec(golden::crc::CRC32C, 64).unwrap())
                .unwrap();
        let shim = verilator::shim_source(&top.name, &top.ports);
        assert!(shim.contains("t.s_axis_tkeep = (QData)(v[0] & 0xffffffffffffffffULL)"));
        assert!(shim.contains("for (int k = 0; k < 16; k++) t.s_axis_tdata[k]"));
        assert!(shim.contains("t.s_axis_tvalid = (CData)(v[0] & 0x1ULL)"));
        assert!(!shim.contains("t.s_axis_tready ="), "an output must not be settable");
        assert_ne!(verilator::fnv1a(&[b"a"]), verilator::fnv1a(&[b"b"]));
    }
}

mod network {
    use rand::Rng;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use sim::traffic::network::*;
    use sim::traffic::sender::StreamSegment;

    fn covers(wire: &[u8], segs: &[StreamSegment]) -> bool {
        let mut seen = vec![false; wire.len()];
        for s in segs {
            for (k, &b) in s.payload.iter().enumerate() {
                let at = s.offset as usize + k;
                if wire[at] != b {
                    return false;
                }
                seen[at] = true;
            }
        }
        seen.iter().all(|&x| x)
    }

    #[test]
    fn every_transformation_keeps_the_octets_and_covers_the_stream() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let wire: Vec<u8> = (0..20_000).map(|_| rng.gen()).collect();
        let segs = resegment(&mut rng, &wire, true, 1, 1500);
        assert!(covers(&wire, &segs));
        assert_eq!(segs.iter().filter(|s| s.fin).count(), 1);
        let segs = lose_and_retransmit(&mut rng, segs, 0.2, 1, 10);
        assert!(covers(&wire, &segs));
        let segs = duplicate(&mut rng, segs, 0.2, 5);
        let segs = overlapping_retransmissions(&mut rng, &wire, segs, 0.2, 5);
        let n = segs.len();
        let segs = reorder(&mut rng, segs, 6);
        assert_eq!(segs.len(), n);
        assert!(covers(&wire, &segs));
        assert!(segs.iter().filter(|s| s.fin).all(|s| s.end() == wire.len() as u64));
    }
}

mod pcap {
    use sim::traffic::pcap::*;

    #[test]
    fn checksums_verify_to_zero() {
        let cap = capture(false, true, 1000, &[(1000, &[1, 2, 3], false)]);
        // Last record: skip its 16-octet record header and the 14-octet Ethernet header.
        let last = cap.len() - (16 + 14 + 20 + 20 + 3);
        let ip = &cap[last + 16 + 14..last + 16 + 14 + 20];
        assert_eq!(checksum(&[ip]), 0);
        let tcp = &cap[last + 16 + 34..];
        let pseudo =
            [&PEER_IP[..], &LOCAL_IP[..], &[0, 6], &(tcp.len() as u16).to_be_bytes()[..]].concat();
        assert_eq!(checksum(&[&pseudo, tcp]), 0);
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 1000);
    }
}

mod comb_check {
    use sim::comb_check::NoCombPaths;
    use sim::{CycleSim, Port, PortDir};

    /// What the fake block's output `y` is.
    #[derive(Clone, Copy, PartialEq)]
    enum Y {
        /// `a` at the last edge.
        Registered,
        /// `a`.
        A,
        /// `a ^ b`: hidden when both flip.
        Xor,
        /// `a & b`: with both 0, seen only when both flip.
        And,
        /// `rst`.
        Rst,
    }

    /// A block with 3-bit inputs `a`, `b`, `rst` and an output `y`.
    struct Fake {
        ports: Vec<Port>,
        v: [u64; 3],
        q: u64,
        y: Y,
        cycles: u64,
    }

    impl Fake {
        fn new(y: Y) -> Self {
            let p = |n: &str, dir| Port { name: n.into(), hdl_name: n.into(), width: 3, dir };
            let ports = vec![
                p("a", PortDir::Input),
                p("b", PortDir::Input),
                p("rst", PortDir::Input),
                p("y", PortDir::Output),
            ];
            Fake { ports, v: [0; 3], q: 0, y, cycles: 0 }
        }
    }

    impl CycleSim for Fake {
        fn engine(&self) -> &'static str {
            "fake"
        }
        fn ports(&self) -> &[Port] {
            &self.ports
        }
        fn set(&mut self, port: usize, value: &[u64]) {
            self.v[port] = value[0] & 7;
        }
        fn get(&mut self, port: usize, out: &mut [u64]) {
            let [a, b, rst] = self.v;
            out[0] = match (port, self.y) {
                (0..=2, _) => self.v[port],
                (_, Y::Registered) => self.q,
                (_, Y::A) => a,
                (_, Y::Xor) => a ^ b,
                (_, Y::And) => a & b,
                (_, Y::Rst) => rst,
            };
        }
        fn eval(&mut self) {}
        fn tick(&mut self) {
            self.q = self.v[0];
            self.cycles += 1;
        }
        fn cycles(&self) -> u64 {
            self.cycles
        }
    }

    /// Four edges with `a` (and `b`, `rst`) set to values; the register takes what was set.
    fn run(y: Y, values: &[(u64, u64)]) -> u64 {
        let mut fake = Fake::new(y);
        let mut sim = NoCombPaths::every_port(&mut fake, &["rst"]).unwrap();
        for &(a, b) in values {
            sim.set_u64(0, a);
            sim.set_u64(1, b);
            sim.set_u64(2, a);
            sim.tick();
            assert_eq!((sim.get_u64(0), sim.get_u64(1)), (a, b), "inputs restored");
            if y == Y::Registered {
                assert_eq!(sim.get_u64(3), a, "the edge took the inputs as set");
            }
        }
        sim.checked
    }

    #[test]
    fn a_registered_output_passes() {
        assert_eq!(run(Y::Registered, &[(1, 2), (5, 5), (2, 0), (7, 7)]), 4);
    }

    #[test]
    fn an_output_of_rst_left_out_passes() {
        assert_eq!(run(Y::Rst, &[(1, 2), (5, 5)]), 2);
    }

    #[test]
    #[should_panic(expected = "output y follows an input combinationally")]
    fn a_combinational_output_is_found() {
        run(Y::A, &[(1, 2)]);
    }

    #[test]
    #[should_panic(expected = "with a flipped")]
    fn an_output_of_two_inputs_that_cancel_when_both_flip_is_found_by_one_flip() {
        run(Y::Xor, &[(1, 2)]);
    }

    #[test]
    #[should_panic(expected = "with every listed input flipped")]
    fn an_output_that_needs_both_inputs_to_change_is_found_by_flipping_all() {
        run(Y::And, &[(0, 0)]);
    }

    #[test]
    fn ports_must_have_the_direction_named() {
        let mut fake = Fake::new(Y::Registered);
        let e = NoCombPaths::new(&mut fake, &["y".into()], &["a".into()]).err().unwrap();
        assert!(e.contains("not an input"), "{e}");
    }
}

// ---- src/tools.rs: the structural check for combinational paths ----
mod yosys_comb_paths {
    use sim::tools::yosys_check_top;

    /// Module `t` with the body `body` (ports: clk, rst, a, b, c[1:0] in, y, z out, plus
    /// whatever `body` declares), checked with `allowed` inputs left out.
    fn check(tag: &str, body: &str, allowed: &[&str]) -> Result<(), String> {
        let dir = sim::workspace_root().join("target/testbench/yosys_comb_paths");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{tag}.v"));
        let text = format!(
            "module sub(input clk, input d, input e, output reg q, output f);\n\
             always @(posedge clk) q <= d;\n  assign f = q & e;\nendmodule\n\
             module t(input clk, input rst, input a, input b, input [1:0] c, output y, output z);\n\
             {body}\nendmodule\n"
        );
        std::fs::write(&file, text).unwrap();
        yosys_check_top(&file, "t", allowed)
    }

    #[test]
    fn registered_outputs_pass() {
        let body =
            "reg r, s; always @(posedge clk) begin r <= a & b; s <= rst ? 1'b0 : c[0]; end\n\
                    assign y = r; assign z = s;";
        check("registered", body, &[]).unwrap();
    }

    #[test]
    fn an_asynchronous_reset_is_a_path() {
        let body = "reg r, s; always @(posedge clk) r <= a;\n\
                    always @(posedge clk or posedge b) if (b) s <= 1'b0; else s <= r;\n\
                    assign y = r; assign z = s;";
        let e = check("async_reset", body, &[]).unwrap_err();
        assert!(e.contains("z <- b"), "{e}");
        assert!(!e.contains("y <-"), "{e}");
    }

    #[test]
    fn an_output_of_an_input_is_found_and_named() {
        let e = check(
            "wire",
            "reg r; always @(posedge clk) r <= a;\nassign y = r; assign z = b | r;",
            &[],
        )
        .unwrap_err();
        assert!(e.contains("z <- b"), "{e}");
        assert!(!e.contains("y <-"), "{e}");
    }

    #[test]
    fn a_path_through_a_submodule_is_found() {
        let body =
            "wire q, f; sub s(.clk(clk), .d(a), .e(b), .q(q), .f(f));\nassign y = q; assign z = f;";
        let e = check("sub", body, &[]).unwrap_err();
        assert!(e.contains("z <- b"), "{e}");
        assert!(!e.contains("y <-") && !e.contains(" a"), "{e}");
    }

    #[test]
    fn an_allowed_input_is_left_out() {
        let body = "reg r; always @(posedge clk) r <= a;\nassign y = r & !rst; assign z = r;";
        check("rst_allowed", body, &["rst"]).unwrap();
        let e = check("rst_not_allowed", body, &[]).unwrap_err();
        assert!(e.contains("y <- rst"), "{e}");
    }

    #[test]
    fn an_asynchronous_memory_read_is_a_path_and_a_registered_one_is_not() {
        let lut = "reg [1:0] m [0:3]; reg [1:0] p; always @(posedge clk) begin m[p] <= {a, b}; p <= p + 1; end\n\
                   wire [1:0] q = m[c]; assign y = q[0]; assign z = 1'b0;";
        let e = check("lutram", lut, &[]).unwrap_err();
        assert!(e.contains("y <- c"), "{e}");
        // The written data reaches the read data only through the clock edge.
        assert!(!e.contains(" a") && !e.contains(" b"), "{e}");
        let bram = "reg [1:0] m [0:3]; reg [1:0] q; always @(posedge clk) begin m[c] <= {a, b}; q <= m[c]; end\n\
                    assign y = q[0]; assign z = q[1];";
        check("bram", bram, &[]).unwrap();
    }
}
