"""Test-suite switches: Graph.lint() after every transform and translation (MO_LINT, inherited by
the converter processes the tests start)."""
import os

os.environ["MO_LINT"] = "1"
