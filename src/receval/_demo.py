"""An embedded, seeded sample data set, and the experiment ``receval demo`` runs on it.

Nothing is downloaded: :func:`sample_ratings` builds users, items with a long-tail popularity,
ratings and timestamps from a seed. :func:`experiment` is the demo's experiment written with
the public API only: ``rv.split.temporal`` holds out each user's latest ratings,
``rv.models`` provides the baselines (random scores vs popularity, as in seed 004; global and
item means for ratings) and ``rv.cross_validate`` fits and evaluates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Demo", "experiment", "genres", "sample_ratings"]


def sample_ratings(n_users: int = 600, n_items: int = 400, *, seed: int = 7) -> pd.DataFrame:
    """A MovieLens-like table of ratings: ``user_id, item_id, rating, timestamp``.

    Items have Zipf-like popularity (a few items get most ratings) and a latent quality;
    users have a bias and a number of ratings drawn from a long-tailed distribution.
    Ratings are integers 1..5. Every (user, item) pair occurs at most once.
    """
    rng = np.random.default_rng(seed)
    pop = 1.0 / np.arange(1, n_items + 1) ** 0.9
    pop /= pop.sum()
    item_perm = rng.permutation(n_items)  # popularity rank -> item id
    quality = rng.normal(0.0, 0.8, n_items)
    counts = np.minimum(5 + rng.negative_binomial(2, 0.08, n_users), n_items // 2)
    # Gumbel top-c: each user's c items drawn without replacement, proportionally to pop
    keys = np.log(pop)[None, :] + rng.gumbel(size=(n_users, n_items))
    order = np.argsort(-keys, axis=1)
    take = np.arange(n_items)[None, :] < counts[:, None]
    user = np.broadcast_to(np.arange(n_users)[:, None], order.shape)[take]
    item = item_perm[order[take]]
    bias = rng.normal(0.0, 0.6, n_users)
    raw = 3.4 + bias[user] + quality[item] + rng.normal(0.0, 0.9, len(user))
    rating = np.clip(np.rint(raw), 1, 5).astype(np.int64)
    start = pd.Timestamp("2024-01-01").value // 10**9
    ts = start + rng.integers(0, 365 * 24 * 3600, len(user))
    frame = pd.DataFrame({"user_id": user + 1, "item_id": item + 1001, "rating": rating,
                          "timestamp": pd.to_datetime(ts, unit="s")})
    return frame.sort_values(["user_id", "timestamp"], ignore_index=True)


def genres(ratings: pd.DataFrame, seed: int = 7) -> pd.DataFrame:
    """A genre-like feature of the sample items: one of eight genres each, seeded.

    A long (item, feature) table, as ``evaluate(item_features=...)`` reads it.
    """
    items = np.sort(ratings["item_id"].unique())
    names = ["action", "comedy", "drama", "horror", "romance", "scifi", "thriller", "kids"]
    return pd.DataFrame({"item_id": items,
                         "genre": np.random.default_rng(seed).choice(names, len(items))})


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
