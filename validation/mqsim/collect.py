#!/usr/bin/env python3
"""Collect MQSim's output XML (and the run's /usr/bin/time -v figures) into results.json.

Usage:
    python3 collect.py --runs /work/mqsim/runs --commit <40-hex MQSim commit> \
        [--compiler "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"] [--shipped-ssdconfig PATH]
        [-o results.json] [NAME ...]

Each run directory `<runs>/<NAME>/` holds what one MQSim run left behind:

    command.txt          the MQSim command line, run in that directory
    time.txt             `/usr/bin/time -v -o time.txt` output (wall time, peak RSS, exit status)
    rc.txt               the exit status as the shell saw it (124 = killed by `timeout`)
    ssdconfig.xml        the device config given with -i: MQSim's shipped file, or a copy with
                         one line changed (runs named *_precond90: Enabled_Preconditioning true;
                         *_ideal_mapping: Ideal_Mapping_Table true, see ssdconfig_ideal_mapping.diff)
    <workload>.xml       the workload XML given with -w (ours; also under workloads/)
    <trace>.trace        the input trace (a symlink) named in the workload's File_Path
    <workload>_scenario_1.xml   MQSim's results, if it got that far
    stdout.txt, stderr.txt      MQSim's console output

What is kept, with MQSim's own names:
- host_flow: every element MQSim prints under Host/Host.IO_Flow (times in microseconds, as
  MQSim prints them: integer, truncated).
- host_interface_stream: every element under SSDDevice.HostInterface/SSDDevice.IO_Stream
  (per flash transaction, microseconds).
- ftl: every attribute of SSDDevice.FTL, verbatim strings converted to numbers where they
  parse (MQSim prints `-nan` for 0/0; kept as the string "-nan").
- tsu_queues: the 13 kinds of transaction queue MQSim prints once per chip (32 chips here),
  summed over chips: No_Of_Transactions_Enqueued/Dequeued summed, Max_* as the maximum over
  chips, and Avg_Transaction_Waiting_Time as the dequeued-weighted mean over chips that
  dequeued anything (our derivation; MQSim prints 2^63 for an empty queue's average).
  Kinds that no transaction entered on any chip are only named, in tsu_queue_kinds_never_used.
- flash_chips: the per-chip fractions summarised as mean, min and max over chips.
- derived (ours, not printed by MQSim): flash transactions by source from tsu_queues.
Pure standard library.
"""
import argparse
import difflib
import glob
import hashlib
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

EMPTY_AVG = 9223372036854775808  # MQSim's average for a queue that dequeued nothing (0/0)


def num(s):
    s = s.strip()
    try:
        return int(s)
    except ValueError:
        pass
    try:
        f = float(s)
        if f != f:  # nan
            return s
        return f
    except ValueError:
        return s


def parse_time_v(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("Elapsed (wall clock) time"):
                t = line.rsplit(": ", 1)[1]
                parts = [float(p) for p in t.split(":")]
                secs = 0.0
                for p in parts:
                    secs = secs * 60 + p
                out["wall_seconds"] = round(secs, 2)
            elif line.startswith("Maximum resident set size (kbytes)"):
                out["peak_rss_kib"] = int(line.rsplit(": ", 1)[1])
            elif line.startswith("User time (seconds)"):
                out["user_seconds"] = float(line.rsplit(": ", 1)[1])
            elif line.startswith("System time (seconds)"):
                out["system_seconds"] = float(line.rsplit(": ", 1)[1])
            elif line.startswith("Exit status"):
                out["exit_status_time_v"] = int(line.rsplit(": ", 1)[1])
            elif line.startswith("Command terminated by signal"):
                out["terminated_by_signal"] = int(line.rsplit(" ", 1)[1])
    if "peak_rss_kib" in out:
        out["peak_rss_gib"] = round(out["peak_rss_kib"] / 2**20, 3)
    return out


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def trace_info(path):
    n = reads = 0
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) != 5:
                break
            n += 1
            reads += p[4] == "1"
    return {"requests": n, "reads": reads, "writes": n - reads,
            "bytes": os.path.getsize(path), "sha256": sha256(path)}


