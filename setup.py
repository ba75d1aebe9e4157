"""Installs mo: the `mo` and `extensions` packages and the `mo` / `mo-convert` commands. The
metadata, dependencies and commands are in pyproject.toml; this file remains for tools that
run setup.py directly."""
from setuptools import setup

setup()
