#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Long crash run (make test-long): 200 SIGKILL points (01_crash.sh).
RUNS=${RUNS:-200} exec bash "$(dirname "$0")/01_crash.sh"