def summarise_tsu(tsu):
    kinds = {}
    for q in tsu:
        kind = q.tag.replace("SSDDevice.TSU.", "")
        k = kinds.setdefault(kind, {"queues": 0, "No_Of_Transactions_Enqueued": 0,
                                    "No_Of_Transactions_Dequeued": 0, "Max_Queue_Length": 0,
                                    "Max_Transaction_Waiting_Time": 0, "_wsum": 0})
        a = q.attrib
        deq = int(a["No_Of_Transactions_Dequeued"])
        k["queues"] += 1
        k["No_Of_Transactions_Enqueued"] += int(a["No_Of_Transactions_Enqueued"])
        k["No_Of_Transactions_Dequeued"] += deq
        k["Max_Queue_Length"] = max(k["Max_Queue_Length"], int(a["Max_Queue_Length"]))
        k["Max_Transaction_Waiting_Time"] = max(k["Max_Transaction_Waiting_Time"],
                                                int(a["Max_Transaction_Waiting_Time"]))
        avg = int(a["Avg_Transaction_Waiting_Time"])
        if deq and avg != EMPTY_AVG:
            k["_wsum"] += avg * deq
    for k in kinds.values():
        w = k.pop("_wsum")
        d = k["No_Of_Transactions_Dequeued"]
        k["Avg_Transaction_Waiting_Time_weighted"] = round(w / d, 1) if d else None
    used = {n: k for n, k in kinds.items() if k["No_Of_Transactions_Enqueued"]}
    unused = sorted(n for n in kinds if n not in used)
    return used, unused


def summarise_chips(chips):
    fields = {}
    for c in chips:
        for name, v in c.attrib.items():
            if name == "ID":
                continue
            fields.setdefault(name, []).append(float(v))
    return {"chips": len(chips),
            **{name: {"mean": round(sum(v) / len(v), 6), "min": min(v), "max": max(v)}
               for name, v in fields.items()}}


def derived(tsu):
    def s(prefix):
        return sum(v["No_Of_Transactions_Dequeued"] for k, v in tsu.items() if k.startswith(prefix))
    d = {
        "flash_reads_user": s("User_Read_TR_Queue"),
        "flash_reads_mapping": s("Mapping_Read_TR_Queue"),
        "flash_reads_gc": s("GC_Read_TR_Queue"),
        "flash_programs_user": s("User_Write_TR_Queue"),
        "flash_programs_mapping": s("Mapping_Write_TR_Queue"),
        "flash_programs_gc": s("GC_Write_TR_Queue"),
        "flash_erases_gc": s("GC_Erase_TR_Queue"),
    }
    d["flash_reads_total"] = d["flash_reads_user"] + d["flash_reads_mapping"] + d["flash_reads_gc"]
    d["flash_programs_total"] = (d["flash_programs_user"] + d["flash_programs_mapping"]
                                 + d["flash_programs_gc"])
    d["programs_total_over_user_programs"] = (
        round(d["flash_programs_total"] / d["flash_programs_user"], 4)
        if d["flash_programs_user"] else None)
    d["note"] = ("ours: transactions dequeued from MQSim's TSU queues, summed over chips, by "
                 "queue kind (User_/Mapping_/GC_); a page read/program/erase per transaction. "
                 "programs_total_over_user_programs counts programs after MQSim's DRAM write "
                 "cache, so it is not a host-level WAF. MQSim prints no WAF.")
    return d


