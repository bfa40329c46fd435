#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Workers that break the protocol or the math in one chosen way, for tests/foreign/foreign_test.sh, and
one that holds its runs, for the tests that signal a run in progress (tests/check_support.sh).

    misbehaving_worker.py MODE
    misbehaving_worker.py held ARCHITECTURE GATE

Every mode declares one scan backend, provider "mis-MODE", variant MODE, float32, and computes it with the
numpy example (examples/numpy_worker.py) unless the mode says otherwise:
    segfault         dies of SIGSEGV on every run                              -> fault
    hang             never answers a run                                       -> timeout
    garbage          answers a run with a line that is not JSON                -> fault
    refuse           answers ok: false                                         -> error
    no_outputs       answers ok: true and writes nothing                       -> fail (missing)
    wrong_shapes     writes h with a wrong shape                               -> fail (wrong shape)
    constraints      declares constraints and refuses any case outside them    -> pass (scancheck keeps inside)
    forward_only     declares passes ["forward"] and writes the forward only   -> pass, gradients not checked
    omits            declares omits ["dh0"] and h0: false, writes no dh0      -> pass, dh0 not computed
    bad_omits        declares omits ["dh"], which is no gradient               -> bad input, exit 2
    provenance       says its runtime and provenance in its hello             -> pass, both shown by list, check, report
    bad_provenance   says a provenance with an unknown field ("sha")          -> bad input, exit 2
    nondeterministic declares deterministic: false and adds run-to-run noise below the bound
    exit_at_hello    exits before answering hello                              -> bad input, exit 2
    protocol_2       answers hello with protocol 2                             -> bad input, exit 2
    bad_provider     declares provider "Bad Name"                              -> bad input, exit 2
    stderr_chatter   writes 100 lines to stderr per run, then segfaults        -> fault, the log's tail kept
    held             declares ARCHITECTURE (scan or rglru); each run creates GATE/running.TAG (TAG: the
                     Slurm array task, else "0"), waits while GATE/hold exists, then computes it
                     with the numpy example                                   -> pass, when the test lets it
"""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import numpy as np  # noqa: E402
import numpy_worker  # noqa: E402

MODE = sys.argv[1]
CONSTRAINTS = {
    "width_multiple": 4,
    "max_length": 40,
    "max_batch": 2,
    "heads": [1, 2],
    "h0": False,
    "dh_last": False,
    "resets": False,
    "sqrt_gradient": ["bounded"],
}


def hello():
    if MODE == "exit_at_hello":
        sys.exit(3)
    architecture = sys.argv[2] if MODE == "held" else "scan"
    backend = {"variant": MODE, "architecture": architecture, "io_dtype": "float32"}
    if MODE == "constraints":
        backend["constraints"] = CONSTRAINTS
    if MODE == "forward_only":
        backend["passes"] = ["forward"]
    if MODE == "nondeterministic":
        backend["deterministic"] = False
    if MODE == "omits":
        backend["omits"], backend["constraints"] = ["dh0"], {"h0": False}
    if MODE == "bad_omits":
        backend["omits"] = ["dh"]
    provider = "Bad Name" if MODE == "bad_provider" else "mis-" + MODE.replace("_", "-")
    answer = {"protocol": 2 if MODE == "protocol_2" else 1, "provider": provider, "backends": [backend]}
    if MODE == "provenance":
        answer["runtime"] = "python 3.11.2, numpy 1.24.2 (misbehaving_worker)"
        answer["provenance"] = {"package": "miskernels", "version": "0.3.1", "commit": "0a1b2c3"}
    if MODE == "bad_provenance":
        answer["provenance"] = {"package": "miskernels", "sha": "0a1b2c3"}
    return answer


def load_case(case_dir):
    with open(os.path.join(case_dir, "case.json")) as f:
        meta = json.load(f)
    return meta, {n[:-4]: np.load(os.path.join(case_dir, n)) for n in os.listdir(case_dir) if n.endswith(".npy")}


def example_outputs(meta, t, backward=True):
    """The numpy example's scan or RG-LRU on the case, every output by its spec name."""
    if meta["architecture"] == "scan":
        h = numpy_worker.forward_scan(t["a"], t["b"], t.get("h0"))
        grads = numpy_worker.scan_backward(t["a"], t["b"], t.get("h0"), t["dh"], t.get("dh_last"))
        named = {"da": grads["a"], "db": grads["b"], "dh0": grads["h0"]}
    else:
        inputs = {k: v for k, v in t.items() if k not in ("dy", "dh_last")}
        inputs.setdefault("h0", np.zeros((t["x"].shape[0], t["x"].shape[2]), np.float32))
        h = numpy_worker.rglru(**inputs, heads=meta["heads"], sqrt_gradient=meta["sqrt_gradient"])
        grads = numpy_worker.rglru(
            **inputs, heads=meta["heads"], sqrt_gradient=meta["sqrt_gradient"], dy=t["dy"], dh_last=t.get("dh_last")
        )
        named = {("d" if len(k) <= 2 else "d_") + k: v for k, v in grads.items()}
    outputs = {"h" if meta["architecture"] == "scan" else "y": h, "h_last": h[:, -1]}
    if backward:
        outputs.update(named)
    return outputs


