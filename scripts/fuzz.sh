#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer) of every trace parser and of config loading, on the stable
# toolchain with plain cargo: no cargo install, no nightly. docs/fuzzing.md says what each target
# checks and records the figures of a long run.
#
#   scripts/fuzz.sh [TARGET...] [--runs N] [--seconds S] [--timeout S] [--list]
#
# TARGET: the names `--list` prints (trace_msr ... trace_native, config); default all of them.
# --runs N: inputs per target (default 10000000); --seconds S: stop a target after S seconds even
# if it has not run N inputs; --timeout S: an input running longer is a hang (default 10; a
# compressed input that expands to hundreds of MiB of empty lines takes 0.5 s alone, and many
# times that on a machine busy with other work).
# The targets run side by side, one per core. Each target starts from seeds built here from traces/, tests/data/trace_corpus/ and the shipped
# presets, the inputs that once made it fail (fuzz/regressions/TARGET, committed), and the corpus
# it grew on earlier runs (fuzz/corpus/TARGET, not committed). A crash (panic, timeout, out of
# memory) stops the script with a non-zero exit, the input saved under fuzz/artifacts/TARGET/;
# replay it with the printed command.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10000000
seconds=
timeout=10
list=
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --list) list=1; shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
    esac
done

all=()
for f in fuzz/src/bin/*.rs; do all+=("$(basename "$f" .rs)"); done
if [ -n "$list" ]; then printf '%s\n' "${all[@]}"; exit 0; fi
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
    [ -f "fuzz/src/bin/$t.rs" ] || { echo "fuzz.sh: no target $t (see --list)" >&2; exit 2; }
done

# The instrumentation cargo-fuzz adds, spelled out (every flag is stable): libFuzzer's edge
# counters, the table of their PCs, and hooks on comparisons so that it can solve for magic
# values; given to ssdlab and the fuzz crate only (fuzz/rustc-sancov.sh says why).
export FUZZ_SANCOV_FLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table
 -Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth
 -Cforce-frame-pointers=yes"
export FUZZ_INSTRUMENTED_CRATES="ssdlab ssdlab_fuzz"
host=$(rustc -vV | sed -n 's/^host: //p')
RUSTC_WRAPPER=$PWD/fuzz/rustc-sancov.sh cargo build --manifest-path fuzz/Cargo.toml --release \
    --target "$host" $(printf -- '--bin %s ' "${targets[@]}")
bin=fuzz/target/$host/release
# The config target writes its --config file to $TMPDIR, once per input: a memory file system
# where there is one.
TMPDIR=$(mktemp -d "$([ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/ssdlab-fuzz.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
# Every input allocates and frees the decoders' buffers; glibc would hand that memory back to
# the kernel and fault it in again each time (a fifth of the time, without these settings).
export GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=67108864

# Trace seeds, shared by every trace target (a file of another format is a useful near miss):
# the head of every committed trace, as plain text under control bytes that pick a capacity,
# wrap, framing and detection (fuzz/src/trace.rs, `Setup`), and gzip-compressed as is; and the
# lines of the parser corpus, one per seed, plus each format's accepted lines as one file.
trace_seeds() {
    local dir=$1 i=0 t head c f name line
    mkdir -p "$dir"
    for t in traces/*.gz; do
        # gzip stops on a closed pipe once head has its lines.
        head=$(gzip -dc "$t" 2>/dev/null | head -n 16 || true)
        for c in '\000' '\026' '\141' '\203' '\177'; do
            { printf "$c"; printf '%s\n' "$head"; } >"$dir/trace-$i"; i=$((i + 1))
        done
        { printf '\000'; printf '%s\n' "$head" | gzip -c; } >"$dir/trace-$i"; i=$((i + 1))
        # A longer file, past the 64 lines detection samples, where they are short enough.
        { printf '\000'; gzip -dc "$t" 2>/dev/null | head -n 100 | head -c 4000 || true; } \
            >"$dir/trace-$i"
        i=$((i + 1))
    done
    for f in crates/ssdlab/tests/data/trace_corpus/*.tsv; do
        name=$(basename "$f" .tsv)
        i=0
        while IFS= read -r line; do
            { printf '\000'; printf '%s\n' "$line"; } >"$dir/line-$name-$i"; i=$((i + 1))
        done < <(cut -f2- "$f")
        { printf '\000'; grep -v '^err:' "$f" | cut -f2-; } >"$dir/corpus-$name"
    done
}

# Config seeds: each table of each shipped preset (and of the test device), alone, as the
# --config file over that preset and over the next; and the --set overrides the docs show, without
# a file (fuzz/src/config.rs, `check`). Small files, as users write them, keep inputs fast.
config_seeds() {
    local dir=$1 n i c p s sets
    mkdir -p "$dir"
    n=$(ls crates/ssdlab/presets/*.toml | wc -l)
    i=0
    for p in crates/ssdlab/presets/*.toml crates/ssdlab/tests/data/small.toml; do
        for c in $((i % n)) $(((i + 1) % n)); do
            awk -v out="$dir/table-$i-$c-" -v c="$c" '
                BEGIN { k = 0; f = out k; printf "%c", c > f }
                /^\[/ { close(f); k++; f = out k; printf "%c", c > f }
                { print > f }' "$p"
        done
        i=$((i + 1))
    done
    sets=$(grep -ohE -- "--set +('[^']*'|[^ '\`]+)" README.md docs/*.md |
        sed -E "s/^--set +//; s/^'(.*)'$/\\1/" | sort -u)
    { printf '\200'; printf '%s\n' "$sets" | tr '\n' '\0'; } >"$dir/sets-all"
    i=0
    while IFS= read -r s; do
        { printf '\200'; printf '%s' "$s"; } >"$dir/set-$i"; i=$((i + 1))
    done <<<"$sets"
}

stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

# One target's run; its row of the table goes to $work/row.
fuzz_one() {
    local t=$1 work seeds kept budget log start secs done_line cov ft corp
    work=fuzz/target/run/$t
    rm -rf "$work"
    seeds=$work/seeds
    case "$t" in
    trace_*) trace_seeds "$seeds" ;;
    config) config_seeds "$seeds" ;;
    esac
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    # Inputs that once failed the target, kept in git and replayed by every run.
    kept=()
    [ ! -d "fuzz/regressions/$t" ] || kept=("fuzz/regressions/$t")
    budget=(-runs="$runs")
    [ -z "$seconds" ] || budget+=(-max_total_time="$seconds")
    log=$work/log
    start=$(date +%s)
    # -timeout: an input that takes that long is a hang; -rss_limit_mb: one that needs 2 GiB a
    # blow-up.
    if ! "$bin/$t" "${budget[@]}" -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" "fuzz/corpus/$t" "$seeds" "${kept[@]}" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz.sh: $t crashed; the input is under fuzz/artifacts/$t/." \
            "Replay: $bin/$t fuzz/artifacts/$t/<file> (log: $log)" >&2
        return 1
    fi
    secs=$(($(date +%s) - start))
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")
    corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$done_line")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$t" \
        "$(stat number_of_executed_units "$log")" "$(stat average_exec_per_sec "$log")" \
        "$cov" "$ft" "$corp" "$secs" "$(stat peak_rss_mb "$log")" >"$work/row"
}

# A libFuzzer run is one process on one core: the targets run side by side, one per core, and
# the first crash stops the script (its table row is not printed).
jobs=$(nproc)
running=0
one_done() {
    wait -n || { kill $(jobs -p) 2>/dev/null; wait; exit 1; }
    running=$((running - 1))
}
for t in "${targets[@]}"; do
    [ "$running" -lt "$jobs" ] || one_done
    fuzz_one "$t" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do one_done; done
printf '| target | inputs | execs/s | coverage (edges) | features | corpus | time (s) | peak RSS (MiB) |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for t in "${targets[@]}"; do cat "fuzz/target/run/$t/row"; done
