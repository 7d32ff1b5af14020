#!/usr/bin/env bash
# Runs on the GPU host (no Rust there): the device probe test and the CLI's backend choice,
# from binaries built here and carried in .gpu/ (see .gitignore). Logs go to $OUT.
set -u
out="${OUT:-/tmp/glp-out}"
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv
  GLP_REQUIRE_GPU=1 .gpu/runtime-tests device:: --nocapture; echo "probe test exit=$?"
  .gpu/glp lp --backend gpu; echo "backend gpu exit=$?"
  .gpu/glp lp --backend auto; echo "backend auto exit=$?"
} 2>&1 | tee "$out/gpu-probe.log"
