"""PyTorch frontend: lowerings of ATen operations (``<family>.py``) and their extractors (``<family>_ext.py``)."""
