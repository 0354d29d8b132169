# Two commands do everything (see README): `make verify` (main job) and `make test` (the tests).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PROFILE ?= quick
JOBS ?= 2

.PHONY: verify test install clean

$(BIN)/verify: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/verify

install: $(BIN)/verify

verify: install
	$(BIN)/verify run --profile $(PROFILE) --jobs $(JOBS) --json out/results.json --report out/report.pdf

test: install
	CI=$${CI:-1} $(BIN)/python -m pytest -n $(JOBS) -q

clean:
	rm -rf $(VENV) .verify out
