# Two set-up commands a new user needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test bench install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,ray,delta,view]'
	@# the view's browser test drives Debian's chromium; it is skipped where that cannot be installed
	@command -v chromium >/dev/null || ! command -v apt-get >/dev/null || [ "$$(id -u)" != 0 ] || \
		(apt-get install -y -qq chromium >/dev/null 2>&1 || \
		(apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1) || true)
	rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/itemeval estimate configs/demo.yaml
	$(BIN)/itemeval generate configs/demo.yaml
	$(BIN)/itemeval grade configs/demo.yaml
	$(BIN)/itemeval status configs/demo.yaml
	COLUMNS=80 $(BIN)/itemeval results configs/demo.yaml --by model --by criterion
	$(BIN)/itemeval report configs/demo.yaml
	$(BIN)/itemeval generate configs/claims.yaml
	$(BIN)/itemeval grade configs/claims.yaml
	$(BIN)/itemeval status configs/claims.yaml
	COLUMNS=80 $(BIN)/itemeval results configs/claims.yaml
	@echo "itemeval is installed in .venv: run '. .venv/bin/activate' to call it as 'itemeval' (README: A short tour)"

test: $(STAMP)
	$(BIN)/ruff check itemeval tests benchmarks
	$(BIN)/ruff format --check itemeval tests benchmarks
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q tests

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) studies/*/
