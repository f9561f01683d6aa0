#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ssdlab_fuzz::trace::check(ssdlab::trace::TraceFormat::Fiu, data)
});
