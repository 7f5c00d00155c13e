//! [`hdl::axil_reg_port::AxilRegPort`] under simulation: the block alone, its register side
//! driven by the test (`testbench/tests/axil_reg_port.rs`).

use crate::tx::block_engine;
use crate::{CycleSim, Engine};
use hdl::axil_reg_port::AxilRegPort;

/// Address bits of the port under test (as `MpaRxConnRegs`).
pub const PORT_ADDR_BITS: usize = 8;

crate::direct_top!([const A: usize, const RA: usize] AxilRegPort<A, RA> {
    in rst, axil_slave s_axil, out wr, out wr_addr, out wr_data, out wr_whole, out wr_pending,
    in b_give, in b_err, out rd, out rd_addr, in rd_data, in rd_ok
});

/// The port with [`PORT_ADDR_BITS`] address bits on either engine.
pub fn axil_reg_port(engine: Engine) -> Result<Box<dyn CycleSim>, String> {
    block_engine(
        engine,
        "axil_reg_port",
        AxilRegPort::<PORT_ADDR_BITS, { PORT_ADDR_BITS - 2 }>::new(),
    )
}
