//! A running testbed: the topology plus the emulator thread, torn down in the right
//! order whatever happens (drop: stop and join the emulator, which closes the TUN
//! devices; then delete the namespaces).

use crate::clock::Clock;
use crate::emulator::{run_io, Emulator, EmulatorConfig, EmulatorReport};
use crate::error::TestbedError;
use crate::topology::{HostNode, Topology};
use scavenger_lab::scenario::Side;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

struct EmulatorThread {
    stop: Arc<AtomicBool>,
    join: JoinHandle<EmulatorReport>,
}

pub struct Testbed {
    emulator: Option<EmulatorThread>,
    pub clock: Clock,
    /// Declared last: dropped after the emulator has stopped.
    pub topo: Topology,
}

impl Testbed {
    /// Builds the namespaces for `hosts` and starts the emulator (in this process, on
    /// its own thread; SCHED_FIFO when `realtime` and permitted). The clock starts now:
    /// `Time(0)` is when the links come up.
    pub fn start(
        hosts: &[(String, Side)],
        cfg: EmulatorConfig,
        realtime: bool,
    ) -> Result<Testbed, TestbedError> {
        let mut topo = Topology::build(hosts)?;
        let tuns = topo
            .tuns
            .take()
            .expect("fresh topology has its TUN devices");
        let clock = Clock::start();
        let stop = Arc::new(AtomicBool::new(false));
        let emu = Emulator::new(cfg);
        let s = stop.clone();
        let join = std::thread::Builder::new()
            .name("scvtb-emulator".into())
            .spawn(move || run_io(emu, tuns, clock, s, realtime))
            .map_err(|e| TestbedError::io("cannot start the emulator thread", e))?;
        Ok(Testbed {
            emulator: Some(EmulatorThread { stop, join }),
            clock,
            topo,
        })
    }

    /// A two-host dumbbell ("server" and "client") with the given links.
    pub fn dumbbell(cfg: EmulatorConfig) -> Result<Testbed, TestbedError> {
        Testbed::start(
            &[
                ("server".into(), Side::Server),
                ("client".into(), Side::Client),
            ],
            cfg,
            true,
        )
    }

    pub fn host(&self, name: &str) -> &HostNode {
        self.topo
            .host(name)
            .unwrap_or_else(|| panic!("no host {name}"))
    }

    /// Stops the emulator and returns what it measured (once).
    pub fn stop_emulator(&mut self) -> Option<EmulatorReport> {
        let t = self.emulator.take()?;
        t.stop.store(true, Ordering::SeqCst);
        t.join.join().ok()
    }

    /// Stops everything and deletes the namespaces, reporting any failure.
    pub fn shutdown(mut self) -> Result<Option<EmulatorReport>, TestbedError> {
        let r = self.stop_emulator();
        self.topo.teardown()?;
        Ok(r)
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        self.stop_emulator();
        // `topo` drops next: TUN fds closed, namespaces deleted.
    }
}
