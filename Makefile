# Developer shortcuts. `make docs` builds the documentation site (warnings are errors).

PYTHON ?= python

.PHONY: docs docs-serve clients

docs:
	$(PYTHON) -m mkdocs build --strict

docs-serve:
	$(PYTHON) -m mkdocs serve

# the client suites (scikit-learn, SciPy, array-api-extra) with usmarray: see docs/compatibility.md
clients:
	$(PYTHON) -m clients
