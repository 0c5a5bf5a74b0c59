"""The seed of a model whose spec leaves it unset (``receval cv --seed``, a study's ``seed``).

A model with a ``seed`` parameter that its spec does not set, or a Surprise algorithm whose
``random_state`` is ``None`` (Surprise's default: a fresh draw at every fit), gets the given
seed, so that every run of the same command or study fits the same model.
"""

from __future__ import annotations

from typing import Any

__all__ = ["seed_unseeded", "spec_sets_seed", "unset_seed"]


def spec_sets_seed(spec: str) -> bool:
    """Whether a spec string sets ``seed=`` itself (``"random:seed=2"``)."""
    return "seed=" in spec.replace(" ", "")


def unset_seed(model: Any, sets_seed: bool) -> str | None:
    """The ``set_params`` keyword of the model's seed that is left unset, or None.

    ``"seed"`` when the model has a ``seed`` parameter and ``sets_seed`` is false;
    ``"algo__random_state"`` when a wrapped algorithm's ``random_state`` is ``None``.
    """
    get = getattr(model, "get_params", None)
    params = get(deep=True) if callable(get) else {}
    if "seed" in params and not sets_seed:
        return "seed"
    if params.get("algo__random_state", 0) is None:
        return "algo__random_state"
    return None


def seed_unseeded(model: Any, seed: int, sets_seed: bool) -> dict[str, int]:
    """Give ``model`` ``seed`` where its spec leaves its seed unset; the parameters set."""
    key = unset_seed(model, sets_seed)
    if key is None:
        return {}
    model.set_params(**{key: seed})
    return {key: seed}
