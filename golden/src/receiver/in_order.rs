//! The in-order side of [`Receiver`]: new octets held, the edge advanced, and the walk along the
//! ULPDU_Length chain that verifies, places and delivers (RFC 5044 section 6 method 1, section
//! 8; RFC 5041 delivery). The rules are in the module documentation of [`super`].

use super::{invalidate_target, mpa_code, Delivery, Event, PlacedFpdu, Receiver};
use crate::ddp::{decode_with, DdpSegment, TerminateCode};
use crate::deframe::{fpdu_needed_len, parse_fpdu, DeframeError};

impl Receiver {
    pub(super) fn in_order(&mut self, s: u64, e: u64, bytes: &[u8]) {
        for (a, b) in self.new_spans(self.edge, e) {
            self.held.insert(a, &bytes[(a - s) as usize..(b - s) as usize]);
        }
        loop {
            if let Some((_, end)) = self.held.run_containing(self.edge) {
                self.edge = end;
            } else if let Some(p) = self.placed.get(&self.edge) {
                self.edge = p.end;
            } else {
                break;
            }
        }
        self.walk(s, e);
    }

    /// The in-order walk (see the module documentation). `[s, e)` is the segment that brought
    /// the walk here (an FPDU entirely inside it was placed without a copy).
    fn walk(&mut self, s: u64, e: u64) {
        while !self.stopped {
            let f = self.next_fpdu;
            if self.fin == Some(f) || f >= self.edge {
                break;
            }
            if let Some(p) = self.placed.remove(&f) {
                self.next_fpdu = p.end;
                self.deliver_placed(f, p);
                continue;
            }
            if self.overlaps_placed(f, f + 1) {
                self.fail(
                    TerminateCode::MPA_CRC,
                    f,
                    "the ULPDU_Length chain points inside an FPDU placed out of order: \
                     this FPDU cannot be verified"
                        .into(),
                );
                break;
            }
            let Some(mut run) = self.held.take_run(f) else {
                // Not reachable: before the edge, every octet not consumed is held or placed.
                self.fail(TerminateCode::DDP_CATASTROPHIC, f, "receiver state lost".into());
                break;
            };
            let run_end = f + run.len() as u64;
            let mut cur = 0usize;
            let mut pos = f;
            while !self.stopped && cur < run.len() {
                let parsed =
                    parse_fpdu(self.framing, self.cfg.max_ulpdu, pos as u32, &run[cur..], pos);
                match parsed {
                    Ok(Some((ulpdu, w))) => {
                        let direct = s <= pos && pos + w as u64 <= e;
                        self.process_in_order(pos, ulpdu.data, direct);
                        cur += w;
                        pos += w as u64;
                        self.next_fpdu = pos;
                    }
                    Err(err) => {
                        self.fail(mpa_code(&err), pos, err.to_string());
                    }
                    Ok(None) => {
                        let needed = fpdu_needed_len(self.cfg.markers, pos as u32, &run[cur..]);
                        let end = needed.map(|n| pos + n as u64);
                        if run_end < self.edge && end.map_or(true, |end| end <= self.edge) {
                            // A placed FPDU starts at run_end, inside this FPDU, which is now
                            // complete (or whose ULPDU_Length field it splits): its CRC
                            // cannot be good, in-order processing reports code 2 here too.
                            self.fail(
                                TerminateCode::MPA_CRC,
                                pos,
                                "this FPDU overlaps an FPDU placed out of order: it cannot be \
                                 verified"
                                    .into(),
                            );
                        } else if self.fin == Some(self.edge) {
                            let e = DeframeError::Truncated {
                                fpdu_offset: pos,
                                received: run.len() - cur,
                                needed,
                            };
                            self.fail(mpa_code(&e), pos, e.to_string());
                        }
                        break;
                    }
                }
            }
            let partial = cur < run.len();
            run.drain(..cur);
            if !self.stopped {
                self.held.put_run(pos, run);
            }
            if partial {
                break;
            }
        }
    }

    /// An FPDU the walk found complete and MPA-valid in the held octets.
    fn process_in_order(&mut self, f: u64, ulpdu: Vec<u8>, direct: bool) {
        let seq = self.seq_of(f);
        let segment = match decode_with(&ulpdu, self.version) {
            Ok(s) => s,
            Err(err) => return self.fail(err.terminate(), f, err.to_string()),
        };
        let placement = match self.model.place(&segment) {
            Ok(p) => p,
            Err(err) => return self.fail(err.terminate(), f, err.to_string()),
        };
        if let Some(stag) = invalidate_target(&segment) {
            if let Err(code) = self.model.check_invalidate(stag) {
                return self.fail(code, f, format!("Send with Invalidate of STag {stag:#010x}"));
            }
        }
        if !self.memory.place(&placement, segment.payload(), seq) {
            return self.fail(TerminateCode::DDP_CATASTROPHIC, f, "placement target lost".into());
        }
        let n = segment.payload().len() as u64;
        if direct {
            self.metrics.direct_octets += n;
        } else {
            self.metrics.held_octets += n;
        }
        self.complete(&segment, n, seq);
    }

    /// A placed FPDU the walk reached: checked again with today's STag table and queues, then
    /// its message accounted for.
    fn deliver_placed(&mut self, f: u64, p: PlacedFpdu) {
        if let Some(stag) = invalidate_target(&p.segment) {
            if let Some(n) = self.pending_invalidate.get_mut(&stag) {
                *n -= 1;
                if *n == 0 {
                    self.pending_invalidate.remove(&stag);
                }
            }
        }
        if let Err(err) = self.model.place_len(&p.segment, p.payload_len) {
            return self.fail(err.terminate(), f, err.to_string());
        }
        if let Some(stag) = invalidate_target(&p.segment) {
            if let Err(code) = self.model.check_invalidate(stag) {
                return self.fail(code, f, format!("Send with Invalidate of STag {stag:#010x}"));
            }
        }
        self.complete(&p.segment, p.payload_len, self.seq_of(f));
    }

    /// Message accounting of one DDP segment reached in order: the delivery it completes, the
    /// invalidation and buffer consumption that go with it.
    fn complete(&mut self, segment: &DdpSegment, payload_len: u64, seq: u32) {
        let Some(d) = self.messages.account(segment, payload_len, seq) else { return };
        if let DdpSegment::Untagged { header, .. } = segment {
            if let Some(q) = self.model.queue_mut(header.qn) {
                q.buffers.remove(&header.msn);
                q.base_msn = header.msn.wrapping_add(1);
            }
        }
        if let Delivery::Send { invalidate: Some(stag), .. } = d {
            self.model.invalidate(stag);
        }
        let terminate = matches!(d, Delivery::Terminate { .. });
        self.push_event(Event::Deliver(d));
        if terminate {
            self.stop();
        }
    }
}
