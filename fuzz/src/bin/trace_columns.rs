#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| ssdlab_fuzz::trace::check_columns(data));
