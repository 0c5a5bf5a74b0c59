"""receval's test suite: a regular package, first on the path (pytest ``pythonpath``), so that
an installed package named ``tests`` cannot shadow its helpers."""
