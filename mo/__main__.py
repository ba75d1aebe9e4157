"""``python -m mo``: the command line."""
from mo.main import entry

entry()
