#!/usr/bin/python3
"""Ensembles of throng runs: one case, many seeds, optionally a sweep of option values.

A study asks for a distribution, not one run: the evacuation time of a venue over 50
seeds (IMO MSC.1/Circ.1533 asks for at least 50 runs per case and reports the 95th
percentile; RiMEA for the time and its distribution), or a granular packing's pressure
over independent preparations.  This driver plans an ensemble, runs it here or on Slurm,
resumes it after failures and hands the results to postproc/ensemble.py for the
statistics.

The folder of an ensemble (DIR) holds:

  manifest.json      the case (throng's options, the sweep, ranks per member, the first
                     seed), the program and its version, and every member: its index,
                     seed, swept values, full argument list and, once run, its digest;
  members/NNNN/      one member: log (throng's output), run.* (exit records
                     run.exits.csv, evacuation curve run.evacuation.csv, sensors...),
                     done.json (digest, wall time) or failed.json (status, reason);
  manifest.csv       the members as a table (index, seed, values, state, digest);
  report.md, *.png   the statistics (postproc/ensemble.py).

A member is the same run bit for bit on any machine that builds the same revision
(runs are rank-independent), so its argument list and digest are all it takes to rerun
and check it (verify).  Members are planned as (sweep point, seed) pairs; planning again
into DIR with more seeds adds members and keeps those that exist; planning another case
into DIR is refused.  Completed members are never run again: run and submit start only
the members that have no done.json; a member that failed or was killed (a Slurm time
limit) is started afresh, its old log kept as log.N.

Commands (bash jobs/ensemble.sh is this program under Debian's python3):

  plan DIR [--seeds N] [--seed0 S] [--sweep NAME V1 V2 ...]... [--ranks R]
           [--max-members M] [--yes] -- THRONG OPTIONS
  run DIR [plan options -- THRONG OPTIONS] [--jobs J] [--timeout S] [--only I,J,...] [--no-report]
  submit DIR [plan options -- THRONG OPTIONS] [--per-task K] [--sbatch "ARGS"]
  status DIR
  verify DIR [I ...]
  report DIR [postproc/ensemble.py options]

Environment: THRONG (the program, default build/throng), MPIEXEC (default mpiexec; for
members of more than one rank when run here), LAUNCH (how a Slurm task starts a member,
default "srun --mpi=pmix").
"""
import argparse
import datetime
import itertools
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMAT = "throng-ensemble 1"


class Refused(Exception):
    """Bad input: one message, exit status 2, nothing changed."""


def die(msg):
    raise Refused(msg)


def throng():
    return os.environ.get("THRONG", "build/throng")


# ---- the plan ----------------------------------------------------------------------

def parse_plan_args(argv):
    """Split 'options -- throng options'; returns (namespace, throng options or None)."""
    if "--" in argv:
        k = argv.index("--")
        mine, opts = argv[:k], argv[k + 1:]
    else:
        mine, opts = argv, None
    return mine, opts


def help_options(opts):
    """The option names throng declares for these options (-help lists them)."""
    r = subprocess.run([throng()] + opts + ["-help"], capture_output=True, text=True)
    names = set(re.findall(r"^\s+-([A-Za-z0-9_]+)[ :<]", r.stdout + r.stderr, re.M))
    return names


def check_case(opts, sweep, ranks):
    """Throng reads the options (a dry run of 0 steps) and knows every swept option."""
    exe = throng()
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        die(f"the program {exe} is not there: build it (cmake --build build) or set THRONG")
    known = help_options(opts)
    for name, values in sweep:
        if name not in known:
            close = sorted(n for n in known if name[:4] in n)[:5]
            die(f"--sweep {name}: throng has no option -{name}" +
                (f" (similar: {', '.join('-' + c for c in close)})" if close else "") +
                f"; {exe} -help lists them")
        if not values:
            die(f"--sweep {name}: no values")
    # every point of the grid must be a valid run: a dry run of each (0 steps)
    version = None
    for point in itertools.product(*[[(n, v) for v in vals] for n, vals in sweep]) if sweep else [()]:
        args = [exe] + opts + [a for n, v in point for a in ("-" + n, v)] + \
            ["-steps", "0", "-output", "none", "-checkpoint", "none", "-quiet"]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            err = [l for l in (r.stdout + r.stderr).splitlines() if "error" in l.lower()] or \
                (r.stdout + r.stderr).splitlines()[-3:]
            what = ", ".join(f"-{n} {v}" for n, v in point)
            die(f"throng refuses the case{(' at ' + what) if what else ''}: " + " / ".join(err[:2]))
        m = re.search(r"^summary: program (.*)$", r.stdout, re.M)
        version = m.group(1) if m else "unknown"
    return version


