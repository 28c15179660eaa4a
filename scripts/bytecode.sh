# Sourced by scripts/test-tiers and scripts/test-fast (`. scripts/bytecode.sh`), not run.
# Every test starts real server and CLI processes (hundreds of them), and every worker
# imports every test module when it collects. Where bytecode is not written
# (PYTHONDONTWRITEBYTECODE=1, as in some shells and CI images) each would compile every
# module again (about 0.25 s of CPU per server, 3.5 s per worker's collection, pytest's
# assertion rewriting included): compile them once here, and let the tests write theirs.
.venv/bin/python -m compileall -q server bench tests >/dev/null
unset PYTHONDONTWRITEBYTECODE
