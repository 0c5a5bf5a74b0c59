"""The result of an evaluation: aggregates, per-user values, and an account of every user."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from receval._by_group import by_group
from receval._result_html import evaluation_html
from receval.exceptions import InvalidParameterError, UnknownMetricError
from receval.metrics import Metric, parse

if TYPE_CHECKING:
    from receval.report._plots import EvaluationPlots

__all__ = ["EvaluationResult", "MetricSummary", "UserAccounting", "groups_frame"]


def groups_frame(lists: dict[str, pd.Index]) -> pd.DataFrame:
    """Every user of some lists, one row each (in id order), a boolean column per list."""
    users = [u for u in lists.values() if len(u)]
    index = users[0].append(users[1:]).unique() if users else pd.Index([])
    with contextlib.suppress(TypeError):  # ids that do not order: as they came
        index = index.sort_values()
    return pd.DataFrame({name: index.isin(u) for name, u in lists.items()},
                        index=index.rename("user"))


@dataclass(frozen=True)
class UserAccounting:
    """Where every user of both inputs went.

    Every user of the union of the two tables is in exactly one of ``evaluated``,
    ``skipped_no_relevant``, ``skipped_missing_recs`` and ``recs_without_truth``; the counts
    always add up to ``n_users``.

    Attributes
    ----------
    n_users, n_truth_users, n_recs_users : int
        Distinct users in both inputs, in the truth, in the recommendations.
    evaluated : pandas.Index
        Users entering the ranking metrics' means.
    skipped_no_relevant : pandas.Index
        Truth users without any relevant item, left out (``no_relevant='skip'``).
    skipped_missing_recs : pandas.Index
        Truth users without recommendations, left out (``missing_recs='skip'``).
    recs_without_truth : pandas.Index
        Users with recommendations but no truth row, left out
        (``recs_without_truth='ignore'``).
    no_relevant : pandas.Index
        All truth users without a relevant item, whatever the policy.
    missing_recs : pandas.Index
        All truth users without recommendations, whatever the policy.
    rating_evaluated : pandas.Index
        Users entering the rating metrics (empty when none was asked for).
    rating_skipped : pandas.Index
        Truth users left out of the rating metrics: none of their ratings has a prediction
        (``missing_predictions='skip'``), or they have no recommendation rows at all
        (``missing_recs='skip'``).
    n_missing_predictions : int
        Truth ratings without a predicted rating.
    policies : dict
        The policy applied to each case.
    recs_without_truth_scored : pandas.Index
        Users with recommendations but no truth row, scored 0 and counted in ``evaluated``
        (``recs_without_truth='zero'``).
    sizes : dict
        Empty when every list above is complete. With ``evaluate(per_user="spark")`` the
        lists hold the first few ids of each group (examples) and ``sizes`` the size of each
        group; :meth:`count` reads it, and :attr:`frame` has every user.
    """

    n_users: int
    n_truth_users: int
    n_recs_users: int
    evaluated: pd.Index
    skipped_no_relevant: pd.Index
    skipped_missing_recs: pd.Index
    recs_without_truth: pd.Index
    no_relevant: pd.Index
    missing_recs: pd.Index
    rating_evaluated: pd.Index
    rating_skipped: pd.Index
    n_missing_predictions: int
    policies: dict[str, Any]
    recs_without_truth_scored: pd.Index = field(default_factory=lambda: pd.Index([]))
    sizes: dict[str, int] = field(default_factory=dict)
    _frame: Any = field(default=None, repr=False, compare=False)

    #: The groups of users, as attributes (lists of ids) and as columns of :attr:`frame`.
    GROUPS = ("evaluated", "skipped_no_relevant", "skipped_missing_recs",
              "recs_without_truth", "recs_without_truth_scored", "no_relevant",
              "missing_recs", "rating_evaluated", "rating_skipped")

    @property
    def complete(self) -> bool:
        """Whether the lists hold every user (False: examples, with ``per_user="spark"``)."""
        return not self.sizes

    def count(self, group: str) -> int:
        """The number of users in one group (``"evaluated"``, ``"no_relevant"``, ...)."""
        if group not in self.GROUPS:
            raise InvalidParameterError(f"group must be one of {', '.join(self.GROUPS)}; got "
                                        f"{group!r}", parameter="group", examples=[group])
        return self.sizes[group] if self.sizes else len(getattr(self, group))

    @property
    def n_evaluated(self) -> int:
        """Users in the ranking metrics' means."""
        return self.count("evaluated")

    @property
    def frame(self) -> Any:
        """Every user of both inputs, one row each, with a boolean column per group.

        The columns are the user id and :attr:`GROUPS`. With ``evaluate(per_user="spark")``
        this is a Spark DataFrame computed by the same job as the metrics (nothing
        collected); otherwise a pandas DataFrame built from the lists, indexed by user.
        """
        if self._frame is not None:
            return self._frame
        return groups_frame({g: getattr(self, g) for g in self.GROUPS})

    def summary(self) -> pd.DataFrame:
        """One row per category of user: count and what was done.

        The first row is the total of distinct users of both inputs. Each of them is
        evaluated or left out once (the lists :attr:`evaluated`, :attr:`skipped_no_relevant`,
        :attr:`skipped_missing_recs` and :attr:`recs_without_truth`), but the rows below
        ``evaluated`` count a case, and overlap: a user without recommendations scored 0 is
        also among the evaluated, and one without a relevant item either; the handling says
        where the users of each row went.
        """
        p, n = self.policies, self.count
        went = {"skip": "left out", "ignore": "left out", "error": "an error",
                "zero": "scored 0, counted in evaluated"}
        no_recs = went.get(p["missing_recs"], "")
        if p["no_relevant"] == "skip" and p["missing_recs"] != "error":
            no_recs += " (or left out as a user without a relevant item)"
        rows = [
            ("all users (both inputs)", self.n_users,
             "distinct users of recs and truth; each is evaluated or left out once, and the "
             "rows below overlap (they count cases)"),
            ("evaluated", n("evaluated"), "in the means of the ranking metrics"),
            ("no relevant item", n("no_relevant"),
             f"no_relevant={p['no_relevant']!r}: {went.get(p['no_relevant'], '')}"),
            ("no recommendations", n("missing_recs"),
             f"missing_recs={p['missing_recs']!r}: {no_recs}"),
            ("recommendations without truth",
             n("recs_without_truth") + n("recs_without_truth_scored"),
             f"recs_without_truth={p['recs_without_truth']!r}: "
             f"{went.get(p['recs_without_truth'], '')}"),
        ]
        if n("rating_evaluated") or self.n_missing_predictions:
            rows.append(("rating metrics: evaluated", n("rating_evaluated"),
                         "users with at least one (prediction, rating) pair"))
            rows.append(("rating metrics: ratings without prediction",
                         self.n_missing_predictions,
                         f"missing_predictions={p['missing_predictions']!r}"))
        return pd.DataFrame(rows, columns=["users", "count", "handling"]).set_index("users")

    def to_dict(self) -> dict[str, Any]:
        """Counts and policies (ids are left out; they are in the attributes)."""
        return {
            "n_users": self.n_users, "n_truth_users": self.n_truth_users,
            "n_recs_users": self.n_recs_users,
            **{g: self.count(g) for g in self.GROUPS},
            "missing_predictions": self.n_missing_predictions,
            "policies": dict(self.policies),
        }

    def __repr__(self) -> str:
        return (f"UserAccounting(users={self.n_users}, evaluated={self.count('evaluated')}, "
                f"skipped_no_relevant={self.count('skipped_no_relevant')}, "
                f"skipped_missing_recs={self.count('skipped_missing_recs')}, "
                f"recs_without_truth={self.count('recs_without_truth')})")


