//! `scavenger census` refuses bad input with a message naming it, before touching the
//! system (no root needed for these).

mod common;

use common::scavenger;

#[test]
fn census_input_errors_are_clear() {
    let (code, _, err) = scavenger(&["census"]);
    assert_eq!(code, 2);
    assert!(err.contains("no URL given (or --testbed"), "{err}");

    // https:// is probed over TLS now; a malformed pin is refused before any probe.
    let (code, _, err) = scavenger(&["census", "--pin", "xyz", "https://10.0.0.1/"]);
    assert_eq!(code, 2);
    assert!(err.contains("pin = \"xyz\""), "{err}");

    let (code, _, err) = scavenger(&["census", "--mss", "20", "http://10.0.0.1/"]);
    assert_eq!(code, 2);
    assert!(err.contains("mss = 20: must be 88..=1460 bytes"), "{err}");

    let (code, _, err) = scavenger(&["census", "--rto-round", "8", "http://10.0.0.1/"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("rto-round = 8: must be ≥ loss-round + 4 = 10"),
        "{err}"
    );

    let (code, _, err) = scavenger(&["census", "--testbed", "http://10.0.0.1/"]);
    assert_eq!(code, 2);
    assert!(err.contains("not both"), "{err}");
}
