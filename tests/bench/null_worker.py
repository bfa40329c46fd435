#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The worker of worker_bench: computes nothing. Its run links the outputs prepared in OUTPUTS_DIR into
`out` and answers, so what worker_bench times is scancheck's side of the protocol (writing the case,
the messages, reading the outputs) and not a kernel.  Usage: null_worker.py OUTPUTS_DIR ARCHITECTURE"""

import json
import os
import sys

outputs, architecture = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        backend = {"variant": "null", "architecture": architecture, "io_dtype": "float32"}
        answer = {"protocol": 1, "provider": "null", "backends": [backend]}
    elif request["op"] == "run":
        for name in os.listdir(outputs):
            os.symlink(os.path.join(outputs, name), os.path.join(request["out"], name))
        answer = {"id": request["id"], "ok": True}
    else:
        break
    print(json.dumps(answer), flush=True)
