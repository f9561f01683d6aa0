#!/bin/sh
# RUSTC_WRAPPER for scripts/fuzz.sh: adds libFuzzer's coverage instrumentation ($FUZZ_SANCOV_FLAGS)
# to the crates named in $FUZZ_INSTRUMENTED_CRATES only. The code under test is ssdlab's; the
# compression and TOML libraries it calls run uninstrumented: faster, and with no coverage inside
# them for the fuzzer to chase.
# Cargo does not see these flags: after changing them, `cargo clean` the fuzz crate.
rustc=$1
shift
crate=
prev=
for arg in "$@"; do
    [ "$prev" = --crate-name ] && crate=$arg
    prev=$arg
done
case " $FUZZ_INSTRUMENTED_CRATES " in
*" $crate "*) [ -n "$crate" ] && exec "$rustc" "$@" $FUZZ_SANCOV_FLAGS ;;
esac
exec "$rustc" "$@"
