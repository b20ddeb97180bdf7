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
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tftui $(FLOW)

test: $(STAMP)
	$(BIN)/python -m pytest

# Until mypy is clean on tftui/tui too, the rest of the package is type-checked (imports it
# follows, the TUI's included, are checked silently); the goal is `mypy tftui`.
MYPY_PATHS ?= tftui/*.py tftui/agents tftui/commands tftui/engine tftui/flow tftui/lang tftui/present \
	tftui/scoring tftui/trace
MYPY_FLAGS ?= --follow-imports=silent

lint: $(STAMP)
	$(BIN)/ruff check tftui tests benchmarks
	$(BIN)/mypy $(MYPY_FLAGS) $(MYPY_PATHS)
	$(BIN)/lint-imports
	$(BIN)/deptry .

bench: $(STAMP)
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .import_linter_cache
