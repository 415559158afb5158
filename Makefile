# mneme — every developer and CI command goes through this file.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
SAM_VENV := .venv-sam
BENCH_VENV := .venv-bench-vectors
PY := $(VENV)/bin/python
SAM := $(SAM_VENV)/bin/sam
export SAM_CLI_TELEMETRY := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

$(VENV)/.stamp: requirements/dev.txt requirements/nodeps.txt layers/mneme/requirements.txt clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -qq -r requirements/dev.txt
	$(PY) -m pip install -qq --no-deps -r requirements/nodeps.txt
	$(PY) -m pip install -qq --no-deps --no-build-isolation -e clients/python
	touch $@

$(SAM_VENV)/.stamp: requirements/sam.txt
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install -qq -r requirements/sam.txt
	touch $@

node_modules/.stamp: package.json package-lock.json
	npm ci --silent --no-audit --no-fund
	touch $@

setup: $(VENV)/.stamp $(SAM_VENV)/.stamp node_modules/.stamp ## create the environments from the pinned requirements

lint: $(VENV)/.stamp ## ruff lint + format check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

types: $(VENV)/.stamp ## mypy (strict for the mneme package)
	$(VENV)/bin/mypy layers/mneme/mneme local/mneme_local functions tests scripts

unit: $(VENV)/.stamp ## unit tests (pure core, fakes)
	$(PY) -m pytest tests/unit -q

functional: $(VENV)/.stamp ## functional tests (moto, embedded adapters, offline)
	$(PY) -m pytest tests/functional -q

infra: $(VENV)/.stamp ## template and state machine tests
	$(PY) -m pytest tests/infra -q

PYTEST_WORKERS ?= auto
pytest: $(VENV)/.stamp ## every pytest suite but the browser's, in parallel workers (PYTEST_WORKERS=0: in one process)
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

