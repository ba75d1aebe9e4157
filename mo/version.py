"""Version of the converter."""
VERSION = "0.1.0"