def member_argv(opts, point, seed, out):
    """A member's throng arguments: the case, its swept values, its seed and output.
    Trajectory frames and checkpoints are off unless the case's options ask for them."""
    pre = ["-output_every", "0", "-checkpoint", "none"]
    return pre + opts + [a for n, v in point for a in ("-" + n, v)] + ["-seed", str(seed), "-output", out, "-quiet"]


def load(d):
    path = os.path.join(d, "manifest.json")
    if not os.path.isfile(path):
        die(f"{d} holds no ensemble (no manifest.json): plan one with "
            f"bash jobs/ensemble.sh plan {d} --seeds N -- THRONG OPTIONS")
    try:
        m = json.load(open(path))
    except (OSError, ValueError) as e:
        die(f"{path} cannot be read ({e}); it is left as it is")
    if m.get("format") != FORMAT:
        die(f"{path} is not a throng ensemble manifest (format {m.get('format')!r})")
    return m


def save(d, m):
    tmp = os.path.join(d, "manifest.json.tmp")
    with open(tmp, "w") as f:
        json.dump(m, f, indent=1)
    os.replace(tmp, os.path.join(d, "manifest.json"))


def plan(d, argv):
    ap = argparse.ArgumentParser(prog="ensemble.sh plan", description="plan an ensemble (see jobs/ensemble.py)")
    ap.add_argument("--seeds", type=int, default=10, help="members per sweep point [10]")
    ap.add_argument("--seed0", type=int, default=1, help="the first seed; members use seed0, seed0+1, ... [1]")
    ap.add_argument("--sweep", nargs="+", action="append", default=[], metavar=("NAME", "VALUE"),
                    help="an option and its values (repeat for a grid): --sweep csm_time_gap 0.8 0.9 1.0")
    ap.add_argument("--ranks", type=int, default=1, help="MPI ranks per member [1]")
    ap.add_argument("--max-members", type=int, default=1000, help="ask before planning more members [1000]")
    ap.add_argument("--yes", action="store_true", help="plan more than --max-members without asking")
    mine, opts = parse_plan_args(argv)
    a, rest = ap.parse_known_args(mine)
    if rest:
        die(f"plan: unknown arguments {' '.join(rest)} (throng's options go after --)")
    if opts is None:
        die("plan: give throng's options after -- (e.g. -- -options_file_yaml configs/rimea9.yaml)")
    if a.seeds < 1 or a.ranks < 1:
        die("plan: --seeds and --ranks must be >= 1")
    own = {"seed": "the ensemble gives each member its seed (--seeds N from --seed0 S)",
           "output": "the ensemble names each member's files (DIR/members/NNNN/run.*)",
           "restart": "each member runs from its start; a member that failed runs again from its start"}
    for k, o in enumerate(opts):
        name = o.lstrip("-") if o.startswith("-") else None
        if name in own:
            die(f"-{name} among throng's options: {own[name]}; drop it" +
                (f" (for seeds from {opts[k + 1]}: --seed0 {opts[k + 1]})" if name == "seed" and k + 1 < len(opts) else ""))
    sweep = []
    for s in a.sweep:
        name = s[0].lstrip("-")
        if any(n == name for n, _ in sweep):
            die(f"--sweep {name} is given twice")
        if name in own:
            die(f"--sweep {name}: {own[name]}" + ("; give --seeds N --seed0 S for more seeds" if name == "seed" else ""))
        dup = sorted({v for v in s[1:] if s[1:].count(v) > 1})
        if dup:
            die(f"--sweep {name}: the value {dup[0]} is given twice (each value is one case)")
        sweep.append((name, s[1:]))
    npoint = 1
    for _, v in sweep:
        npoint *= len(v)
    total = npoint * a.seeds
    if total > a.max_members and not a.yes:
        msg = (f"the plan has {total} members ({npoint} sweep points x {a.seeds} seeds), more than "
               f"--max-members {a.max_members}")
        if sys.stdin.isatty():
            sys.stderr.write(msg + ". Plan them all? [y/N] ")
            sys.stderr.flush()
            if sys.stdin.readline().strip().lower() not in ("y", "yes"):
                die("not planned: " + msg)
        else:
            die(msg + ": pass --yes, or raise --max-members, or plan fewer")
    case = {"options": opts, "sweep": [[n, v] for n, v in sweep], "ranks": a.ranks, "seed0": a.seed0,
            "cwd": os.getcwd()}
    old = None
    if os.path.exists(os.path.join(d, "manifest.json")):
        old = load(d)
        if old["case"] != case:
            diff = [k for k in case if old["case"].get(k) != case[k]]
            die(f"{d} holds the members of another case (its {' and '.join(diff)} differ"
                f"{'s' if len(diff) == 1 else ''}: "
                f"{json.dumps({k: old['case'].get(k) for k in diff})}): choose another folder; "
                f"nothing in {d} was changed")
    elif os.path.exists(d) and not os.path.isdir(d):
        die(f"{d} is a file, not a folder: choose a new or an empty folder for the ensemble")
    elif os.path.isdir(d) and os.listdir(d):
        die(f"{d} is not empty and holds no ensemble manifest: choose a new or an empty folder")
    version = check_case(opts, sweep, a.ranks)
    os.makedirs(d, exist_ok=True)
    m = old or {"format": FORMAT, "case": case, "members": []}
    m["program"] = {"path": os.path.abspath(throng()), "version": version}
    have = {(json.dumps(x["set"]), x["seed"]) for x in m["members"]}
    added = 0
    for point in itertools.product(*[[(n, v) for v in vals] for n, vals in sweep]) if sweep else [()]:
        for k in range(a.seeds):
            seed = a.seed0 + k
            st = {n: v for n, v in point}
            if (json.dumps(st), seed) in have:
                continue
            i = len(m["members"])
            out = os.path.join(os.path.abspath(d), "members", f"{i:04d}", "run")
            m["members"].append({"index": i, "seed": seed, "set": st,
                                 "argv": member_argv(opts, point, seed, out)})
            added += 1
    save(d, m)
    write_table(d, m)
    print(f"ensemble: {d}: {len(m['members'])} members planned ({added} new), {npoint} sweep point"
          f"{'s' if npoint > 1 else ''}, {a.ranks} rank{'s' if a.ranks > 1 else ''} each; {version}")
    return m