validate: $(SAM_VENV)/.stamp node_modules/.stamp ## sam validate --lint and the ASL validator
	$(SAM) validate --lint --template template.yaml --region us-east-1
	@if ls statemachine/*.json >/dev/null 2>&1; then \
	  for f in statemachine/*.json; do node_modules/.bin/asl-validator --json-path "$$f" || exit 1; done; \
	else echo "no state machine definitions yet"; fi

test: setup lint types pytest validate browser-test ## every offline check: lint, types, unit, functional, infra, template, browser
	@echo "make test: all checks passed"

CHROMIUM ?= /usr/bin/chromium
APT_GET := $(if $(filter 0,$(shell id -u)),,sudo )apt-get

browser-test: $(VENV)/.stamp ## the web console in Debian's Chromium (installed with apt when missing)
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "installing Debian's chromium for the browser tests"; \
	  $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq chromium >/dev/null; \
	fi
	MNEME_CHROMIUM="$(CHROMIUM)" $(PY) -m pytest tests/browser -q

screenshots: ## rerun the browser tests writing their screenshots to docs/screenshots (the README shows two)
	$(MAKE) --no-print-directory browser-test MNEME_SCREENSHOTS="$(CURDIR)/docs/screenshots"

deploy-console: $(VENV)/.stamp ## publish console/ to a deployed stack: make deploy-console STACK=mneme-dev [REGION=...]
	@test -n "$(STACK)" || { echo "usage: make deploy-console STACK=<stack name> [REGION=<region>]" >&2; exit 2; }
	PYTHONPATH=layers/mneme:local $(PY) -m scripts.deploy_console --stack "$(STACK)" $(if $(REGION),--region "$(REGION)")

run: $(VENV)/.stamp ## serve the whole API locally (embedded mode; MNEME_PORT, MNEME_DATA_DIR)
	PYTHONPATH=layers/mneme:local:functions/run $(PY) -m mneme_local.server

token: ## print a local development token: make token USER=alice [ADMIN=1]
	@$(MAKE) --no-print-directory -s $(VENV)/.stamp >&2
	@PYTHONPATH=layers/mneme:local:functions/run $(PY) -m mneme_local.token --user "$(USER)" $(if $(filter 1 yes true,$(ADMIN)),--admin)

demo: ## walk through the API against a running `make run` (MNEME_PORT, MNEME_DATA_DIR)
	@$(MAKE) --no-print-directory -s $(VENV)/.stamp >&2
	@PYTHONPATH=layers/mneme:local:functions/run $(PY) -m mneme_local.demo

event: ## send an EventBridge event to a running `make run`: make event FILE=events/eventbridge-run-requested.json
	@$(MAKE) --no-print-directory -s $(VENV)/.stamp >&2
	@test -n "$(FILE)" || { echo "usage: make event FILE=events/<event>.json" >&2; exit 2; }
	@PYTHONPATH=layers/mneme:local:functions/run $(PY) -m mneme_local.send_event "$(FILE)"

fmt: $(VENV)/.stamp ## format the code
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean: ## remove the environments and caches
	rm -rf $(VENV) $(SAM_VENV) $(BENCH_VENV) node_modules .aws-sam .mypy_cache .ruff_cache .hypothesis

.PHONY: help setup lint types unit functional infra pytest validate test browser-test screenshots deploy-console run token demo event fmt clean

INTEROP_VENV := .venv-interop
# llama-cpp-python compiles llama.cpp once (about 12 min on 2 cores): CPU only, no multimodal library, no tools,
# examples, tests or server binaries of llama.cpp (the Python package serves the OpenAI API itself)
INTEROP_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_BLAS=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF

$(INTEROP_VENV)/.stamp: requirements/interop.txt requirements/interop-nodeps.txt
	$(PYTHON) -m venv $(INTEROP_VENV)
	CMAKE_ARGS="$(INTEROP_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 nice -n 15 \
	  $(INTEROP_VENV)/bin/pip install -qq -r requirements/interop.txt
	$(INTEROP_VENV)/bin/pip install -qq --no-deps -r requirements/interop-nodeps.txt
	touch $@

interop: $(VENV)/.stamp $(INTEROP_VENV)/.stamp ## opt-in: the README flow with a real model (llama.cpp + SmolLM2); RECORD=1 re-records tests/contract
	PYTHONPATH=layers/mneme:local:functions/run:clients/python/src $(PY) -m scripts.interop $(if $(filter 1 yes true,$(RECORD)),--record)

client-models: $(VENV)/.stamp ## regenerate clients/python's models from the API's OpenAPI document
	PYTHONPATH=layers/mneme:local:functions/run $(PY) -m scripts.client_models

.PHONY: client-models interop

$(VENV)/.bench.stamp: $(VENV)/.stamp requirements/bench.txt
	$(PY) -m pip install -qq -r requirements/bench.txt
	touch $@

BENCH_LOG ?= /tmp/mneme-bench.txt
bench: $(VENV)/.bench.stamp $(SAM_VENV)/.stamp ## benchmarks for docs/performance.md (BENCH=full adds the 1M-vector figures)
	@$(MAKE) --no-print-directory bench-run

bench-run: $(VENV)/.stamp ## the bench runner alone; its exit status survives the log's tee (BENCH_ARGS, BENCH_LOG)
	set -o pipefail; $(PY) bench/run_all.py $(if $(filter full,$(BENCH)),--full) $(BENCH_ARGS) 2>&1 | tee $(BENCH_LOG)

$(BENCH_VENV)/.stamp: requirements/bench-vectors.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -qq -r requirements/bench-vectors.txt
	touch $@

bench-vectors: $(BENCH_VENV)/.stamp ## the embedded vector engines compared at 1M entries (own venv: LanceDB is 350 MB)
	$(BENCH_VENV)/bin/python bench/vector_candidates.py $(BENCH_ARGS)

.PHONY: bench bench-run bench-vectors

reliability: $(VENV)/.stamp ## the reliability tier with its figures (isolation, bad input, faults, idempotency, load)
	$(PY) -m pytest tests/reliability -q -rxX

.PHONY: reliability

mutations: $(VENV)/.stamp ## mutants of the loop limits, read lists, ranking, auto-write, audit chain and turn take-back rules must each fail the tests
	$(PY) -m tests.mutations.check

.PHONY: mutations
e2e: $(VENV)/.stamp ## the opt-in suite against a deployed stack: make e2e STACK=mneme-dev [CREATE_USER=1] (or MNEME_E2E_URL + MNEME_E2E_TOKEN)
	MNEME_E2E_STACK="$(STACK)" MNEME_E2E_CREATE_USER="$(if $(filter 1 yes true,$(CREATE_USER)),1,)" \
	  $(PY) -m pytest tests/e2e -m e2e -q -rs

sam-env: $(VENV)/.stamp ## write .aws-sam/env.json (sam local invoke --env-vars) for a deployed stack: make sam-env STACK=mneme-dev [REGION=...]
	@test -n "$(STACK)" || { echo "usage: make sam-env STACK=<stack> [REGION=<region>]" >&2; exit 2; }
	$(PY) -m tests.e2e.stack sam-env --stack "$(STACK)" $(if $(REGION),--region "$(REGION)") --out .aws-sam/env.json
	@echo "wrote .aws-sam/env.json for $(STACK)"

.PHONY: e2e sam-env
