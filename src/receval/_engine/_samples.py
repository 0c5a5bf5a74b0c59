"""A stochastic ranker's sampled lists under one partition's codes (``evaluate(sample=)``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from receval.data import Interactions
from receval.data._samples import SampledRows

__all__ = ["Samples", "samples_of"]


@dataclass(frozen=True)
class Samples:
    """Every sampled list of a partition, as a list of its own.

    Attributes
    ----------
    data : Interactions
        The sampled lists: user codes are (user, sample) pseudo-users, the truth repeated
        for each.
    user : ndarray of int64
        The partition's user code of each pseudo-user (``data.user_ids`` order).
    item : ndarray of int64
        The partition's item code of each item code of ``data``.
    n_samples : ndarray of int64
        The number of samples of each user code of the partition (0: no recommendation).
    """

    data: Interactions
    user: np.ndarray
    item: np.ndarray
    n_samples: np.ndarray


def samples_of(rows: SampledRows, data: Interactions, whole: Interactions) -> Samples:
    """The sampled lists ``data`` (encoded ``rows``) mapped to the partition ``whole``."""
    pseudo = np.asarray(data.user_ids, dtype=np.int64)
    user = whole.user_ids.get_indexer(rows.users[pseudo // rows.width]).astype(np.int64)
    item = whole.item_ids.get_indexer(data.item_ids).astype(np.int64)
    n_samples = np.zeros(whole.n_users, dtype=np.int64)
    n_samples[whole.user_ids.get_indexer(rows.users)] = rows.n_samples
    return Samples(data, user, item, n_samples)
