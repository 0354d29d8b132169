# Two commands do everything (see README): `make verify` (main job) and `make test` (the tests).
# `make robust` runs the longer robustness runs (every claim at the full profile, the quick profile at more seeds);
# `make test-latest` runs the tests against the newest numpy/scipy/cvxpy/highspy instead of the locked ones.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PROFILE ?= quick
JOBS ?= 2
SEEDS ?= 3
PYV := $(shell $(PYTHON) -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')
LOCK := requirements/lock-py$(PYV).txt
TORCH := torch==2.13.0
LATEST ?= .venv-latest

.PHONY: verify test robust test-latest install lock clean mutate

# Installs from the lock file of this Python (resolved, hashed versions) when there is one, else from the ranges in
# pyproject.toml. Torch is installed on its own, pinned: a CPU wheel where one is at hand (the lock leaves out the
# CUDA packages that a looser install pulls).
$(BIN)/verify: pyproject.toml $(wildcard $(LOCK))
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	if [ -f $(LOCK) ]; then \
	  $(BIN)/pip install --quiet --require-hashes --no-deps -r $(LOCK) && \
	  $(BIN)/pip install --quiet --no-deps '$(TORCH)' && \
	  $(BIN)/pip install --quiet --no-deps --no-build-isolation -e . && \
	  $(BIN)/pip check; \
	else \
	  $(BIN)/pip install --quiet -e '.[test]'; \
	fi
	touch $(BIN)/verify

install: $(BIN)/verify

verify: install
	$(BIN)/verify run --profile $(PROFILE) --jobs $(JOBS) --json out/results.json --report out/report.pdf
	$(BIN)/python -m verify.audit out/results.json
	$(BIN)/python -m reports.lint out/report.pdf out/results.json

test: install
	CI=$${CI:-1} $(BIN)/python -m pytest -n $(JOBS) -q

robust: install
	$(BIN)/verify run --profile full --jobs $(JOBS) --json out/results-full.json
	$(BIN)/python -m verify.audit out/results-full.json
	$(BIN)/verify run --profile quick --seed 1 --seeds $(SEEDS) --jobs $(JOBS) --json out/results-seeds.json

# Mutation testing (docs/mutation.md): installs the `mutate` extra (cosmic-ray, coverage.py), then mutates numerics/
# and the claim modules and runs, per mutant, the tests and claims that execute its line. About 26 CPU-hours for all of
# it: narrow it with MUTATE_ARGS, e.g. MUTATE_ARGS='--modules numerics.kkt --sample 100'.
MUTATE_ARGS ?=
mutate: install
	$(BIN)/pip install --quiet --no-build-isolation -e '.[mutate]'
	$(BIN)/verify bench teeth --jobs $(JOBS) --json out/mutation.json --survivors $(MUTATE_ARGS)

test-latest:
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/pip install --quiet --upgrade pip
	$(LATEST)/bin/pip install --quiet --upgrade -e '.[test]' numpy scipy cvxpy highspy
	CI=$${CI:-1} $(LATEST)/bin/python -m pytest -n $(JOBS) -q

# Regenerate the lock files (needs uv: pip install uv). CUDA packages and torch itself are left out on purpose.
lock:
	for v in 3.11 3.12; do \
	  uv pip compile pyproject.toml --extra test --generate-hashes --python-version $$v \
	    --python-platform x86_64-manylinux_2_28 --no-emit-package torch --no-emit-package ibverify \
	    $$(for p in triton cuda-bindings cuda-pathfinder cuda-toolkit nvidia-cublas nvidia-cuda-cupti \
	        nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-cudnn-cu13 nvidia-cufft nvidia-cufile nvidia-curand \
	        nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13 nvidia-nccl-cu13 nvidia-nvjitlink \
	        nvidia-nvshmem-cu13 nvidia-nvtx; do echo --no-emit-package $$p; done) \
	    --custom-compile-command "make lock" -o requirements/lock-py$$(echo $$v | tr -d .).txt; \
	done

clean:
	rm -rf $(VENV) $(LATEST) .verify out
