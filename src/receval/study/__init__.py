"""Experiments as code: one config file runs a whole study; its manifest reruns it exactly.

>>> import receval as rv
>>> study = rv.run("study.toml")                          # doctest: +SKIP
>>> rv.rerun("study-output/run.json").identical            # doctest: +SKIP
True

``rv.run`` reads a TOML (or YAML, or JSON) config whose sections mirror the Python calls
(``[data]``, ``[filters]``, ``[split]``, ``[models]``, ``[evaluate]``, ``[tune]``,
``[compare]``, ``[outputs]``), runs it through :func:`receval.cross_validate` and
:func:`receval.tune`, and writes tables, a report and ``run.json``. See ``docs/studies.md``;
the config's JSON schema ships as ``receval/study/config.schema.json``
(:func:`config_schema`).
"""

from receval.study._config import load as load_config
from receval.study._config import resolve as resolve_config
from receval.study._rerun import Difference, Rerun, rerun
from receval.study._schema import json_schema as config_schema
from receval.study._study import Study, run
from receval.study._tune import Tuning, tune

__all__ = ["Difference", "Rerun", "Study", "Tuning", "config_schema", "load_config",
           "rerun", "resolve_config", "run", "tune"]
