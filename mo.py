#!/usr/bin/env python3
"""mo: convert a trained model to OpenVINO IR. Run `python mo.py --help`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mo.main import entry  # noqa: E402

if __name__ == "__main__":
    entry()