# ---- members: state, one run --------------------------------------------------------

def mdir(d, i):
    return os.path.join(d, "members", f"{i:04d}")


def state(d, i):
    p = mdir(d, i)
    if os.path.isfile(os.path.join(p, "done.json")):
        return "done"
    if os.path.isfile(os.path.join(p, "failed.json")):
        return "failed"
    if os.path.isfile(os.path.join(p, "started")):
        return "started"  # running now, or killed (a time limit, a node lost)
    return "pending"


def run_member(d, m, i, launch, timeout=None):
    """Run member i to completion (blocking); returns its state."""
    x = m["members"][i]
    p = mdir(d, i)
    os.makedirs(p, exist_ok=True)
    if state(d, i) == "done":
        return "done"  # never rerun
    # a failed or killed attempt: keep its log, drop its partial outputs
    if os.path.exists(os.path.join(p, "log")):
        k = 1
        while os.path.exists(os.path.join(p, f"log.{k}")):
            k += 1
        os.replace(os.path.join(p, "log"), os.path.join(p, f"log.{k}"))
    for f in os.listdir(p):
        if f.startswith("run.") or f in ("failed.json", "started"):
            os.remove(os.path.join(p, f))
    with open(os.path.join(p, "started"), "w") as f:
        f.write(f"{datetime.datetime.now(datetime.timezone.utc).isoformat()} {socket.gethostname()} "
                f"{os.environ.get('SLURM_JOB_ID', '')}\n")
    cmd = launch + [m["program"]["path"]] + x["argv"]
    t0 = time.time()
    with open(os.path.join(p, "log"), "w") as log:
        log.write("# " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        log.flush()
        try:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=m["case"]["cwd"],
                                timeout=timeout).returncode
            why = None if rc == 0 else f"exit status {rc}"
        except subprocess.TimeoutExpired:
            rc, why = -1, f"timed out after {timeout} s (--timeout)"
    wall = time.time() - t0
    text = open(os.path.join(p, "log")).read()
    dg = re.findall(r"^state-digest: ([0-9a-f]+)$", text, re.M)
    if rc == 0 and not dg:
        rc, why = -1, "no state-digest line in the log"
    if rc != 0:
        errs = [l for l in text.splitlines() if "error" in l.lower()][:3] or text.splitlines()[-3:]
        json.dump({"status": rc, "reason": why, "log": errs, "wall": wall}, open(os.path.join(p, "failed.json"), "w"))
        return "failed"
    ver = re.findall(r"^summary: program (.*)$", text, re.M)
    json.dump({"digest": dg[-1], "wall": wall, "version": ver[-1] if ver else None, "host": socket.gethostname()},
              open(os.path.join(p, "done.json"), "w"))
    os.remove(os.path.join(p, "started"))
    return "done"


