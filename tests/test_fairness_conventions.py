"""The fairness conventions against the libraries' own code, on 200 random cases.

``tests/fixtures/fairness/cases.json.gz`` holds the cases and what Elliot, ClayRS, RecPack,
expeval, TREC Fair 2022's AWRFMetric and Yang et al.'s ``eq()`` computed on them (their own
code, unchanged; ``make_cases.py`` is the script, with the versions and the command). Each
test evaluates every case with receval under the library's convention and compares every
value, to 1e-9. Cornac (PropensityStratifiedEvaluation's propensities) runs live in
``tests/test_ips.py``; LibRec's numbers (Java) are in ``tests/test_calibration.py``.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import receval as rv
from receval.exceptions import DataError

pytestmark = pytest.mark.conformance

FIXTURE = Path(__file__).parent / "fixtures" / "fairness" / "cases.json.gz"
TOL = 1e-9


@functools.cache
def fixture() -> dict[str, Any]:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def frames(c: dict[str, Any]) -> dict[str, Any]:
    return {"recs": pd.DataFrame(c["recs"], columns=["user_id", "item_id", "score"]),
            "truth": pd.DataFrame(c["test"], columns=["user_id", "item_id", "rating"]),
            "train": pd.DataFrame(c["train"], columns=["user_id", "item_id", "rating"]),
            "item_groups": {int(i): g for i, g in c["item_group"].items()},
            "user_groups": {int(u): g for u, g in c["user_group"].items()}}


def run(c: dict[str, Any], metrics: list[str], **kw: Any) -> rv.EvaluationResult:
    f = frames(c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rv.evaluate(f["recs"], f["truth"], metrics, train=f["train"],
                           item_groups=f["item_groups"], user_groups=f["user_groups"], **kw)


def same(got: float, want: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):  # B_S = 0: both divide by zero
        return got == want
    return abs(got - want) <= TOL


def cases(library: str) -> list[tuple[dict[str, Any], Any]]:
    data = fixture()
    return list(zip(data["cases"], data["values"][library], strict=True))


def test_fixture_header() -> None:
    data = fixture()
    assert len(data["cases"]) == 200
    assert set(data["values"]) == {"elliot", "clayrs", "recpack", "expeval", "trec_fair_2022",
                                   "yang2018"}


# -- Elliot -------------------------------------------------------------------------------------
ELLIOT = {"rsp": "rsp@{k}", "reo": "reo@{k}", "rsp_pop": "rsp(groups=popularity)@{k}",
          "reo_pop": "reo(groups=popularity)@{k}",
          "rsp_pop_0.5": "rsp(groups=popularity, pop_ratio=0.5)@{k}",
          "reo_pop_0.5": "reo(groups=popularity, pop_ratio=0.5)@{k}"}


def _elliot_one(c: dict[str, Any], metric: str) -> float:
    try:
        ev = run(c, [metric], convention="elliot")
    except DataError:  # a group no user can be recommended: Elliot's 0 / 0
        return float("nan")
    return ev[ev.labels[0]]


def _elliot_values(c: dict[str, Any]) -> dict[str, float]:
    metrics = [m.format(k=c["k"]) for m in ELLIOT.values()]
    try:
        ev = run(c, metrics, convention="elliot")
    except DataError:  # one by one
        return {key: _elliot_one(c, m) for key, m in zip(ELLIOT, metrics, strict=True)}
    return dict(zip(ELLIOT, (ev[x] for x in ev.labels), strict=True))


def test_elliot() -> None:
    bad = []
    for c, want in cases("elliot"):
        for key, got in _elliot_values(c).items():
            if not same(got, want[key]):
                bad.append((c["seed"], key, got, want[key]))
        ev = run(c, [f"bias_disparity@{c['k']}", f"ndcg@{c['k']}"], convention="elliot")
        table = ev.groups(ev.labels[0])
        for (ug, ig), row in table.iterrows():
            want_bd = want.get(f"bd {ug} {ig}", float("nan"))
            if not same(float(row["bd"]), want_bd):
                bad.append((c["seed"], f"bd {ug} {ig}", row["bd"], want_bd))
        mad = ev.disparity(frames(c)["user_groups"], ev.labels[1], summary="mad",
                           n_resamples=1).table["value"].iloc[0]
        if not same(mad, want["user_mad_ranking"]):
            bad.append((c["seed"], "user_mad_ranking", mad, want["user_mad_ranking"]))
    assert not bad, bad[:10]


# -- ClayRS -------------------------------------------------------------------------------------
CLAYRS = {"DeltaGap | BB": "blockbuster", "DeltaGap | Diverse": "diverse",
          "DeltaGap | Niche": "niche"}


def test_clayrs() -> None:
    bad = []
    for c, want in cases("clayrs"):
        ev = run(c, [f"delta_gap@{c['k']}"], convention="clayrs")
        table = ev.groups(ev.labels[0])
        for key, value in want.items():
            got = float(table.loc[CLAYRS[key], "delta_gap"])
            if not same(got, value):
                bad.append((c["seed"], key, got, value))
    assert not bad, bad[:10]


# -- RecPack -----------------------------------------------------------------------------------
def test_recpack() -> None:
    bad = []
    for c, want in cases("recpack"):
        ev = run(c, [f"hit_rate@{c['k']}"], convention="recpack")
        if not same(ev[ev.labels[0]], want["value"]):
            bad.append((c["seed"], ev[ev.labels[0]], want["value"]))
    assert not bad, bad[:10]


# -- expeval ------------------------------------------------------------------------------------
EXPEVAL = {"gerr": "", "gerr -U": "normalize=false", "rbp": "browsing=rbp",
           "rbp -U": "browsing=rbp, normalize=false", "gerr -C": "judgments=complete",
           "rbp -C": "browsing=rbp, judgments=complete", "gerr -B": "grades=binary",
           "gerr p0.7 r0.3": "browsing='cascade(patience=0.7, stop=0.3)'",
           "rbp p0.8 -C -U": "browsing='rbp(patience=0.8)', judgments=complete, "
                             "normalize=false"}
MEASURES = {"disparity": "d", "relevance": "r", "difference": "l"}


def test_expeval() -> None:
    bad = []
    n = 0
    for c, want in cases("expeval"):
        names = {(flags, measure): "ee(" + ", ".join(
            x for x in (params, f"measure={m}") if x) + f")@{c['k']}"
            for flags, params in EXPEVAL.items() for measure, m in MEASURES.items()}
        ev = run(c, list(dict.fromkeys(names.values())), convention="expeval")
        for (flags, measure), metric in names.items():
            label = rv.metrics.parse(metric).label
            for qid, values in want[flags].items():
                user = int(qid)
                if user not in ev.per_user.index or math.isnan(ev.per_user.loc[user, label]):
                    continue  # judged but no relevant item: receval leaves the user out
                n += 1
                got = float(ev.per_user.loc[user, label])
                if not same(got, values[measure]):
                    bad.append((c["seed"], flags, measure, user, got, values[measure]))
    assert not bad, bad[:10]
    assert n > 10_000


# -- TREC Fair 2022 -------------------------------------------------------------------------------
def test_trec_fair_2022() -> None:
    bad = []
    for c, want in cases("trec_fair_2022"):
        names = {("uniform", "AWRF"): "awrf", ("relevance", "AWRF"): "awrf(target=relevance)",
                 ("uniform", "Score"): "awrf(times_ndcg=true)",
                 ("relevance", "Score"): "awrf(target=relevance, times_ndcg=true)"}
        ev = run(c, [f"{m}@{c['k']}" for m in names.values()], convention="trec_fair_2022")
        for (target, key), metric in names.items():
            label = ev.labels[list(names.values()).index(metric)]
            for topic, values in want[target].items():
                got = float(ev.per_user.loc[int(topic), label])
                if not same(got, values[key]):
                    bad.append((c["seed"], target, key, topic, got, values[key]))
    assert not bad, bad[:10]


# -- Yang et al. 2018 ---------------------------------------------------------------------------
def test_yang2018() -> None:
    bad = []
    for c, want in cases("yang2018"):
        gammas = (-1.0, 0.0, 1.0, 1.5)
        ev = run(c, [f"recall(propensity='popularity(gamma={g})')@1" for g in gammas],
                 convention="yang2018")
        for label, g in zip(ev.labels, gammas, strict=True):
            if not same(ev[label], want[f"gamma={g}"]):
                bad.append((c["seed"], g, ev[label], want[f"gamma={g}"]))
    assert not bad, bad[:10]
