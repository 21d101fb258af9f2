#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Capture one real tracefs window for the attribution fixtures (tests/data/trace/).

Root only.  Runs itself in a private mount namespace (so that a tracefs it
mounts never shows outside and another tool's mount is never undone), creates
its own instance instances/attrib-capture-<pid> (never the top-level buffer),
restricted to one CPU, trace_clock "mono" (CLOCK_MONOTONIC, the probe's
clock), enables the events the analysis reads, runs a SCHED_FIFO probe that
sleeps to absolute deadlines on that CPU while a scenario runs, reads the
events with ns timestamps (trace_tool read: libtracefs; the text `trace` file
prints microseconds only, too coarse to split a wake-up), picks the worst
wake-up and writes the events around it as fixture lines, with the
`# input` line of the window.  The instance is removed on every exit path.

  trace_window.py --case hog|idle|netrx --out FILE [--cpu 1] [--seconds 3] [--spin]
                  [--period-us 1000] [--burst-us 3000]

Cases:
  hog    trace_tool hog: SCHED_FIFO 99 on CPU spinning --burst-us every 47.037 ms
         (not a multiple of the probe period: the phase drifts 37 us a burst, so some
         deadline falls just after
         a burst starts); the worst wake-up with a switch of the hog in it
  idle   nothing else started; the worst wake-up whose CPU was idle at the
         deadline (this VM: no cpuidle driver, default_idle emits
         power:cpu_idle state=1 ... state=4294967295)
  netrx  trace_tool flood: UDP to 127.0.0.1 from a SCHED_OTHER sender on CPU;
         the wake-up with the most NET_RX softirq time inside [deadline, wake]
"""
import argparse
import bisect
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EVENTS = [
    "sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
    "irq/irq_handler_entry", "irq/irq_handler_exit",
    "irq/softirq_entry", "irq/softirq_exit",
    "irq_vectors/local_timer_entry", "irq_vectors/local_timer_exit",
    "irq_vectors/reschedule_entry", "irq_vectors/reschedule_exit",
    "irq_vectors/call_function_entry", "irq_vectors/call_function_exit",
    "irq_vectors/call_function_single_entry", "irq_vectors/call_function_single_exit",
    "irq_vectors/irq_work_entry", "irq_vectors/irq_work_exit",
    "timer/hrtimer_expire_entry", "timer/hrtimer_expire_exit",
    "power/cpu_idle", "nmi/nmi_handler",
]
LOOKBACK_NS = 2000000  # ATTRIB_LOOKBACK_NS
AFTER_NS = 100000


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def steal_ns(cpu):
    with open("/proc/stat") as f:
        for line in f:
            w = line.split()
            if w[0] == "cpu%d" % cpu:
                return int(w[8]) * (1000000000 // os.sysconf("SC_CLK_TCK"))
    return 0


def build(tmp):
    exe = os.path.join(tmp, "trace_tool")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libtracefs"], check=True,
                           capture_output=True, text=True).stdout.split()
    subprocess.run(["cc", "-O2", "-Wall", "-o", exe, os.path.join(HERE, "trace_tool.c")] + flags,
                   check=True)
    return exe


def capture(a, tool, inst_dir, inst_name):
    write(inst_dir + "/tracing_on", "0")
    write(inst_dir + "/trace_clock", "mono")
    write(inst_dir + "/buffer_size_kb", "16384")
    write(inst_dir + "/tracing_cpumask", "%x" % (1 << a.cpu))
    for e in EVENTS:
        write(inst_dir + "/events/" + e + "/enable", "1")
    write(inst_dir + "/tracing_on", "1")
    load = None
    loadinfo = ""
    spin = None
    if a.spin:
        spin = subprocess.Popen([tool, "spin", str(a.cpu), str(a.seconds + 1)])
    if a.case == "hog":
        load = subprocess.Popen([tool, "hog", str(a.cpu), "99", str(a.burst_us), "47037",
                                 str(a.seconds + 1)], stdout=subprocess.PIPE, text=True)
        loadinfo = load.stdout.readline().strip()
    elif a.case == "netrx":
        load = subprocess.Popen([tool, "flood", str(a.cpu), str(a.seconds + 1)],
                                stdout=subprocess.PIPE, text=True)
        loadinfo = load.stdout.readline().strip()
    count = a.seconds * 1000000 // a.period_us
    s0 = steal_ns(a.cpu)
    out = subprocess.run([tool, "probe", str(a.cpu), "50", str(a.period_us), str(count)],
                         check=True, capture_output=True, text=True).stdout
    s1 = steal_ns(a.cpu)
    write(inst_dir + "/tracing_on", "0")
    if load:
        load.wait()
    if spin:
        spin.wait()
        loadinfo += "; attrib-spin %d (SCHED_OTHER nice 19)" % spin.pid
    wakes = [tuple(int(x) for x in l.split()) for l in out.splitlines()]
    ev = subprocess.run([tool, "read", inst_name], check=True, capture_output=True,
                        text=True).stdout.splitlines()
    return wakes, ev, loadinfo, s1 - s0


def pick(a, wakes, ev):
    evs = [(int(l.split()[0]), l) for l in ev]
    tss = [t for t, _ in evs]
    first = tss[0] if tss else 0
    best = None
    for d, w, tid in wakes:
        if d - LOOKBACK_NS < first:
            continue
        lo, mid, hi = (bisect.bisect_left(tss, d - LOOKBACK_NS), bisect.bisect_left(tss, d),
                       bisect.bisect_right(tss, w))
        if a.case == "idle":
            before = [l for _, l in evs[lo:mid]]
            sw = [l for l in before if l.split()[2] == "switch"]
            idl = [l for l in before if l.split()[2] == "idle"]
            # the idle task on the CPU at the deadline and, where the kernel
            # traces power:cpu_idle (this VM does not), in an idle state
            if not sw or sw[-1].split()[3] != "0" or (idl and idl[-1].split()[7] == "4294967295"):
                continue
        score = w - d
        if a.case == "hog" and not any(l.split()[2] == "switch" and "attrib-hog" in l
                                       for _, l in evs[mid:hi]):
            continue  # the worst wake-up of a busy host can be a late vCPU: not this case
        if a.case == "netrx":
            score = netrx_ns(evs[lo:hi], d, w)
            if not score:
                continue
        if best is None or score > best[3]:
            best = (d, w, tid, score)
    return best[:3] if best else None


def netrx_ns(evs, d, w):
    """The NET_RX softirq time inside [d, w] (entries and exits of vector 3)."""
    total, start = 0, None
    for t, l in evs:
        f = l.split()
        if f[7] != "3" or f[2] not in ("softirq_entry", "softirq_exit"):
            continue
        if f[2] == "softirq_entry":
            start = t
        elif start is not None:
            total += max(0, min(t, w) - max(start, d))
            start = None
    return total


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", choices=["hog", "idle", "netrx"], required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--cpu", type=int, default=1)
    p.add_argument("--seconds", type=int, default=3)
    p.add_argument("--period-us", type=int, default=1000)
    p.add_argument("--burst-us", type=int, default=3000)
    p.add_argument("--dump", metavar="PREFIX",
                   help="also write all events (PREFIX.events) and wake-ups (PREFIX.wakes)")
    p.add_argument("--spin", action="store_true",
                   help="keep the CPU busy with a nice 19 spinner: on this VM no event of the"
                   " idle task's own context (its switch-out, power:cpu_idle) is recorded")
    a = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("trace_window.py: needs root (tracefs)")
    if os.environ.get("ATTRIB_CAPTURE_NS") != "1":
        os.environ["ATTRIB_CAPTURE_NS"] = "1"
        os.execvp("unshare", ["unshare", "-m", "--propagation", "private", sys.executable,
                              os.path.abspath(__file__)] + sys.argv[1:])
    root = "/sys/kernel/tracing"
    mounted = False
    if not os.path.isdir(root + "/instances"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", root], check=True)
        mounted = True
    tmp = "/tmp/attrib-capture-%d" % os.getpid()
    os.makedirs(tmp, exist_ok=True)
    inst_name = "attrib-capture-%d" % os.getpid()
    inst_dir = root + "/instances/" + inst_name
    os.mkdir(inst_dir)
    try:
        tool = build(tmp)
        wakes, ev, loadinfo, steal = capture(a, tool, inst_dir, inst_name)
    finally:
        for _ in range(50):
            try:
                os.rmdir(inst_dir)
                break
            except OSError:
                time.sleep(0.1)
        if mounted:
            subprocess.run(["umount", root])
        shutil.rmtree(tmp, ignore_errors=True)
    if a.dump:
        # every event and wake-up of the run, to analyse all of them (not a fixture)
        with open(a.dump + ".events", "w") as f:
            f.write("\n".join(ev) + "\n")
        with open(a.dump + ".wakes", "w") as f:
            f.write("".join("%d %d %d\n" % x for x in wakes))
    best = pick(a, wakes, ev)
    if not best:
        sys.exit("trace_window.py: no wake-up fits case %s" % a.case)
    d, w, tid = best
    lines = [l for l in ev if d - LOOKBACK_NS <= int(l.split()[0]) <= w + AFTER_NS]
    lat = sorted(x[1] - x[0] for x in wakes)
    with open(a.out, "w") as f:
        f.write("# captured by tests/tools/trace_window.py --case %s --cpu %d --seconds %d "
                "--period-us %d%s%s on %s, kernel %s\n"
                % (a.case, a.cpu, a.seconds, a.period_us,
                   " --burst-us %d" % a.burst_us if a.case == "hog" else "",
                   " --spin" if a.spin else "",
                   time.strftime("%Y-%m-%d"), os.uname().release))
        f.write("# probe: SCHED_FIFO 50 tid %d, %d wake-ups, median %d ns, worst %d ns; %s\n"
                % (tid, len(wakes), lat[len(lat) // 2], lat[-1], loadinfo or "no load"))
        f.write("# steal of cpu%d over the whole run: %d ns (not of this window: steal=0)\n"
                % (a.cpu, steal))
        f.write("# events: deadline - %d ns .. wake + %d ns of the picked wake-up\n"
                % (LOOKBACK_NS, AFTER_NS))
        f.write("# input cpu=%d tid=%d deadline=%d wake=%d timer=1 steal=0\n" % (a.cpu, tid, d, w))
        for l in lines:
            f.write(l + "\n")
    print("%s: deadline %d wake %d latency %d ns, %d events" % (a.out, d, w, w - d, len(lines)))


if __name__ == "__main__":
    main()