def local_launch(ranks):
    if ranks <= 1:
        return []
    return shlex.split(os.environ.get("MPIEXEC", "mpiexec")) + ["-n", str(ranks)]


def collect(d, m):
    """Digests of the done members into the manifest; the table of members."""
    for x in m["members"]:
        f = os.path.join(mdir(d, x["index"]), "done.json")
        if os.path.isfile(f):
            j = json.load(open(f))
            if "digest" not in x:  # the manifest's record, once written, is the reference
                x["digest"], x["version"] = j["digest"], j.get("version")
            elif j["digest"] != x["digest"]:  # rerun (after its results were removed): not the same run
                x["mismatch"] = j["digest"]
            else:
                x.pop("mismatch", None)
    save(d, m)
    write_table(d, m)


def write_table(d, m):
    names = [n for n, _ in m["case"]["sweep"]]
    with open(os.path.join(d, "manifest.csv"), "w") as f:
        f.write(",".join(["index", "seed"] + names + ["state", "digest"]) + "\n")
        for x in m["members"]:
            f.write(",".join([str(x["index"]), str(x["seed"])] + [x["set"][n] for n in names] +
                             [state(d, x["index"]), x.get("digest", "")]) + "\n")


def counts(d, m):
    c = {"done": 0, "failed": 0, "started": 0, "pending": 0}
    for x in m["members"]:
        c[state(d, x["index"])] += 1
    return c


def status(d, quiet=False):
    m = load(d)
    collect(d, m)
    c = counts(d, m)
    print(f"ensemble: {d}: {len(m['members'])} members: {c['done']} done, {c['failed']} failed, "
          f"{c['started']} started and not finished (running, or killed), {c['pending']} pending")
    if not quiet:
        for x in m["members"]:
            s = state(d, x["index"])
            if s == "failed":
                j = json.load(open(os.path.join(mdir(d, x["index"]), "failed.json")))
                print(f"  member {x['index']} (seed {x['seed']}{fmt_set(x)}): failed, {j['reason']}: "
                      f"{' / '.join(j['log'])}")
            elif s == "done" and x.get("mismatch"):
                print(f"  member {x['index']} (seed {x['seed']}{fmt_set(x)}): rerun to digest {x['mismatch']}, "
                      f"the manifest has {x['digest']}: not the same run (another build or platform?)")
            elif s == "started":
                print(f"  member {x['index']} (seed {x['seed']}{fmt_set(x)}): started, not finished")
        if c["failed"] or c["started"] or c["pending"]:
            print(f"  to run the rest: bash jobs/ensemble.sh run {d}   (or submit {d}); done members are kept")
    return c


def fmt_set(x):
    return "".join(f", -{n} {v}" for n, v in x["set"].items())


# ---- commands ------------------------------------------------------------------------

def split_plan(argv, flags_with_value, flags):
    """Separate this command's own options from plan options (anything else)."""
    own, rest = {}, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest += argv[i:]
            break
        if a in flags_with_value:
            if i + 1 >= len(argv):
                die(f"{a} needs a value")
            own[a] = argv[i + 1]
            i += 2
            continue
        if a in flags:
            own[a] = True
            i += 1
            continue
        rest.append(a)
        i += 1
    return own, rest


def number(own, flag, kind, default, lo=None):
    """The value of a command's option flag as a number of its kind, or one clear error."""
    if flag not in own:
        return default
    try:
        v = kind(own[flag])
    except ValueError:
        die(f"{flag} {own[flag]}: not {'an integer' if kind is int else 'a number'}")
    if lo is not None and not v >= lo:
        die(f"{flag} {own[flag]}: must be {'>= ' + str(lo) if kind is int else '> 0'}")
    return v