@dataclass(frozen=True)
class MetricSummary:
    """How one metric's aggregate was made."""

    metric: Metric
    value: float
    aggregation: str
    n_users: int
    n_undefined: int = 0
    ties: str | None = None
    n_ties_at_cutoff: int = 0
    n_excluded: int = 0
    """Evaluated users left out of this metric by its own ``missing_recs='skip'`` or, for
    nDCG, ``zero_ideal='skip'``."""


@dataclass(frozen=True)
class EvaluationResult:
    """Aggregate and per-user values of every requested metric, with the user accounting.

    ``result[label]`` accepts the canonical label (``'NDCG@10'``), the string passed to
    ``evaluate`` (``'ndcg@10'``) or any spelling that parses to the same metric.

    Attributes
    ----------
    metrics : tuple of Metric
        The metrics, in the order requested.
    per_user : pandas.DataFrame or pyspark.sql.DataFrame
        One row per evaluated user (index: user id), one column per metric label; NaN where
        a metric does not apply to a user (a rating metric for a user without ratings). With
        ``evaluate(per_user="spark")`` a Spark DataFrame: the user id column (named as in
        recs), one column per metric label, null where NaN would be.
    users : UserAccounting
        Where every user went.
    settings : dict
        Convention, relevance threshold, tie policy and every policy used.
    """

    metrics: tuple[Metric, ...]
    summaries: dict[str, MetricSummary]
    per_user: pd.DataFrame
    users: UserAccounting
    settings: dict[str, Any]
    _aliases: dict[str, str] = field(default_factory=dict, repr=False)
    _terms: dict[str, tuple[pd.Index, np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False)
    """Per-user numerators and denominators of micro-averaged metrics (users, num, den), so
    that statistics and groups can recompute the pooled ratio over any subset of users."""
    _cache: Any = field(default=None, repr=False, compare=False)
    """The persisted Spark DataFrame behind ``per_user`` (``per_user="spark"``)."""
    _input_paths: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    """Role -> path of each input given as a file (``recs``, ``truth``, ``train``, ...), so
    that ``report(path)`` refuses to write over one of them, as the command line does."""

    # -- access ------------------------------------------------------------------------------
    @property
    def per_user_in_spark(self) -> bool:
        """Whether ``per_user`` is a Spark DataFrame (``evaluate(per_user="spark")``)."""
        return not isinstance(self.per_user, pd.DataFrame)

    def unpersist(self) -> None:
        """Free the Spark cache behind ``per_user`` and ``users.frame`` (no-op otherwise).

        With ``evaluate(per_user="spark")`` the job's output stays cached in the executors
        (memory, then disk) until this is called or the session stops; read or write the
        per-user DataFrames first: afterwards Spark would compute every bucket again.
        """
        if self._cache is not None:
            self._cache.unpersist()

    def _pandas_per_user(self, what: str) -> pd.DataFrame:
        """``per_user`` as pandas, or an error naming ``what`` needs it in memory."""
        if self.per_user_in_spark:
            raise InvalidParameterError(
                f"{what} needs the per-user values in memory, and they are a Spark DataFrame "
                f"(evaluate(per_user='spark')): evaluate with per_user='pandas', or collect "
                f"them (ev.per_user.toPandas()) when they fit the driver",
                parameter="per_user", examples=["spark"])
        return self.per_user

    def _label(self, key: str | Metric) -> str:
        if isinstance(key, Metric):
            key = key.label
        if key in self.summaries:
            return key
        if key in self._aliases:
            return self._aliases[key]
        try:
            label = parse(key).label
        except Exception:  # any parse failure means "not in this result"
            label = None
        if label is not None and label in self.summaries:
            return label
        raise UnknownMetricError(
            f"{key!r} is not in this result; it has {list(self.summaries)}",
            parameter="key", examples=list(self.summaries))

    def __getitem__(self, key: str | Metric) -> float:
        return self.summaries[self._label(key)].value

    def __contains__(self, key: object) -> bool:
        try:
            self._label(key)  # type: ignore[arg-type]
        except UnknownMetricError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self.summaries)

    def __len__(self) -> int:
        return len(self.summaries)

    @property
    def labels(self) -> list[str]:
        """The canonical labels, in the order requested."""
        return list(self.summaries)

    def by(self, groups: Any) -> pd.DataFrame:
        """Every metric per user group, aggregated as ``evaluate`` does.

        ``groups`` maps user id -> group (a dict or Series); see
        :func:`receval.stats.by_group`.
        """
        return by_group(self, groups)

    def disparity(self, groups: Any, metrics: Any = None, *, summary: str = "max_gap",
                  confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
                  ) -> Any:
        """How each metric differs between user groups, with a bootstrap interval.

        ``summary``: ``"max_gap"`` (largest minus smallest group value), ``"ratio"``
        (smallest over largest), ``"mad"`` (mean absolute difference over pairs of groups,
        Elliot's UserMAD), ``"cv"`` (coefficient of variation of the group values) or
        ``"gini"`` (Gini index of the per-user values). Users are resampled within their
        groups, seeded like :func:`receval.compare`. See
        :func:`receval.stats.disparity` and ``docs/fairness.md``.
        """
        from receval.stats._disparity import disparity

        return disparity(self, groups, metrics, summary=summary, confidence=confidence,
                         n_resamples=n_resamples, seed=seed)

    def groups(self, key: str | Metric) -> pd.DataFrame:
        """The per-group values of a group metric (exposure, RSP, REO, delta GAP, ...).

        One row per group (for bias disparity per (user group, item group)); the metric's
        value ``result[key]`` summarises them (``docs/fairness.md``). They are also in
        ``settings["groups"][label]`` as plain data.
        """
        label = self._label(key)
        table = self.settings.get("groups", {}).get(label)
        if table is None:
            raise InvalidParameterError(
                f"{label} has no per-group values; group metrics have them: "
                f"{list(self.settings.get('groups', {}))}", parameter="key",
                examples=[label])
        names = table["index_names"]
        index = (pd.MultiIndex.from_tuples(table["index"], names=names) if len(names) > 1
                 else pd.Index(table["index"], name=names[0]))
        return pd.DataFrame(table["columns"], index=index)

    # -- exports -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, float]:
        """``{label: value}``."""
        return {k: s.value for k, s in self.summaries.items()}

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: value, aggregation, users in the mean, undefined users."""
        rows = [{"metric": k, "value": s.value, "aggregation": s.aggregation,
                 "users": s.n_users, "undefined": s.n_undefined}
                for k, s in self.summaries.items()]
        return pd.DataFrame(rows).set_index("metric")

    def _table(self, digits: int) -> list[list[str]]:
        return [[k, _fmt(s.value, digits), s.aggregation, str(s.n_users)]
                for k, s in self.summaries.items()]

    @property
    def caption(self) -> str:
        """The convention the numbers follow and, if sampled, how ("" for neither)."""
        conv = self.settings.get("convention")
        sampled = _sampled_caption(self.settings.get("sampled"))
        if not conv:
            return sampled
        names = ", ".join(
            f"{label} = {v['library_name'] or 'not in ' + str(conv)}"
            for label, v in self.settings.get("metrics", {}).items() if "library_name" in v)
        text = f"convention: {conv} ({names})"
        return f"{text}; {sampled}" if sampled else text

    def _tabulate(self, digits: int, fmt: str) -> str:
        from tabulate import tabulate

        return str(tabulate(self._table(digits), headers=["metric", "value", "aggregation",
                                                          "users"], tablefmt=fmt,
                            disable_numparse=True))

    def to_markdown(self, digits: int = 4) -> str:
        """A Markdown table of the aggregates (after the convention, if any)."""
        table = self._tabulate(digits, "github")
        return f"{self.caption}\n\n{table}" if self.caption else table

    def to_latex(self, digits: int = 4) -> str:
        """A LaTeX (booktabs) table of the aggregates (the convention in a comment)."""
        table = self._tabulate(digits, "latex_booktabs")
        return f"% {self.caption}\n{table}" if self.caption else table

    def to_json(self, *, per_user: bool = False, indent: int | None = 2) -> str:
        """JSON with the values, how each was aggregated, the settings and the accounting."""
        doc: dict[str, Any] = {
            "metrics": {k: {"value": _json_float(s.value), "aggregation": s.aggregation,
                            "users": s.n_users, "undefined": s.n_undefined,
                            "ties": s.ties, "ties_at_cutoff": s.n_ties_at_cutoff,
                            "family": s.metric.family}
                        for k, s in self.summaries.items()},
            "settings": {k: _jsonable(v) for k, v in self.settings.items()},
            "users": self.users.to_dict(),
        }
        if per_user:
            frame = self._pandas_per_user("to_json(per_user=True)").reset_index()
            doc["per_user"] = json.loads(frame.to_json(orient="records"))
        return json.dumps(doc, indent=indent, ensure_ascii=False)

    def to_html(self, digits: int = 4) -> str:
        """An HTML table of the aggregates."""
        import html

        frame = self.to_frame()
        table = str(frame.to_html(float_format=lambda v: _fmt(v, digits)))
        return f"<p>{html.escape(self.caption)}</p>\n{table}" if self.caption else table

    def _repr_html_(self) -> str:
        return evaluation_html(self)

    # -- reports and figures (receval[report], receval[plot]; imported on use) ---------------
    def report(self, path: str | Path, *, recs: Any = None, truth: Any = None,
               train: Any = None, title: str | None = None, max_k: int | None = None,
               **kwargs: Any) -> Path:
        """Write a standalone HTML report of this evaluation to ``path``.

        The page shows what was evaluated, the settings and convention, the user accounting,
        the metric table, metric@k curves, per-user distributions and, with ``train``, the
        popularity of the recommended items against training popularity. It loads nothing
        from the network. Needs ``pip install 'receval[report]'`` (jinja2, matplotlib).

        Parameters
        ----------
        path : str or Path
            The HTML file to write; never one of the files this result was evaluated from,
            nor ``recs``, ``truth`` or ``train`` given here (an
            :class:`~receval.exceptions.OutputPathError`).
        recs, truth : table, optional
            The inputs of this evaluation: with them the curves show every cutoff
            k = 1..``max_k`` (one ``evaluate`` call under this result's settings); without
            them, the cutoffs evaluated. Other inputs are an
            :class:`~receval.exceptions.InvalidParameterError`: the curves must pass through
            this result's values at its cutoffs.
        train : table, optional
            Training interactions (user, item): adds the popularity / long-tail figure
            (needs ``recs`` and ``truth``).
        title : str, optional
            The page title.
        max_k : int, optional
            The largest cutoff of the curves (default: the largest k evaluated).
        **kwargs
            ``bins`` (per-user histograms, default 20), ``names`` (``{"recs": "file.csv"}``
            sources shown on the page), ``notes`` (texts shown as warnings),
            ``generated`` (the date shown), ``head_share`` (default 0.2), ``user_groups``
            (user id -> group: each per-user metric by user group with intervals, and the
            disparities; the group metrics' tables are shown whenever evaluated).

        Returns
        -------
        Path
            ``path``.
        """
        from receval.report import write_evaluation_report

        self._pandas_per_user("report()")
        return write_evaluation_report(self, path, recs=recs, truth=truth, train=train,
                                       title=title, max_k=max_k, **kwargs)

    @property
    def plot(self) -> EvaluationPlots:
        """Matplotlib figures: ``ev.plot.curves()``, ``.distribution()``, ``.popularity()``.

        Needs ``pip install 'receval[plot]'``.
        """
        from receval.report._plots import EvaluationPlots

        self._pandas_per_user("plot")
        return EvaluationPlots(self)

    def __repr__(self) -> str:
        conv = self.settings.get("convention")
        head = f"EvaluationResult({self.users.n_evaluated} users evaluated"
        head += f", convention={conv!r}" if conv else ""
        head += f", {_sampled_caption(self.settings['sampled'])})" \
            if self.settings.get("sampled") else ")"
        width = max((len(k) for k in self.summaries), default=0)
        lines = [head] + [f"  {k:<{width}}  {_fmt(s.value, 4)}"
                          for k, s in self.summaries.items()]
        return "\n".join(lines)


def _sampled_caption(record: dict[str, Any] | None) -> str:
    """``sampled: m=99 negatives per positive, n=3706 items, ...`` (receval.sampled)."""
    if not record:
        return ""
    gamma = f", gamma={record['gamma']:g}" if record.get("gamma") is not None else ""
    return (f"sampled: m={record['m']} negatives per positive, n={record['n']} items, "
            f"strategy={record.get('strategy') or 'unknown'}, "
            f"correction={record['correction']}{gamma}")


def _fmt(value: float, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    return f"{value:.{digits}f}"


def _json_float(v: float) -> float | None:
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else float(v)


def _jsonable(v: Any) -> Any:
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return str(v)
