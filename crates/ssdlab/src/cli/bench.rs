//! `ssdlab bench`: the engine's standing speed and memory measurement (docs/performance.md).

use serde_json::Value;

use crate::bench::{bench_workload, run_scenario};
use crate::config::Config;
use crate::error::Error;

use super::out;

#[derive(clap::Args, Debug)]
pub(super) struct BenchArgs {
    /// Requests in the generated trace.
    #[arg(long, default_value_t = 1_000_000)]
    requests: usize,
    /// Which scenario(s) to run.
    #[arg(long, value_enum, default_value_t = Scenario::All)]
    scenario: Scenario,
    /// Print the figures as JSON.
    #[arg(long)]
    json: bool,
    /// Device preset to measure.
    #[arg(long, default_value = "default")]
    preset: String,
    /// Override config keys for both scenarios (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Also report where the run's time goes, by kind of event (reads a clock twice per event,
    /// so the run is slightly slower). Needs a build with the `event-costs` feature.
    #[arg(long)]
    event_costs: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Scenario {
    Fresh,
    Steady,
    All,
}

pub(super) fn bench(a: BenchArgs) -> Result<i32, Error> {
    let (requests, scenario, json, preset, user_sets, costs) = (
        a.requests,
        a.scenario,
        a.json,
        a.preset.as_str(),
        a.sets.as_slice(),
        a.event_costs,
    );
    if costs && !cfg!(feature = "event-costs") {
        eprintln!(
            "ssdlab: error: --event-costs needs a build with the `event-costs` feature \
             (cargo build --release --features event-costs)"
        );
        return Ok(2);
    }
    let workload = bench_workload(requests as u64);
    let mut results = Vec::new();
    if scenario != Scenario::Steady {
        let config = Config::resolve(preset, None, user_sets)?;
        results.push(run_scenario("fresh", &config, &workload, costs)?);
        if !json {
            print_bench(results.last());
        }
    }
    if scenario != Scenario::Fresh {
        let mut sets = vec![
            "precondition.fill_fraction=0.8".to_string(),
            "precondition.pattern=\"random\"".to_string(),
            "precondition.overwrite_fraction=0.5".to_string(),
        ];
        sets.extend_from_slice(user_sets);
        let config = Config::resolve(preset, None, &sets)?;
        results.push(run_scenario(
            "steady (80% fill + 50% random overwrites)",
            &config,
            &workload,
            costs,
        )?);
        if !json {
            print_bench(results.last());
        }
    }
    if json {
        out(&(serde_json::to_string_pretty(&results).unwrap_or_default() + "\n"));
    }
    Ok(0)
}

fn print_bench(v: Option<&Value>) {
    let Some(v) = v else { return };
    out(&format!(
        "{}: {} requests in {} s = {} requests/s; preconditioning {} s; peak RSS {} MiB; \
         GC invocations {}; WAF {}\n",
        v["scenario"].as_str().unwrap_or(""),
        v["requests"],
        v["run_wall_s"],
        v["requests_per_wall_s"],
        v["precondition_wall_s"],
        v["peak_rss_mib"],
        v["gc_invocations"],
        v["waf"]
    ));
    if let Some(rows) = v["event_costs"].as_array() {
        out("  where the run's time went (share, mean per occurrence, occurrences):\n");
        for r in rows {
            out(&format!(
                "  {:>6.1}%  {:>8.1} ns  {:>11}  {}\n",
                r["share"].as_f64().unwrap_or(0.0) * 100.0,
                r["ns_each"].as_f64().unwrap_or(0.0),
                r["count"],
                r["work"].as_str().unwrap_or("")
            ));
        }
    }
}
