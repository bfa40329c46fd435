#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A worker whose hello answer is wrong in one chosen way, for tests/cli/reliability_surfaces.sh.

    hello_worker.py MODE

It answers the hello and nothing else (every way is bad input, so scancheck never sends a run; the case
sent to "constrained" is outside its constraints, also bad input):
    not_json            a line that is not JSON
    not_object          a JSON array
    protocol_2          protocol 2
    bad_provider        provider "Bad Name"
    duplicate_backends  the same backend declared twice
    unknown_constraint  a constraint scancheck does not know ("max_heads")
    no_backends         an empty backend list
    bad_architecture    a backend of architecture "lstm"
    bad_variant         a variant with a '/'
    constrained         a valid hello whose backend takes L <= 4 and no h0 (for a case outside them)
    runtime_number      a "runtime" that is a number, not a string
    provenance_sha      a "provenance" with a field scancheck does not know ("sha")
    silent_exit         exits without answering
    stderr_then_exit    writes two lines to stderr, then exits without answering
"""

import json
import sys

MODE = sys.argv[1]
BACKEND = {"variant": "plain", "architecture": "scan", "io_dtype": "float32"}


def hello():
    backends = [dict(BACKEND)]
    provider = "hello"
    protocol = 1
    if MODE == "protocol_2":
        protocol = 2
    elif MODE == "bad_provider":
        provider = "Bad Name"
    elif MODE == "duplicate_backends":
        backends.append(dict(BACKEND))
    elif MODE == "unknown_constraint":
        backends[0]["constraints"] = {"max_heads": 4}
    elif MODE == "no_backends":
        backends = []
    elif MODE == "bad_architecture":
        backends[0]["architecture"] = "lstm"
    elif MODE == "bad_variant":
        backends[0]["variant"] = "a/b"
    elif MODE == "constrained":
        backends[0]["constraints"] = {"max_length": 4, "h0": False}
    answer = {"protocol": protocol, "provider": provider, "backends": backends}
    if MODE == "runtime_number":
        answer["runtime"] = 3.11
    elif MODE == "provenance_sha":
        answer["provenance"] = {"package": "mykernels", "sha": "0a1b2c3"}
    return answer


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") != "hello":
            return
        if MODE == "silent_exit":
            return
        if MODE == "stderr_then_exit":
            print("worker: cannot import my_kernel", file=sys.stderr)
            print("worker: giving up", file=sys.stderr, flush=True)
            return
        if MODE == "not_json":
            print("hello, scancheck!", flush=True)
        elif MODE == "not_object":
            print("[1, 2]", flush=True)
        else:
            print(json.dumps(hello()), flush=True)


if __name__ == "__main__":
    main()
