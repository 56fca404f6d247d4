# Two commands do everything on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.lock pyproject.toml | sha1sum | cut -c1-12)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup run test lint typecheck unit test-bytecode bounds system-deps bench screenshots clean

## Python's bytecode is written by the processes that import a module, the first time: the environment may
## set PYTHONDONTWRITEBYTECODE, and then every process compiles numba's, the server's and our sources anew
## (seconds before an engine's first answer). Compiling every installed module at install instead
## (`uv pip install --compile-bytecode`, 10,600 files, Ray's 2,579 among them) costs 45 CPU-s, where the
## 2,700 modules a test run imports cost 13.
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check uv==0.13.9
	$(BIN)/uv pip install -q --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install -q --python $(BIN)/python --no-deps -e .
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

## our sources' bytecode, and that of what the engines and the server import, is written here (a server or an
## engine started outside make then finds it); numba's compiled kernels are cached beside the sources:
## compiling every engine's here keeps that (and the ~90 MB LLVM holds on to after compiling) out of the
## first game, engine run and test
setup: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src >/dev/null
	$(BIN)/python -c "import tabletop.cli.serve, tabletop.server.app, uvicorn.main"
	$(BIN)/python -m tabletop.cli.warmup

## make run: set up, then start the server with the web app on the embedded defaults
run: setup
	$(BIN)/tabletop serve --host $(HOST) --port $(PORT) --open

## Debian packages the tests need, installed when missing: chromium for the browser tests
## (never a downloaded browser), redis-server and postgresql for the scale-out and database tests
system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

## the linters, the type check and the bounds-checked pass need the installed packages only, not
## numba's cache of the engines: inside `make test` they run while `setup` compiles the kernels
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy src

## most tests wait on servers, browsers and subprocesses rather than compute: four workers keep
## two cores busy. The kernels' own tests run in the bounds-checked pass below instead. The files go out in
## conftest.py's order, the longest first (xdist would sort them by their number of tests).
## TABLETOP_TEST_WARM_UP=0: setup has just filled numba's cache; the suite's own warm-up (tests/conftest.py)
## would only load every kernel once more (seconds of processor time)
WORKERS ?= 4
unit: test-bytecode
	TABLETOP_TEST_WARM_UP=0 $(BIN)/pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder --durations=10 \
	  $(addprefix --ignore=,$(BOUNDS_TESTS))

## pytest rewrites the asserts of each test file it imports, and writes the result beside it (make's commands
## may write bytecode, see above); every test process reads it. One collection before the test run writes it,
## sparing each test worker rewriting every file: 19 CPU-s once against some 10 a worker. After setup: the
## collection imports the Reversi kernel, whose three typed kernels compile on import when not in the cache.
## Its errors are the test run's to report (a file that does not import fails there, in full)
test-bytecode: setup
	-TABLETOP_TEST_WARM_UP=0 $(BIN)/pytest -q -p no:cacheprovider --collect-only tests >/dev/null

## the kernels' tests, run with numba's bounds checking on (an index past an array's end raises
## instead of writing over memory), every kernel compiled into a cache folder of its own first.
## LLVM's optimisation level 1 there: the checks are numba's own and the same at any level; its compile
## costs some 20 CPU-s less than level 3's (142 against 162), the tests about 2 more (level 0 caches nothing).
## The tests run in one process: it runs beside the other tests, and two workers cost some 10-15 CPU-s more
## (each collects the files and loads the kernels; 36-42 CPU-s against 26-27)
BOUNDS_TESTS := tests/test_kernel_bounds.py tests/test_vcf.py tests/test_vct.py tests/test_threats_budget.py \
	tests/test_gomoku_search.py tests/test_gomoku_forbidden_kernel.py tests/test_envs_vector.py
BOUNDS_ENV := NUMBA_OPT=1 NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(CURDIR)/build/numba-boundscheck TABLETOP_BOUNDSCHECK=1
bounds: $(STAMP)
	$(BOUNDS_ENV) $(BIN)/python -m tabletop.cli.warmup
	$(BOUNDS_ENV) TABLETOP_TEST_WARM_UP=0 $(BIN)/pytest -q -p no:cacheprovider $(BOUNDS_TESTS)

## make test: install the packages and what the tests need, then the linters, the type check, the
## setup's kernel compile followed by the tests, and the bounds-checked pass side by side (each
## one's output printed whole when it ends): two cores stay busy from the first minute
test: $(STAMP) system-deps
	$(MAKE) --no-print-directory -j4 --output-sync=target lint typecheck unit bounds

## make screenshots: rerun the browser tests that write docs/screenshots/ (a test run leaves them alone)
screenshots: setup system-deps
	TABLETOP_DOC_SHOTS=1 $(BIN)/pytest -q tests/test_web_import.py tests/test_web_analysis.py tests/test_web_lobby.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
