//! Melded pages (melded-pages.txt): a read command senses the three pages of a TLC wordline at
//! once (X + 7Y = 166 µs, Table 1) and moves them all, when queued reads want every page of the
//! wordline; a smaller read is read page by page (§2.4). On the `melded` preset reduced to one
//! die, with no host interface, so that each latency is exactly sensing plus transfer.

use crate::common;

use common::{scratch, ssdlab};

/// A 4 KiB page over the preset's 800 MT/s × 8-bit channel: 4096 / 800 µs.
const PAGE_TRANSFER_NS: u64 = 5_120;

/// Each request's latency (ns) of one run of `trace` under read policy `policy`, and the
/// summary.
fn latencies(
    test: &str,
    policy: &str,
    trace: &str,
    more: &[&str],
) -> (Vec<u64>, serde_json::Value) {
    let file = scratch("melded", &format!("{test}.csv"), trace);
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("melded")
        .join(format!("{test}-{policy}"));
    let policy = format!("ftl.read_policy={{policy=\"{policy}\"}}");
    let mut args = vec![
        "run",
        "--preset",
        "melded",
        "--trace",
        file.to_str().unwrap(),
        "--format",
        "native",
        "--set",
        "geometry.channels=1",
        "--set",
        "geometry.ways_per_channel=1",
        "--set",
        "geometry.dies_per_way=1",
        "--set",
        "geometry.blocks_per_plane=64",
        "--set",
        "host_interface.protocol=\"none\"",
        "--set",
        &policy,
        "--out",
        out.to_str().unwrap(),
        "--log-requests",
        "--json",
        "--verify",
    ];
    for m in more {
        args.extend(["--set", m]);
    }
    let (code, stdout, stderr) = ssdlab(&args);
    assert_eq!(code, 0, "{stderr}");
    let log = std::fs::read_to_string(out.join("requests.csv")).unwrap();
    let mut lines = log.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|&c| c == "latency_ns").unwrap();
    let latency = lines
        .map(|l| l.split(',').nth(column).unwrap().parse().unwrap())
        .collect();
    (latency, serde_json::from_str(&stdout).unwrap())
}

/// One-shot order: a 12 KiB write fills pages 0, 1, 2, the LSB, CSB and MSB pages of wordline 0.
/// A 12 KiB read of them is one melded command: 166 µs, then three pages over the bus; read
/// normally, the die senses and moves each page in turn (58, 78, 107 µs). A 4 KiB read (page 0)
/// and an 8 KiB one (pages 1 and 2: two of the wordline's three) are not melded.
#[test]
fn a_whole_wordline_is_sensed_in_one_command_and_a_part_of_one_is_not() {
    let trace = "arrival_ns,offset_bytes,size_bytes,op\n\
                 0,0,12288,write\n\
                 100000000,0,12288,read\n\
                 200000000,0,4096,read\n\
                 300000000,4096,8192,read\n";
    let one_shot = "geometry.program_order=\"one_shot\"";
    let (melded, s) = latencies("wordline", "melded", trace, &[one_shot]);
    let (normal, n) = latencies("wordline", "full", trace, &[one_shot]);
    let t = PAGE_TRANSFER_NS;
    assert_eq!(melded[1], 166_000 + 3 * t, "X + 7Y, then three pages");
    assert_eq!(normal[1], 58_000 + t + 78_000 + t + 107_000 + t);
    for r in [2, 3] {
        assert_eq!(melded[r], normal[r], "request {r} is not melded");
    }
    assert_eq!(normal[2], 58_000 + t, "Table 3: 4 KiB normal read, 63 µs");
    assert_eq!(s["melded_reads"]["commands"], 1);
    assert_eq!(s["melded_reads"]["pages"], 3);
    assert!(
        n.get("melded_reads").is_none(),
        "reported only while melding"
    );
    // Under the shadow order pages 0, 1, 2 are L0, L1, C0: two wordlines, neither whole.
    let (shadow, s) = latencies("wordline", "melded", trace, &[]);
    assert_eq!(s["melded_reads"]["commands"], 0);
    assert_eq!(shadow[1], 58_000 + t + 58_000 + t + 78_000 + t);
}

