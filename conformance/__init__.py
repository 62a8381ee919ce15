"""Runs the official data-apis/array-api-tests suite against usmarray."""
