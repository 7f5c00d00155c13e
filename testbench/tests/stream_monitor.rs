//! The handshake monitor that every streaming test relies on flags each broken rule, and stays
//! quiet on a legal stream (it is tested against scripted streams, not against a block).

use hdl::export::{Port, PortDir};
use sim::stream::{HandshakeMonitor, StreamPorts};
use sim::CycleSim;

/// A fake block whose stream signals follow a script: per cycle (data, keep, user, last, valid, ready).
struct Script {
    ports: Vec<Port>,
    rows: Vec<[u64; 6]>,
    cycle: usize,
}

impl Script {
    fn new(rows: Vec<[u64; 6]>) -> Self {
        let p = |n: &str, w: usize| Port {
            name: n.into(),
            hdl_name: n.into(),
            width: w,
            dir: PortDir::Input,
        };
        let ports = vec![
            p("s_axis_tdata", 32),
            p("s_axis_tkeep", 4),
            p("s_axis_tuser", 1),
            p("s_axis_tlast", 1),
            p("s_axis_tvalid", 1),
            p("s_axis_tready", 1),
        ];
        Script { ports, rows, cycle: 0 }
    }
}

impl CycleSim for Script {
    fn engine(&self) -> &'static str {
        "script"
    }
    fn ports(&self) -> &[Port] {
        &self.ports
    }
    fn set(&mut self, _port: usize, _value: &[u64]) {}
    fn get(&mut self, port: usize, out: &mut [u64]) {
        out[0] = self.rows[self.cycle][port];
    }
    fn eval(&mut self) {}
    fn tick(&mut self) {
        self.cycle += 1;
    }
    fn cycles(&self) -> u64 {
        self.cycle as u64
    }
}

fn violations(rows: Vec<[u64; 6]>) -> Vec<String> {
    let n = rows.len();
    let mut s = Script::new(rows);
    let ports = StreamPorts::find(&s, "s_axis").unwrap();
    let mut m = HandshakeMonitor::new("s_axis", ports);
    for _ in 0..n {
        m.sample(&mut s, false);
        s.tick();
    }
    m.violations
}

#[test]
fn stream_monitor_accepts_a_legal_stream_with_stalls_and_a_null_last_beat() {
    let v = violations(vec![
        [0x1111_1111, 0xF, 0, 0, 1, 0], // offered, stalled
        [0x1111_1111, 0xF, 0, 0, 1, 1], // same beat, transfers
        [0x2222_2222, 0x3, 0, 1, 1, 1], // partial last beat
        [0, 0, 0, 0, 0, 1],             // idle
        [0xDEAD_BEEF, 0x0, 0, 1, 1, 0], // null last beat, stalled: its bytes are don't-care...
        [0x0BAD_F00D, 0x0, 0, 1, 1, 1], // ...so they may change
    ]);
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn stream_monitor_flags_valid_dropped_before_transfer() {
    let v = violations(vec![[1, 0xF, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]]);
    assert!(v.len() == 1 && v[0].contains("tvalid dropped"), "{v:?}");
}

#[test]
fn stream_monitor_flags_data_changed_while_stalled() {
    let v = violations(vec![[1, 0xF, 0, 0, 1, 0], [2, 0xF, 0, 0, 1, 1]]);
    assert!(v.len() == 1 && v[0].contains("beat changed"), "{v:?}");
}

#[test]
fn stream_monitor_flags_last_changed_while_stalled() {
    let v = violations(vec![[1, 0xF, 0, 0, 1, 0], [1, 0xF, 0, 1, 1, 1]]);
    assert!(v.len() == 1 && v[0].contains("beat changed"), "{v:?}");
}

#[test]
fn stream_monitor_flags_non_contiguous_keep() {
    let v = violations(vec![[1, 0b0101, 0, 1, 1, 1]]);
    assert!(v.len() == 1 && v[0].contains("not contiguous"), "{v:?}");
}

#[test]
fn stream_monitor_flags_a_partial_beat_that_is_not_last() {
    let v = violations(vec![[1, 0b0011, 0, 0, 1, 1]]);
    assert!(v.len() == 1 && v[0].contains("not last"), "{v:?}");
}