def cmd_run(d, argv):
    own, rest = split_plan(argv, {"--jobs", "--timeout", "--only"}, {"--no-report"})
    m = plan(d, rest) if rest else load(d)
    ranks = m["case"]["ranks"]
    jobs = number(own, "--jobs", int, max(1, (os.cpu_count() or 1) // ranks), lo=1)
    timeout = number(own, "--timeout", float, None, lo=1e-9)
    todo = [x["index"] for x in m["members"] if state(d, x["index"]) != "done"]
    if "--only" in own:
        try:
            want = {int(s) for s in own["--only"].split(",")}
        except ValueError:
            die(f"--only {own['--only']}: give member indices, comma-separated (e.g. --only 0,3,7)")
        bad = sorted(w for w in want if w < 0 or w >= len(m["members"]))
        if bad:
            die(f"--only: no member {bad[0]} (members 0 to {len(m['members']) - 1})")
        todo = [i for i in todo if i in want]
    print(f"ensemble: running {len(todo)} member{'s' if len(todo) != 1 else ''} here, {jobs} at a time "
          f"({len(m['members']) - len(todo)} already done)")
    sys.stdout.flush()
    t0 = time.time()
    # members side by side: each in its own thread of this process (the work is in throng)
    import concurrent.futures as cf
    failed = 0
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        fut = {ex.submit(run_member, d, m, i, local_launch(ranks), timeout): i for i in todo}
        for f in cf.as_completed(fut):
            i = fut[f]
            s = f.result()
            failed += s != "done"
            print(f"ensemble: member {i} {s} ({time.time() - t0:.0f} s)")
            sys.stdout.flush()
    print(f"ensemble: {len(todo)} members in {time.time() - t0:.1f} s wall")
    c = status(d)
    if not own.get("--no-report") and c["done"]:
        report(d, [])
    return 1 if failed else 0


def cmd_submit(d, argv):
    own, rest = split_plan(argv, {"--per-task", "--sbatch"}, set())
    m = plan(d, rest) if rest else load(d)
    k = number(own, "--per-task", int, 1, lo=1)
    todo = [x["index"] for x in m["members"] if state(d, x["index"]) != "done"]
    if not todo:
        print(f"ensemble: every member of {d} is done; nothing to submit")
        return 0
    if not shutil.which("sbatch"):
        die("sbatch not found: submit needs Slurm (run the ensemble here with: bash jobs/ensemble.sh run DIR)")
    sd = os.path.join(d, "slurm")
    os.makedirs(sd, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%dT%H%M%S")
    lst = os.path.abspath(os.path.join(sd, f"members-{stamp}.txt"))
    open(lst, "w").write("\n".join(str(i) for i in todo) + "\n")
    ntask = (len(todo) + k - 1) // k
    extra = shlex.split(own.get("--sbatch", ""))
    ranks = m["case"]["ranks"]
    os.environ["THRONG_ROOT"] = ROOT  # exported to the tasks (sbatch's default --export=ALL)
    args = ["sbatch", "--parsable", f"--array=0-{ntask - 1}", f"--ntasks={ranks}",
            f"--output={os.path.abspath(sd)}/task-%A_%a.out"] + extra + \
        [os.path.join(ROOT, "jobs", "ensemble.sbatch"), os.path.abspath(d), lst, str(k)]
    r = subprocess.run(args, capture_output=True, text=True, cwd=m["case"]["cwd"])
    if r.returncode != 0:
        die(f"sbatch refused the array: {r.stderr.strip()}")
    job = r.stdout.strip().split(";")[0]
    rep = subprocess.run(["sbatch", "--parsable", f"--dependency=afterany:{job}", "--ntasks=1",
                          f"--output={os.path.abspath(sd)}/report-%j.out", "--job-name=throng-ens-report",
                          "--wrap", f"/usr/bin/python3 {os.path.join(ROOT, 'jobs', 'ensemble.py')} report "
                          f"{shlex.quote(os.path.abspath(d))}"] + [a for a in extra if a.startswith(("--account",
                                                                                                  "--partition", "-A", "-p"))],
                         capture_output=True, text=True, cwd=m["case"]["cwd"])
    rjob = rep.stdout.strip().split(";")[0] if rep.returncode == 0 else None
    print(f"ensemble: submitted job array {job} ({ntask} task{'s' if ntask > 1 else ''} of up to {k} member"
          f"{'s' if k > 1 else ''}, {ranks} rank{'s' if ranks > 1 else ''} each) for {len(todo)} members"
          + (f"; the report follows as job {rjob}" if rjob else f"; the report job was refused: {rep.stderr.strip()}"))
    print(f"ensemble: follow it with: bash jobs/ensemble.sh status {d}")
    return 0


def cmd_task(d, argv):
    """One Slurm array task (jobs/ensemble.sbatch): its share of the member list."""
    lst, k = argv[0], int(argv[1])
    m = load(d)
    todo = [int(s) for s in open(lst).read().split()]
    t = int(os.environ.get("SLURM_ARRAY_TASK_ID", "0"))
    mine = todo[t * k:(t + 1) * k]
    ranks = m["case"]["ranks"]
    launch = shlex.split(os.environ.get("LAUNCH", "srun --mpi=pmix")) + ["-n", str(ranks)]
    side = max(1, int(os.environ.get("SLURM_NTASKS", ranks)) // ranks)  # members side by side
    if side > 1:
        launch += ["--exact"]
    import concurrent.futures as cf
    bad = 0
    with cf.ThreadPoolExecutor(max_workers=side) as ex:
        for i, s in zip(mine, ex.map(lambda i: run_member(d, m, i, launch), mine)):
            print(f"ensemble task {t}: member {i} {s}")
            bad += s != "done"
    return 1 if bad else 0


def cmd_verify(d, argv):
    m = load(d)
    collect(d, m)
    done = [x for x in m["members"] if "digest" in x]
    if argv:
        try:
            want = [int(a) for a in argv]
        except ValueError:
            die(f"verify: give member indices (0 to {len(m['members']) - 1}), not {' '.join(argv)}")
        for w in want:
            if not 0 <= w < len(m["members"]):
                die(f"verify: no member {w} (members 0 to {len(m['members']) - 1})")
            if not any(x["index"] == w for x in done):
                die(f"verify: member {w} is not done: it has no digest to compare")
        done = [x for x in done if x["index"] in want]
    else:  # the first done member of each sweep point
        seen, first = set(), []
        for x in done:
            key = json.dumps(x["set"])
            if key not in seen:
                seen.add(key)
                first.append(x)
        done = first
    if not done:
        die("verify: no member is done yet")
    bad = 0
    for x in done:
        i = x["index"]
        vd = os.path.join(d, "verify", f"{i:04d}")
        shutil.rmtree(vd, ignore_errors=True)
        os.makedirs(vd)
        argv_v = list(x["argv"])
        argv_v[argv_v.index("-output") + 1] = os.path.join(os.path.abspath(vd), "run")
        cmd = local_launch(m["case"]["ranks"]) + [throng()] + argv_v
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=m["case"]["cwd"])
        dg = re.findall(r"^state-digest: ([0-9a-f]+)$", r.stdout, re.M)
        ver = re.findall(r"^summary: program (.*)$", r.stdout, re.M)
        if r.returncode != 0 or not dg:
            print(f"verify: member {i}: the rerun failed (exit status {r.returncode})", file=sys.stderr)
            bad += 1
        elif dg[-1] != x["digest"]:
            print(f"verify: member {i} (seed {x['seed']}{fmt_set(x)}): digest {dg[-1]} on rerun, "
                  f"{x['digest']} in the manifest: not the same run (manifest: {x.get('version')}; now: "
                  f"{ver[-1] if ver else '?'}); the member's results are kept as they were", file=sys.stderr)
            bad += 1
        else:
            print(f"verify: member {i}: digest {dg[-1]}: the same run")
            shutil.rmtree(vd)
    return 1 if bad else 0


def report(d, argv):
    r = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "postproc", "ensemble.py"), d] + argv)
    return r.returncode


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help", "help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    cmd, d, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    if d in ("-h", "--help") or "-h" in argv[:1] or "--help" in argv[:1]:
        print(__doc__)
        return 0
    try:
        if cmd == "plan":
            plan(d, argv)
            return 0
        if cmd == "run":
            return cmd_run(d, argv)
        if cmd == "submit":
            return cmd_submit(d, argv)
        if cmd == "task":
            return cmd_task(d, argv)
        if cmd == "status":
            c = status(d)
            return 0 if c["done"] == sum(c.values()) else 3
        if cmd == "verify":
            return cmd_verify(d, argv)
        if cmd == "report":
            load(d)
            return report(d, argv)
        die(f"unknown command '{cmd}': plan, run, submit, status, verify or report (--help)")
    except Refused as e:
        print(f"ensemble: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
