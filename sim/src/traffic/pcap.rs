//! The connection as a packet capture (libpcap format, Ethernet/IPv4/TCP) that Wireshark and
//! tshark open: the TCP handshake, the MPA Request (peer -> receiver) and Reply (receiver ->
//! peer) frames of RFC 5044 7.1.1, then the peer's segments in arrival order. The peer's initial
//! sequence number is chosen so that the first octet after its Request is the stream's origin,
//! as 4.3 puts the first Marker "immediately preceding the first FPDU of Full Operation".
//!
//! IPv4 header and TCP checksums are computed; timestamps advance 10 microseconds per packet
//! after a 100 ms handshake.

use golden::startup::Frame;

/// The peer (the stream's sender).
pub const PEER_IP: [u8; 4] = [10, 0, 0, 1];
/// The receiver.
pub const LOCAL_IP: [u8; 4] = [10, 0, 0, 2];
/// The peer's TCP port (no Wireshark dissector claims it).
pub const PEER_PORT: u16 = 34567;
/// The receiver's TCP port.
pub const LOCAL_PORT: u16 = 45678;

/// Time between SYN and the handshake's last ACK.
const HANDSHAKE_USEC: u64 = 100_000;

const FLAG_FIN: u8 = 0x01;
const FLAG_SYN: u8 = 0x02;
const FLAG_PSH: u8 = 0x08;
const FLAG_ACK: u8 = 0x10;

/// One segment of the peer's stream in arrival order: sequence number, payload, FIN.
pub type Packet<'a> = (u32, &'a [u8], bool);

/// The Internet checksum (RFC 1071) of the chunks' concatenation (an odd last octet padded with
/// a zero): 0 over a header that carries its checksum.
pub fn checksum(chunks: &[&[u8]]) -> u16 {
    let mut sum = 0u32;
    let mut odd: Option<u8> = None;
    for c in chunks {
        for &b in *c {
            match odd.take() {
                Some(h) => sum += u32::from(u16::from_be_bytes([h, b])),
                None => odd = Some(b),
            }
        }
    }
    if let Some(h) = odd {
        sum += u32::from(u16::from_be_bytes([h, 0]));
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

struct Writer {
    out: Vec<u8>,
    usec: u64,
    ip_id: u16,
}

impl Writer {
    fn tcp(&mut self, from_peer: bool, seq: u32, ack: u32, flags: u8, payload: &[u8]) {
        let (src, dst, sport, dport) = if from_peer {
            (PEER_IP, LOCAL_IP, PEER_PORT, LOCAL_PORT)
        } else {
            (LOCAL_IP, PEER_IP, LOCAL_PORT, PEER_PORT)
        };
        let mut tcp = Vec::with_capacity(20 + payload.len());
        tcp.extend_from_slice(&sport.to_be_bytes());
        tcp.extend_from_slice(&dport.to_be_bytes());
        tcp.extend_from_slice(&seq.to_be_bytes());
        tcp.extend_from_slice(&ack.to_be_bytes());
        tcp.push(0x50);
        tcp.push(flags);
        tcp.extend_from_slice(&65535u16.to_be_bytes());
        tcp.extend_from_slice(&[0, 0, 0, 0]);
        tcp.extend_from_slice(payload);
        let tcp_len = (tcp.len() as u16).to_be_bytes();
        let pseudo = [&src[..], &dst[..], &[0, 6], &tcp_len[..]].concat();
        let c = checksum(&[&pseudo, &tcp]);
        tcp[16..18].copy_from_slice(&c.to_be_bytes());

        let total = (20 + tcp.len()) as u16;
        let mut ip = vec![0x45, 0];
        ip.extend_from_slice(&total.to_be_bytes());
        ip.extend_from_slice(&self.ip_id.to_be_bytes());
        ip.extend_from_slice(&[0x40, 0, 64, 6, 0, 0]);
        ip.extend_from_slice(&src);
        ip.extend_from_slice(&dst);
        let c = checksum(&[&ip]);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        self.ip_id = self.ip_id.wrapping_add(1);

        let mut frame = Vec::with_capacity(14 + ip.len() + tcp.len());
        let (smac, dmac) = if from_peer { (2u8, 4u8) } else { (4u8, 2u8) };
        frame.extend_from_slice(&[0x02, 0, 0, 0, 0, dmac]);
        frame.extend_from_slice(&[0x02, 0, 0, 0, 0, smac]);
        frame.extend_from_slice(&[0x08, 0x00]);
        frame.extend_from_slice(&ip);
        frame.extend_from_slice(&tcp);

        self.out.extend_from_slice(&((self.usec / 1_000_000) as u32).to_le_bytes());
        self.out.extend_from_slice(&((self.usec % 1_000_000) as u32).to_le_bytes());
        self.out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        self.out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        self.out.extend_from_slice(&frame);
        self.usec += 10;
    }
}

/// The capture file's octets: handshake, MPA Request and Reply (Markers and CRC flags as given,
/// revision 1, no private data), then `packets` from the peer, the first octet of Full
/// Operation at sequence number `origin`.
pub fn capture(markers: bool, crc: bool, origin: u32, packets: &[Packet<'_>]) -> Vec<u8> {
    let request = Frame::request(1, markers, crc, Vec::new()).encode();
    let reply = Frame::reply(1, markers, crc, false, Vec::new()).encode();
    let peer_isn = origin.wrapping_sub(1 + request.len() as u32);
    let local_isn = 0x0BAD_F00Du32;
    let mut w = Writer { out: Vec::new(), usec: 1_700_000_000_000_000, ip_id: 1 };
    // Global header: magic, version 2.4, zone 0, sigfigs 0, snaplen, Ethernet.
    w.out.extend_from_slice(&0xA1B2_C3D4u32.to_le_bytes());
    w.out.extend_from_slice(&2u16.to_le_bytes());
    w.out.extend_from_slice(&4u16.to_le_bytes());
    w.out.extend_from_slice(&0i32.to_le_bytes());
    w.out.extend_from_slice(&0u32.to_le_bytes());
    w.out.extend_from_slice(&262_144u32.to_le_bytes());
    w.out.extend_from_slice(&1u32.to_le_bytes());

    let local_next = local_isn.wrapping_add(1);
    // The handshake takes 100 ms, so a dissector that estimates the round trip from it calls
    // the reordered segments that follow (10 us apart) out of order, not retransmissions.
    w.tcp(true, peer_isn, 0, FLAG_SYN, &[]);
    w.usec += HANDSHAKE_USEC / 2;
    w.tcp(false, local_isn, peer_isn.wrapping_add(1), FLAG_SYN | FLAG_ACK, &[]);
    w.usec += HANDSHAKE_USEC / 2;
    w.tcp(true, peer_isn.wrapping_add(1), local_next, FLAG_ACK, &[]);
    w.tcp(true, peer_isn.wrapping_add(1), local_next, FLAG_ACK | FLAG_PSH, &request);
    w.tcp(false, local_next, origin, FLAG_ACK | FLAG_PSH, &reply);
    let ack = local_next.wrapping_add(reply.len() as u32);
    for &(seq, payload, fin) in packets {
        let flags = FLAG_ACK | FLAG_PSH | if fin { FLAG_FIN } else { 0 };
        w.tcp(true, seq, ack, flags, payload);
    }
    w.out
}
