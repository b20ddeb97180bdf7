# Entry points: `make run` opens the debugger on a sample flow, `make test` runs the whole suite,
# `make lint` runs every static check CI runs (ruff, mypy, import contracts, declared dependencies).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
FLOW ?= sample_flows/validate.json

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# an editable install has no .pyc until a run writes them (never, with PYTHONDONTWRITEBYTECODE):
	# each start would compile every module from source, ~0.2 s of a first paint
	$(BIN)/python -m compileall -q tftui
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tftui $(FLOW)

# The suite runs in TEST_WORKERS processes (pytest-xdist; CI has 2 cores). TEST_WORKERS=0 runs it
# in this one process.
TEST_WORKERS ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

# The whole package is type-checked (strict for lang, flow, scoring, engine, trace: pyproject.toml).
MYPY_PATHS ?= tftui
MYPY_FLAGS ?=

lint: $(STAMP)
	$(BIN)/ruff check tftui tests benchmarks
	$(BIN)/mypy $(MYPY_FLAGS) $(MYPY_PATHS)
	$(BIN)/lint-imports
	$(BIN)/deptry .

bench: $(STAMP)
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .import_linter_cache
