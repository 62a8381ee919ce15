# Developer shortcuts. `make docs` builds the documentation site (warnings are errors).

PYTHON ?= python

.PHONY: docs docs-serve compat-table

docs:
	$(PYTHON) -m mkdocs build --strict

docs-serve:
	$(PYTHON) -m mkdocs serve

# regenerates docs/compatibility.md (needs scikit-learn, scipy, array-api-strict)
compat-table:
	$(PYTHON) scripts/compat_table.py