/// The abstract's design ("melded-pages are read in their entirety", `meld = "always"`): every
/// read of a page of a TLC wordline senses the whole wordline and moves its three pages, those
/// no read wants dropped. Table 3's 4 KiB read is then 166 µs and three transfers, where the
/// paper's melded column has 183 µs.
#[test]
fn melding_always_reads_every_wordline_whole() {
    // Wordlines 0 and 1 (one-shot: pages 0–2, 3–5); one page of the first read, two of the
    // second.
    let trace = "arrival_ns,offset_bytes,size_bytes,op\n\
                 0,0,24576,write\n\
                 100000000,0,4096,read\n\
                 200000000,16384,8192,read\n";
    let sets = [
        "geometry.program_order=\"one_shot\"",
        "ftl.read_policy.read_ahead_kib=0",
        "ftl.read_policy.meld=\"always\"",
    ];
    let (always, s) = latencies("always", "melded", trace, &sets);
    let t = PAGE_TRANSFER_NS;
    assert_eq!(always[1..], [166_000 + 3 * t, 166_000 + 3 * t]);
    let m = &s["melded_reads"];
    assert_eq!((&m["commands"], &m["pages"]), (&2.into(), &6.into()));
    assert_eq!(
        m["dropped_pages"], 3,
        "2 of the first wordline, 1 of the second"
    );
    // With a stream's reads ahead, they wait in controller memory instead.
    let (ahead, s) = latencies("always", "melded", trace, &[sets[0], sets[2]]);
    assert_eq!(ahead, always);
    assert_eq!(s["melded_reads"]["ahead_pages"], 3);
    // Melded only when all are wanted (the default), neither read melds.
    let (wanted, s) = latencies("always", "melded", trace, &sets[..2]);
    assert_eq!(wanted[1..], [58_000 + t, 78_000 + t + 107_000 + t]);
    assert_eq!(s["melded_reads"]["commands"], 0);
    assert!(s["melded_reads"].get("dropped_pages").is_none());
}

/// Without `merge_reads` two reads of one page queue apart; they want one page of the
/// wordline, not two. Pages 0 and 0 and 1 of wordline 0 (one-shot) are two of its three: not
/// melded. With page 2 too it is melded, each page sensed and moved once.
#[test]
fn two_reads_of_one_page_want_one_page_of_its_wordline() {
    let one_shot = "geometry.program_order=\"one_shot\"";
    let apart = "scheduler.merge_reads=false";
    let reads = |pages: &[u64]| {
        let mut trace = String::from("arrival_ns,offset_bytes,size_bytes,op\n0,0,12288,write\n");
        for p in pages {
            trace += &format!("100000000,{},4096,read\n", p * 4096);
        }
        trace
    };
    // (Queued reads only: the read of page 1 continues the first of page 0, and would have page 2
    // read ahead.)
    let sets = [one_shot, apart, QUEUED_ONLY];
    let (_, s) = latencies("twice", "melded", &reads(&[0, 0, 1]), &sets);
    assert_eq!(s["melded_reads"]["commands"], 0);
    let (lat, s) = latencies("twice", "melded", &reads(&[0, 0, 1, 2]), &sets);
    assert_eq!(s["melded_reads"]["commands"], 1);
    assert_eq!(s["melded_reads"]["pages"], 3);
    assert_eq!(
        lat[1..],
        [166_000 + 3 * PAGE_TRANSFER_NS; 4],
        "three pages over the bus"
    );
}