def collect_run(rd, shipped_cfg=None):
    r = {}
    cmd_path = os.path.join(rd, "command.txt")
    if os.path.exists(cmd_path):
        r["command"] = open(cmd_path).read().strip()
        r["invocation"] = ("/usr/bin/time -v -o time.txt " + r["command"]
                            + " < /dev/null > stdout.txt 2> stderr.txt")
        r["cwd"] = "the run's own directory, holding ssdconfig.xml, the workload XML and the trace"
    rc_path = os.path.join(rd, "rc.txt")
    if os.path.exists(rc_path):
        r["exit_status"] = int(open(rc_path).read().strip())
    r.update(parse_time_v(os.path.join(rd, "time.txt")))
    # workload and trace
    m = re.search(r"-w (\S+)", r.get("command", ""))
    if m:
        wl = os.path.join(rd, m.group(1))
        r["workload_xml"] = "workloads/" + m.group(1)
        root = ET.parse(wl).getroot()
        flows = root.findall("IO_Scenario/*")
        r["workload_flows"] = len(flows)
        f0 = flows[0]
        r["workload_first_flow"] = {c.tag: c.text for c in f0}
        tp = os.path.join(rd, f0.findtext("File_Path"))
        if os.path.exists(tp):
            r["input"] = trace_info(tp)
        out = os.path.splitext(wl)[0] + "_scenario_1.xml"
    else:
        out = None
    cfg = os.path.join(rd, "ssdconfig.xml")
    if os.path.exists(cfg):
        r["ssdconfig_sha256"] = sha256(cfg)
        if shipped_cfg:
            a_lines = open(shipped_cfg).read().splitlines()
            b_lines = open(cfg).read().splitlines()
            changed = [l[0] + " " + l[1:].strip() for l in difflib.unified_diff(a_lines, b_lines, lineterm="", n=0)
                       if l[:1] in "+-" and not l.startswith(("+++", "---"))]
            r["ssdconfig_vs_shipped"] = changed or "identical to MQSim's ssdconfig.xml at the commit"
        for p in ("Enabled_Preconditioning", "Ideal_Mapping_Table"):
            r["ssdconfig_" + p] = ET.parse(cfg).getroot().findtext("Device_Parameter_Set/" + p)
    err = open(os.path.join(rd, "stderr.txt")).read().strip() if os.path.exists(
        os.path.join(rd, "stderr.txt")) else ""
    if err:
        r["stderr"] = err[-2000:]
    so = os.path.join(rd, "stdout.txt")
    if os.path.exists(so):
        lines = [l.rstrip() for l in open(so, errors="replace") if l.strip()]
        r["stdout_last_lines"] = [l for l in lines if "% progress" not in l][-6:]
    if not out or not os.path.exists(out):
        r["results_xml"] = None
        return r
    r["results_xml"] = os.path.basename(out)
    root = ET.parse(out).getroot()
    host = root.findall("Host/Host.IO_Flow")
    r["host_flow"] = [{c.tag: num(c.text) if c.tag != "Name" else c.text for c in f} for f in host]
    if len(r["host_flow"]) == 1:
        r["host_flow"] = r["host_flow"][0]
    st = root.find("SSDDevice/SSDDevice.HostInterface/SSDDevice.IO_Stream")
    if st is not None:
        r["host_interface_stream"] = {c.tag: num(c.text) for c in st}
    ftl = root.find("SSDDevice/SSDDevice.FTL")
    if ftl is not None:
        r["ftl"] = {k: num(v) for k, v in ftl.attrib.items()}
    tsu = root.find("SSDDevice/SSDDevice.TSU")
    if tsu is not None:
        r["tsu_queues"], r["tsu_queue_kinds_never_used"] = summarise_tsu(tsu)
        r["derived"] = derived(r["tsu_queues"])
    chips = root.findall("SSDDevice/SSDDevice.FlashChips")
    if chips:
        r["flash_chips"] = summarise_chips(chips)
    return r


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True, help="directory holding one subdirectory per run")
    ap.add_argument("--commit", required=True, help="MQSim commit the binary was built from")
    ap.add_argument("--compiler", default="")
    ap.add_argument("--build", default="make -j2 (MQSim's own Makefile, unchanged)")
    ap.add_argument("--shipped-ssdconfig", help="MQSim's ssdconfig.xml at the commit, to compare")
    ap.add_argument("-o", "--output", default=os.path.join(here, "results.json"))
    ap.add_argument("names", nargs="*", help="run directories to collect (default: all)")
    a = ap.parse_args()
    names = a.names or sorted(os.path.basename(p) for p in glob.glob(os.path.join(a.runs, "*"))
                              if os.path.isdir(p))
    res = {
        "mqsim": {"repository": "https://github.com/CMU-SAFARI/MQSim", "commit": a.commit,
                  "build": a.build, "compiler": a.compiler},
        "units": "times in microseconds as MQSim prints them (integer, truncated) unless named "
                 "otherwise; wall_seconds and peak_rss_kib from /usr/bin/time -v",
        "runs": {},
    }
    for n in names:
        rd = os.path.join(a.runs, n)
        if not os.path.isdir(rd):
            sys.exit(f"no run directory {rd}")
        res["runs"][n] = {"mqsim_commit": a.commit, **collect_run(rd, a.shipped_ssdconfig)}
    with open(a.output, "w") as f:
        json.dump(res, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"wrote {a.output}: {', '.join(names)}")


if __name__ == "__main__":
    main()