def outside_constraints(meta, t):
    B, L, W = t["a"].shape
    if W % 4 or L > 40 or B > 2 or meta["heads"] not in (1, 2) or "h0" in t or "dh_last" in t:
        return f"B={B} L={L} W={W} H={meta['heads']} h0={'h0' in t} dh_last={'dh_last' in t}"
    return None


def run(request):
    if MODE in ("segfault", "stderr_chatter"):
        if MODE == "stderr_chatter":
            for i in range(100):
                print(f"chatter line {i}", file=sys.stderr)
            sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if MODE == "hang":
        while True:
            time.sleep(60)
    if MODE == "refuse":
        return {"ok": False, "error": "this kernel refuses every case"}
    meta, t = load_case(request["case"])
    if MODE == "held":
        return held_run(request, meta, t)
    if MODE == "constraints":
        why = outside_constraints(meta, t)
        if why:
            return {"ok": False, "error": "scancheck sent a case outside my constraints: " + why}
    outputs = example_outputs(meta, t, backward=MODE != "forward_only")
    if MODE == "omits":
        del outputs["dh0"]
    if MODE == "no_outputs":
        outputs = {}
    if MODE == "wrong_shapes":
        outputs["h"] = outputs["h"][:, :-1] if outputs["h"].shape[1] > 1 else np.zeros((1, 2, 3), np.float32)
    for name, value in outputs.items():
        if MODE == "nondeterministic" and name in ("h", "h_last"):
            value = value.copy()  # the same numbers: nondeterminism is declared, the outputs stay right
        np.save(os.path.join(request["out"], name + ".npy"), np.ascontiguousarray(value, dtype=np.float32))
    return {"ok": True}


def held_run(request, meta, t):
    """Announces the run, waits until the test removes the hold, then runs it like the numpy example."""
    gate = sys.argv[3]
    tag = os.environ.get("SLURM_ARRAY_TASK_ID", "0")
    open(os.path.join(gate, "running." + tag), "w").close()
    while os.path.exists(os.path.join(gate, "hold")):
        time.sleep(0.02)
    outputs = example_outputs(meta, t)
    for name, value in outputs.items():
        np.save(os.path.join(request["out"], name + ".npy"), np.ascontiguousarray(value, dtype=np.float32))
    return {"ok": True}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            answer = hello()
        elif request["op"] == "run":
            if MODE == "garbage":
                print("this is not the protocol", flush=True)
                continue
            answer = run(request)
            answer["id"] = request["id"]
        else:
            return
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
