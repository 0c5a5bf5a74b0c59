"""The experiment ``receval demo`` runs on the embedded, seeded sample data.

The data is public: :func:`receval.datasets.sample_ratings` builds users, items with a
long-tail popularity, ratings and timestamps from a seed (nothing is downloaded), and
:func:`receval.datasets.sample_genres` a genre per item (both re-exported here under their
old names). :func:`experiment` is the demo's experiment written with the public API only:
``rv.split.temporal`` holds out each user's latest ratings, ``rv.models`` provides the
baselines (random scores vs popularity, as in seed 004; global and item means for ratings)
and ``rv.cross_validate`` fits and evaluates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from receval.datasets._sample import sample_genres, sample_ratings

__all__ = ["Demo", "experiment", "genres", "sample_ratings"]


def genres(ratings: pd.DataFrame, seed: int = 7) -> pd.DataFrame:
    """One genre per sample item (:func:`receval.datasets.sample_genres`)."""
    return sample_genres(ratings, seed=seed)


@dataclass(frozen=True)
class Demo:
    """What :func:`experiment` produced: the data, the split and the two evaluations."""

    ratings: pd.DataFrame
    split: Any
    ranking: Any
    rating: Any


def experiment(n_users: int = 600, n_items: int = 400, *, seed: int = 7, k: int = 10) -> Demo:
    """The demo: each user's latest 20 % held out, two recommenders and two predictors.

    >>> demo = experiment(120, 80, k=5)                     # doctest: +SKIP
    >>> demo.ranking.per_fold                                # doctest: +SKIP
    """
    import receval as rv

    ratings = sample_ratings(n_users, n_items, seed=seed)
    split = rv.split.temporal(ratings, test_size=0.2, per_user=True)
    ranking = [f"precision@{k}", f"recall@{k}", f"ndcg@{k}", f"map@{k}", f"mrr@{k}",
               f"hit_rate@{k}", f"item_coverage@{k}", "user_coverage", f"novelty@{k}",
               f"diversity(similarity=jaccard)@{k}", f"long_tail@{k}", f"gini@{k}"]
    recommenders = {"random": rv.models.Random(seed=seed),
                    "most popular": rv.models.MostPopular()}
    predictors = {"global mean": rv.models.GlobalMean(),
                  "item mean": rv.models.ItemMean(shrinkage=5.0)}
    return Demo(ratings, split,
                rv.cross_validate(recommenders, ratings, ranking, split=split, k=k,
                                  relevance_threshold=4, item_features=genres(ratings, seed),
                                  progress=False),
                rv.cross_validate(predictors, ratings,
                                  ["rmse", "mae", "rmse(aggregation=macro)"], split=split,
                                  progress=False))
