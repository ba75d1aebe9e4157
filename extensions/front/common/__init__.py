"""Building code shared by the translators of several frameworks (an op family each)."""
