# Two set-up commands a new user needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

# The oldest inspect-ai of the tested range (itemeval/version.py), in a venv of its own:
# installed first, then itemeval beside it, which must keep it.
OLDEST := .venv-oldest
INSPECT_OLDEST := $(shell sed -n 's/^INSPECT_OLDEST = "\(.*\)"/\1/p' itemeval/version.py)
OLDEST_STAMP := $(OLDEST)/.installed-$(INSPECT_OLDEST)-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test test-oldest bench install clean

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
	$(BIN)/itemeval generate configs/agents.yaml
	$(BIN)/itemeval grade configs/agents.yaml
	COLUMNS=80 $(BIN)/itemeval results configs/agents.yaml --compare all --by solver
	@echo "itemeval is installed in .venv: run '. .venv/bin/activate' to call it as 'itemeval' (README: A short tour)"

test: $(STAMP)
	$(BIN)/ruff check itemeval tests benchmarks
	$(BIN)/ruff format --check itemeval tests benchmarks
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q tests

$(OLDEST_STAMP): pyproject.toml itemeval/version.py
	$(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST)/bin/python -m pip install --quiet 'inspect-ai==$(INSPECT_OLDEST)'
	$(OLDEST)/bin/python -m pip install --quiet -e '.[test,delta]'
	@$(OLDEST)/bin/python -c "from importlib.metadata import version as v; \
		assert v('inspect-ai') == '$(INSPECT_OLDEST)', 'installing itemeval replaced inspect-ai ' + v('inspect-ai')"
	rm -f $(OLDEST)/.installed-* && touch $@

# every test that touches inspect-ai (marked `inspect`, tests/conftest.py), on the oldest
# inspect-ai of the range; `make test` runs the whole suite on the newest
test-oldest: $(OLDEST_STAMP)
	$(OLDEST)/bin/itemeval --version
	$(OLDEST)/bin/python -m pytest -p no:cacheprovider -n 2 --dist loadgroup -q -m inspect tests

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) $(OLDEST) studies/*/