/// A melded read needs cells of more than one bit, and the time to sense a whole wordline.
#[test]
fn melding_one_bit_cells_or_without_a_wordline_time_is_refused_naming_the_key() {
    let melded = "ftl.read_policy={policy=\"melded\"}";
    let (code, _, e) = ssdlab(&[
        "run",
        "--preset",
        "melded",
        "--set",
        melded,
        "--set",
        "geometry.cell_mode=\"slc\"",
        "--set",
        "timing.slc={tr_ns=25000, tprog_ns=300000, tbers_ns=2000000}",
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("`ftl.read_policy.policy`") && e.contains("one bit"),
        "{e}"
    );
    let (code, _, e) = ssdlab(&["run", "--preset", "spread", "--set", melded]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("`timing.tlc.tr_melded_ns`"), "{e}");
}

/// `pages` 4 KiB writes of stream 1, 10 ms apart, then `reads` reads of equal parts of them in
/// order, 10 ms apart (untagged: NVMe's streams directive tags writes).
fn stream_then_reads(pages: u64, reads: u64) -> String {
    let mut trace = String::from("arrival_ns,offset_bytes,size_bytes,op,stream\n");
    for k in 0..pages {
        trace += &format!("{},{},4096,write,1\n", k * 10_000_000, k * 4096);
    }
    let size = pages / reads * 4096;
    for w in 0..reads {
        let t = (pages + 8 + w) * 10_000_000;
        trace += &format!("{t},{},{size},read,0\n", w * size);
    }
    trace
}

/// Melded reads of what queued reads want only (no read-ahead): the stream's reads below are in
/// order, and ahead of them the pages of their wordlines would be melded however they lie.
const QUEUED_ONLY: &str = "ftl.read_policy={policy=\"melded\", read_ahead_kib=0}";

/// One stream at a time, reordered onto wordlines.
const REORDER_ONE: &str = "ftl.host_streams={policy=\"wordlines\", max_open=1}";

/// §2.2, Fig. 4: a stream's pages reordered so that its k-th page lands on wordline k / 3. Twelve
/// 4 KiB writes of stream 1 fill a shadow-ordered block of four wordlines; each 12 KiB read
/// then wants one whole wordline and is one melded command. Without reordering (stream ids
/// ignored) pages 0, 1, 2 are L0, L1, C0 and no read is melded; and stream ids alone (open
/// blocks apart, no reordering) lay the pages out as they came.
#[test]
fn a_reordered_stream_lands_on_shared_wordlines() {
    let trace = stream_then_reads(12, 4);
    let t = PAGE_TRANSFER_NS;
    let block = "geometry.pages_per_block=12";
    let reorder = REORDER_ONE;
    let (lat, s) = latencies("reorder", "melded", &trace, &[block, reorder, QUEUED_ONLY]);
    assert_eq!(s["melded_reads"]["commands"], 4, "{}", s["host_streams"]);
    for (r, &l) in lat.iter().enumerate().skip(12) {
        assert_eq!(l, 166_000 + 3 * t, "read {r}");
    }
    // Pages 1, 2 (arrivals 1, 2) wait for arrival 3 (L1), 4 and 5 for 6 (L2), …
    assert_eq!(s["host_streams"]["opened"], 1);
    assert!(s["host_streams"]["held_pages"].as_u64().unwrap() > 0);
    assert_eq!(s["host_streams"]["flushed_pages"], 0);
    let (_, s) = latencies("reorder", "melded", &trace, &[block, QUEUED_ONLY]);
    assert_eq!(s["melded_reads"]["commands"], 0);
    let apart = "ftl.host_streams={policy=\"separate\", max_open=1}";
    let (_, s) = latencies("reorder", "melded", &trace, &[block, apart, QUEUED_ONLY]);
    assert_eq!(s["melded_reads"]["commands"], 0);
    assert_eq!(s["host_streams"]["held_pages"], 0);
}

/// The same across parallel units: two channels, PCWD striping (a page a channel in turn), 24
/// writes of stream 1; each 24 KiB read wants a whole wordline on each channel: two melded
/// commands.
#[test]
fn a_reordered_stream_shares_wordlines_on_every_parallel_unit() {
    let trace = stream_then_reads(24, 4);
    let sets = [
        "geometry.pages_per_block=12",
        "geometry.channels=2",
        "ftl.allocation={policy=\"static\", order=\"PCWD\"}",
        QUEUED_ONLY,
        REORDER_ONE,
    ];
    let (_, s) = latencies("units", "melded", &trace, &sets);
    assert_eq!(s["melded_reads"]["commands"], 8, "{}", s["host_streams"]);
    assert_eq!(s["melded_reads"]["pages"], 24);
    let (_, s) = latencies("units", "melded", &trace, &sets[..4]);
    assert_eq!(s["melded_reads"]["commands"], 0);
}

/// §2.2: "the scheduler can predict read patterns". A stream of 12 pages reordered onto the
/// four wordlines of one block, then read back 4 KiB at a time in order, 10 ms apart: no read
/// finds a wordline's other pages queued. With read-ahead, a read that continues the stream and
/// starts a wordline (its LSB page, the next two of the stream ahead) melds it: 166 µs and three
/// pages over the bus, and the stream's next two reads find their pages in controller memory. The
/// first wordline is read page by page (the stream is in order from its second read, which is
/// past the LSB page). Without read-ahead every read senses its page alone.
#[test]
fn a_stream_read_in_order_melds_the_wordlines_it_will_read() {
    let trace = stream_then_reads(12, 12);
    let t = PAGE_TRANSFER_NS;
    let block = "geometry.pages_per_block=12";
    let reorder = REORDER_ONE;
    let (ahead, s) = latencies("ahead", "melded", &trace, &[block, reorder]);
    let reads = &ahead[12..];
    assert_eq!(reads[..3], [58_000 + t, 78_000 + t, 107_000 + t]);
    for w in 1..4 {
        assert_eq!(reads[3 * w], 166_000 + 3 * t, "wordline {w} melded");
        assert_eq!(reads[3 * w + 1..3 * w + 3], [0, 0], "then read ahead");
    }
    let m = &s["melded_reads"];
    assert_eq!(
        (m["commands"].as_u64(), m["pages"].as_u64()),
        (Some(3), Some(9))
    );
    assert_eq!(
        (m["ahead_pages"].as_u64(), m["ahead_hits"].as_u64()),
        (Some(6), Some(6))
    );
    let off = "ftl.read_policy={policy=\"melded\", read_ahead_kib=0}";
    let (page_by_page, s) = latencies("ahead", "melded", &trace, &[block, reorder, off]);
    for w in 0..4 {
        let wordline = &page_by_page[12 + 3 * w..15 + 3 * w];
        assert_eq!(
            wordline,
            [58_000 + t, 78_000 + t, 107_000 + t],
            "wordline {w}"
        );
    }
    assert_eq!(s["melded_reads"]["commands"], 0);
    assert!(
        s["melded_reads"].get("ahead_pages").is_none(),
        "reported only when on"
    );
    // Read out of order (backwards), the stream is never in order: nothing is read ahead.
    let mut backwards = String::from("arrival_ns,offset_bytes,size_bytes,op,stream\n");
    for k in 0..12u64 {
        backwards += &format!("{},{},4096,write,1\n", k * 10_000_000, k * 4096);
    }
    for k in 0..12u64 {
        backwards += &format!(
            "{},{},4096,read,0\n",
            (20 + k) * 10_000_000,
            (11 - k) * 4096
        );
    }
    let (_, s) = latencies("backwards", "melded", &backwards, &[block, reorder]);
    assert_eq!(s["melded_reads"]["ahead_pages"], 0);
}

/// §2.3: "Stream identifiers and allocated blocks are released after the SSD completes writing
/// an entire HDFS block". A 1 MiB stream (256 pages) reordered on one die: the shadow order
/// holds its last pages for wordlines it never writes. Complete after 1 MiB, it is closed at its
/// last write and what it held is programmed then, so a read of it a second later finds every
/// page on flash; left open, the held pages wait in the write buffer until the input ends.
#[test]
fn a_stream_that_has_written_its_block_is_closed_and_its_held_pages_programmed() {
    let trace = stream_then_reads(256, 1);
    let (_, open) = latencies("complete", "melded", &trace, &[REORDER_ONE]);
    let h = &open["host_streams"];
    assert_eq!(
        (h["completed"].as_u64(), h["released"].as_u64()),
        (Some(0), Some(0))
    );
    let held = open["read_units"]["buffer_hit"].as_u64().unwrap();
    assert!(held > 0, "the last pages wait: {h}");
    let complete = "ftl.host_streams={policy=\"wordlines\", max_open=1, complete_after_mib=1}";
    let (_, closed) = latencies("complete", "melded", &trace, &[complete]);
    let h = &closed["host_streams"];
    assert_eq!(
        (h["completed"].as_u64(), h["released"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(h["flushed_pages"].as_u64(), Some(held), "{h}");
    assert_eq!(closed["read_units"]["buffer_hit"], 0);
}

/// A stream is told by device addresses: a flow placed 1 MiB into the device reads its stream in
/// order as one at the device's start does (the same melds and reads from memory).
#[test]
fn a_stream_read_in_order_is_told_at_its_flows_offset() {
    use ssdlab::config::FlowConfig;
    use ssdlab::trace::{Caller, TraceFormat};
    let file = scratch("melded", "offset.csv", &stream_then_reads(12, 12));
    let ahead = |offset_bytes: u64| {
        let sets: Vec<String> = [
            "geometry.channels=1",
            "geometry.ways_per_channel=1",
            "geometry.dies_per_way=1",
            "geometry.blocks_per_plane=64",
            "geometry.pages_per_block=12",
            "host_interface.protocol=\"none\"",
            "ftl.read_policy={policy=\"melded\"}",
            REORDER_ONE,
        ]
        .map(String::from)
        .to_vec();
        let mut c = ssdlab::config::Config::resolve("melded", None, &sets).unwrap();
        let mut flow = FlowConfig::trace(file.clone(), Some(TraceFormat::Native), Caller::Toml);
        flow.offset_bytes = offset_bytes;
        c.flows.push(flow);
        common::verified(&c)["melded_reads"].clone()
    };
    let at_start = ahead(0);
    assert_eq!(at_start["ahead_hits"], 6, "{at_start}");
    assert_eq!(ahead(1 << 20), at_start);
}

/// Read-ahead's window is at least a page, its streams only with a window.
#[test]
fn a_read_ahead_window_too_small_or_streams_without_one_are_refused() {
    let (code, _, e) = ssdlab(&[
        "run",
        "--preset",
        "melded",
        "--set",
        "ftl.read_policy={policy=\"melded\", read_ahead_kib=2}",
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("`ftl.read_policy.read_ahead_kib`"), "{e}");
    let (code, _, e) = ssdlab(&[
        "run",
        "--preset",
        "melded",
        "--set",
        "ftl.read_policy={policy=\"melded\", read_ahead_kib=0, read_ahead_streams=4}",
    ]);
    assert_eq!(code, 2, "{e}");
    assert!(e.contains("`ftl.read_policy.read_ahead_streams`"), "{e}");
}

/// The melded preset shrunk, with melded reads and every stream reordered onto wordlines.
fn reordered(more: &[&str]) -> ssdlab::config::Config {
    let mut sets: Vec<String> = [
        "geometry.blocks_per_plane=64",
        "geometry.pages_per_block=48",
        "geometry.channels=2",
        "ftl.read_policy={policy=\"melded\"}",
        "ftl.host_streams={policy=\"wordlines\", max_open=4}",
        "host.out_of_range=\"wrap\"",
    ]
    .iter()
    .chain(more)
    .map(|s| s.to_string())
    .collect();
    sets.push("ftl.write_buffer_units=64".into());
    ssdlab::config::Config::resolve("melded", None, &sets).unwrap()
}

/// Every committed trace, its requests given a stream per 64 MiB of their addresses, replays
/// reordered with 0 integrity violations, fresh and in a GC-active steady state.
#[test]
fn reordered_streams_are_verify_clean_on_every_committed_trace_and_under_gc() {
    use ssdlab::config::FlowConfig;
    use ssdlab::config::StreamRule;
    use ssdlab::trace::columns::ColumnsSpec;
    use ssdlab::trace::Caller;
    let steady = [
        "precondition.fill_fraction=0.8",
        "precondition.pattern=\"random\"",
        "precondition.overwrite_fraction=0.5",
        "precondition.trace_footprint=false",
    ];
    for (file, format, columns) in common::committed_traces() {
        for more in [&[][..], &steady[..]] {
            let mut c = reordered(more);
            let mut flow = FlowConfig::trace(common::trace(file), format, Caller::Toml);
            flow.columns = columns.map(|s| ColumnsSpec::from_cli(s).unwrap());
            flow.stream = Some(StreamRule::PerExtent {
                extent_bytes: 64 << 20,
            });
            c.flows.push(flow);
            let s = common::verified(&c);
            let writes = s["requests"]["write"].as_u64().unwrap();
            assert!(
                writes == 0 || s["host_streams"]["opened"].as_u64().unwrap() > 0,
                "{file}: {}",
                s["host_streams"]
            );
            if !more.is_empty() && writes > 1000 {
                assert!(s["gc"]["invocations"].as_u64().unwrap() > 0, "{file}");
            }
        }
    }
}

/// Reordering onto wordlines needs wordlines of several pages that the program order does not
/// already fill one after another. (Without a workload a valid config stops at `flows`.)
#[test]
fn reordering_where_it_changes_nothing_is_refused_naming_the_key() {
    let wordlines = REORDER_ONE;
    let refusal = |sets: &[&str]| {
        let mut args = vec!["run", "--preset", "melded", "--set", wordlines];
        for s in sets {
            args.extend(["--set", s]);
        }
        let (code, _, e) = ssdlab(&args);
        assert_eq!(code, 2, "{e}");
        e
    };
    let e = refusal(&["geometry.program_order=\"one_shot\""]);
    assert!(
        e.contains("`ftl.host_streams.policy`") && e.contains("one after another"),
        "{e}"
    );
    let e = refusal(&["geometry.program_order=\"shadow\""]);
    assert!(e.contains("`flows`"), "accepted: {e}");
    let e = refusal(&[
        "geometry.cell_mode=\"slc\"",
        "timing.slc={tr_ns=25000, tprog_ns=300000, tbers_ns=2000000}",
    ]);
    assert!(
        e.contains("`ftl.host_streams.policy`") && e.contains("one bit"),
        "{e}"
    );
}
