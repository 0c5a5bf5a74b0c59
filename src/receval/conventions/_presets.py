"""The presets: for each library, the receval variants that reproduce its numbers.

Every entry is checked by the conformance suite (``tests/conformance/``) against the library
itself where it installs, or against values it produced once (fixture files with the script
and version). A ``differences`` line names a behaviour receval does not copy; each has a test
that shows the difference.
"""

from __future__ import annotations

from receval.conventions._beyond_presets import with_beyond
from receval.conventions._fairness_presets import FAIRNESS_PRESETS, with_fairness
from receval.conventions._model import Convention, MetricRule

__all__ = ["PRESETS"]

R = MetricRule

_TREC_EVAL = Convention(
    name="trec_eval",
    aliases=("pytrec_eval", "ir_measures"),
    library="trec_eval",
    versions="trec_eval 10.0 through pytrec_eval-terrier 0.5.x",
    summary="graded linear gains of every judged document, map and P over all relevant "
            "documents, ties by document id descending, users missing from the run left out "
            "(trec_eval -c scores them 0: missing_recs='zero')",
    rules={
        "precision": R("P_{k}", "set_P", note="P_k divides by k: missing places are misses"),
        "recall": R("recall_{k}", "set_recall"),
        "fbeta": R("set_F.{beta^2} -M {k}", "set_F.{beta^2}", {"denominator": "list_length"},
                   free=("beta",),
                   note="set_F's parameter is beta squared; receval's beta is beta itself"),
        "hit_rate": R("success_{k}", cutoff="required"),
        "mrr": R("recip_rank (trec_eval -M {k})", "recip_rank",
                 note="recip_rank has no cutoff; -M k limits the run to its top k"),
        "ap": R("map_cut_{k}", "map", {"denominator": "relevant"}),
        "ndcg": R("ndcg_cut_{k}", "ndcg", {"grades": "judged"},
                  note="gains are the judged grades, also below the relevance level"),
    },
    settings={"ties": "item_str_desc", "no_relevant": "zero", "missing_recs": "skip",
              "relevance_threshold": 1.0, "score_precision": "float32"},
    differences=(
        "negative judgements: trec_eval accepts them (never relevant, gain 0); receval "
        "refuses them unless negative_grades='allow', which then gives trec_eval's numbers",
    ),
)

_RANX = Convention(
    name="ranx",
    library="ranx",
    versions="ranx 0.3.21",
    summary="Jarvelin linear nDCG (Burges exponential as ndcg_burges), map over all relevant "
            "items, relevance level 1; users missing from the run scored 0 (ranx raises "
            "unless make_comparable=True, which scores them 0)",
    rules={
        "precision": R("precision@{k}", "precision"),
        "recall": R("recall@{k}", "recall"),
        "fbeta": R("f1@{k}", "f1", note="ranx has F1 only (beta=1)"),
        "hit_rate": R("hit_rate@{k}", "hit_rate"),
        "mrr": R("mrr@{k}", "mrr"),
        "ap": R("map@{k}", "map", {"denominator": "relevant"}),
        "cg": R("hits@{k}", "hits", {"gain": "binary"},
                note="ranx's hits is the number of relevant items within k"),
        "dcg": R("dcg@{k}", "dcg", variants=(({"gain": "exponential"}, "dcg_burges@{k}"),)),
        "ndcg": R("ndcg@{k}", "ndcg",
                  variants=(({"gain": "exponential"}, "ndcg_burges@{k}"),)),
    },
    settings={"no_relevant": "zero", "relevance_threshold": 1.0},
    differences=(
        "ties: ranx sorts with numba's np.argsort, which does not keep the input order of "
        "tied scores; receval keeps it (ties='stable')",
    ),
)

_SKLEARN = Convention(
    name="sklearn",
    aliases=("scikit-learn", "scikit_learn"),
    library="scikit-learn",
    versions="scikit-learn 1.9",
    summary="one row per user of the recommended items' grades and scores: linear gain, "
            "tie-averaged DCG, an ideal and |R| from the row, rows without relevant items "
            "scored 0; rating errors per rating",
    rules={
        "ndcg": R("ndcg_score(k={k})", "ndcg_score"),
        "dcg": R("dcg_score(k={k})", "dcg_score"),
        "ap": R("", "average_precision_score (average='samples')",
                {"denominator": "relevant"}, cutoff="none",
                note="no cutoff; tied scores form one threshold"),
        "mae": R("mean_absolute_error", "mean_absolute_error"),
        "mse": R("mean_squared_error", "mean_squared_error"),
        "rmse": R("root_mean_squared_error", "root_mean_squared_error"),
    },
    settings={"ties": "expected", "no_relevant": "zero", "recs_without_truth": "zero",
              "missing_recs": "skip", "truth_scope": "recommended"},
    differences=(
        "average_precision_score groups tied scores into one threshold (precision at the "
        "end of the block times its share of recall); receval's ties='expected' averages "
        "over the orders of the block",
    ),
)

_RECBOLE = Convention(
    name="recbole",
    library="RecBole",
    versions="RecBole 1.2.1",
    summary="binary nDCG over min(k, |R|) ideal places, MAP over min(k, |R|); every metric "
            "needs a cutoff",
    rules={
        "precision": R("precision@{k}", cutoff="required"),
        "recall": R("recall@{k}", cutoff="required"),
        "hit_rate": R("hit@{k}", cutoff="required"),
        "mrr": R("mrr@{k}", cutoff="required"),
        "ap": R("map@{k}", params={"denominator": "min_k_relevant"}, cutoff="required"),
        "ndcg": R("ndcg@{k}", params={"gain": "binary"}, cutoff="required"),
        "mae": R("mae", "mae"),
        "rmse": R("rmse", "rmse"),
    },
    settings={"relevance_threshold": 0.0},
    differences=(
        "tied scores are ordered by torch.topk before the metrics see the ranking, which is "
        "not the input order (five equal scores come out 2, 4, 3, 0, 1 on torch 2.13 CPU); "
        "receval keeps the input order (ties='stable') and has no topk order",
    ),
)

_MS_RECOMMENDERS = Convention(
    name="ms_recommenders",
    aliases=("recommenders", "microsoft_recommenders"),
    library="Microsoft Recommenders",
    versions="recommenders 1.2.1 (python_evaluation)",
    summary="binary nDCG with a natural-log discount averaged over every truth user; "
            "precision, recall and MAP over the users with predictions; map_at_k over "
            "min(k, |R|), map over |R|",
    rules={
        "precision": R("precision_at_k(k={k})", "precision_at_k(k=len)"),
        "recall": R("recall_at_k(k={k})", "recall_at_k(k=len)"),
        "ap": R("map_at_k(k={k})", "map", {"denominator": "min_k_relevant"},
                params_whole={"denominator": "relevant"}),
        "ndcg": R("ndcg_at_k(k={k})", "ndcg_at_k(k=len)",
                  {"gain": "binary", "discount": "ln", "missing_recs": "zero",
                   "zero_ideal": "skip"},
                  variants=(
                      ({"gain": "linear"}, "ndcg_at_k(k={k}, score_type='raw')"),
                      ({"gain": "exponential"}, "ndcg_at_k(k={k}, score_type='exp')"),
                      ({"discount": "log2"}, "ndcg_at_k(k={k}, discfun_type='log2')"),
                      ({"gain": "linear", "discount": "log2"},
                       "ndcg_at_k(k={k}, score_type='raw', discfun_type='log2')"),
                      ({"gain": "exponential", "discount": "log2"},
                       "ndcg_at_k(k={k}, score_type='exp', discfun_type='log2')")),
                  note="averaged over every truth user: users without predictions score 0; "
                       "a user whose ratings are all 0 (raw, exp) is 0/0, left out"),
        "mae": R("mae", "mae"),
        "rmse": R("rmse", "rmse"),
    },
    settings={"missing_recs": "skip", "missing_predictions": "skip",
              "relevance_threshold": 0.0},
    differences=(
        "with no user in both frames, precision_at_k, recall_at_k and the MAPs return 0.0; "
        "receval has nobody to average and gives NaN (counted as undefined)",
        "map reads the top k (default 10) and divides by |R|; receval's ap without a cutoff "
        "reads the whole list, which is map with k at least the longest list "
        "(ap(denominator=relevant)@k is map(k))",
        "ndcg_at_k has no uncut form (k cuts the ideal too); receval's ndcg without a cutoff "
        "is ndcg_at_k with k at least the longest list and truth",
    ),
)

_LENSKIT = Convention(
    name="lenskit",
    aliases=("lkpy",),
    library="LensKit",
    versions="lenskit 2025.8.1 (RunAnalysis, list_summary)",
    summary="precision over the list length, recall over min(k, |R|), AP over "
            "min(|R|, list length), binary nDCG with the 1/log2(max(i, 2)) discount; only "
            "users with recommendations are measured; rating errors per user",
    rules={
        "precision": R("Precision(n={k})", "Precision()", {"denominator": "list_length"}),
        "recall": R("Recall(n={k})", "Recall()", {"denominator": "min_k_relevant"},
                    params_whole={}),
        "hit_rate": R("Hit(n={k})", "Hit()"),
        "mrr": R("RecipRank(n={k})", "RecipRank()"),
        "ap": R("AveragePrecision(n={k})", "AveragePrecision()",
                {"denominator": "min_relevant_list"}),
        "dcg": R("DCG(n={k})", "DCG()", {"gain": "binary", "discount": "breese"},
                 variants=(({"gain": "linear"}, "DCG(n={k}, gain='rating')"),)),
        "ndcg": R("NDCG(n={k})", "NDCG()", {"gain": "binary", "discount": "breese"},
                  variants=(({"gain": "linear"}, "NDCG(n={k}, gain='rating')"),)),
        "mae": R("MAE", "MAE", {"aggregation": "macro"}),
        "rmse": R("RMSE", "RMSE", {"aggregation": "macro"}),
    },
    settings={"missing_recs": "skip", "recs_without_truth": "zero",
              "relevance_threshold": 0.0},
    differences=(
        "AveragePrecision raises ZeroDivisionError for a user with recommendations and no "
        "truth (which list_summary otherwise scores 0); receval scores that user 0",
        "global_metrics() returns NaN as soon as one user's value is NaN (its docstring says "
        "NaN is ignored); the convention follows list_summary(), which fills NaN with 0",
        "DCG(gain='rating') raises KeyError for a user with recommendations and no truth (the "
        "empty truth list has no rating field); receval scores that user 0",
    ),
)

_REPLAY = Convention(
    name="replay",
    aliases=("replay-rec", "replay_rec"),
    library="RePlay",
    versions="replay-rec 0.22",
    summary="binary nDCG over min(k, |R|) ideal places, MAP over min(k, |R|), ties by item "
            "id descending, users missing from the recommendations scored 0",
    rules={
        "precision": R("Precision({k})", cutoff="required"),
        "recall": R("Recall({k})", cutoff="required"),
        "hit_rate": R("HitRate({k})", cutoff="required"),
        "mrr": R("MRR({k})", cutoff="required"),
        "ap": R("MAP({k})", params={"denominator": "min_k_relevant"}, cutoff="required"),
        "ndcg": R("NDCG({k})", params={"gain": "binary"}, cutoff="required"),
    },
    settings={"ties": "item_desc", "relevance_threshold": 0.0},
)

_TORCHMETRICS = Convention(
    name="torchmetrics",
    library="torchmetrics (retrieval)",
    versions="torchmetrics 1.9",
    summary="sees only the recommended rows: recall and the nDCG ideal over the relevant "
            "items among them, AP over the hits; tie-averaged nDCG; float32 scores; queries "
            "without a positive target scored 0",
    rules={
        "precision": R("RetrievalPrecision(top_k={k})", "RetrievalPrecision()",
                       variants=(({"denominator": "list_length"},
                                  "RetrievalPrecision(top_k={k}, adaptive_k=True)"),)),
        "recall": R("RetrievalRecall(top_k={k})", "RetrievalRecall()"),
        "hit_rate": R("RetrievalHitRate(top_k={k})", "RetrievalHitRate()"),
        "mrr": R("RetrievalMRR(top_k={k})", "RetrievalMRR()"),
        "ap": R("RetrievalMAP(top_k={k})", "RetrievalMAP()", {"denominator": "hits"}),
        "ndcg": R("RetrievalNormalizedDCG(top_k={k})", "RetrievalNormalizedDCG()",
                  {"ties": "expected"}),
    },
    settings={"no_relevant": "zero", "missing_recs": "skip", "recs_without_truth": "zero",
              "truth_scope": "recommended", "score_precision": "float32"},
    differences=(
        "since 1.7.4 torchmetrics' AP, precision, recall and MRR (not hit rate or nDCG) count "
        "an item with a score <= 0 as not relevant; receval takes relevance from the truth "
        "alone",
        "ties: torch's sort does not fix the order of tied scores for precision, recall, "
        "AP, MRR and hit rate; receval keeps the input order (nDCG is tie-averaged in both)",
    ),
)

_EVIDENTLY = Convention(
    name="evidently",
    library="Evidently",
    versions="evidently 0.7.23 (legacy recsys metrics, pandas 2)",
    summary="one frame of recommended rows and their targets: precision over "
            "min(k, list length), recall, AP and the nDCG ideal over the relevant rows "
            "supplied; users without relevant rows left out",
    rules={
        "precision": R("PrecisionTopK(k={k})", params={"denominator": "list_length"},
                       cutoff="required"),
        "recall": R("RecallTopK(k={k})", cutoff="required"),
        "hit_rate": R("HitRate(k={k})", cutoff="required"),
        "mrr": R("MRR(k={k})", cutoff="required"),
        "ap": R("MAP(k={k})", params={"denominator": "relevant"}, cutoff="required"),
        "ndcg": R("NDCG(k={k})", cutoff="required"),
    },
    settings={"missing_recs": "skip", "truth_scope": "recommended"},
    differences=(
        "ties: Evidently ranks scores with groupby.rank (average) truncated to an integer, so "
        "tied items share a rank and a top k can hold more than k items; receval ranks every "
        "item on its own place",
        "FBetaTopK is the F of the averaged precision and recall, not a mean of per-user F; "
        "receval's F is per user, so the convention does not offer F",
        "MAP: at each j <= k Evidently multiplies P@j by the target of the last row (in frame "
        "order) ranked <= j, so a list shorter than k or a tie counts an item again (MAP can "
        "exceed 1) and the value depends on row order; receval computes the AP it documents",
        "the Report API labels nDCG and MRR one place off (the row for k holds k - 1); "
        "receval's @k is k",
    ),
)

_ELLIOT = Convention(
    name="elliot",
    library="Elliot",
    versions="elliot 0.3.1 (its evaluation code at sisinflab/elliot c085d43, run from source)",
    summary="nDCG gain 2^(g - t + 1) - 1 above the threshold, MAP as the mean of P@i over "
            "every place; users without recommendations or relevant items left out",
    rules={
        "precision": R("Precision@{k}", cutoff="required"),
        "recall": R("Recall@{k}", cutoff="required"),
        "fbeta": R("F1@{k}", cutoff="required"),
        "hit_rate": R("HR@{k}", cutoff="required"),
        "mrr": R("MRR@{k}", cutoff="required"),
        "ap": R("MAP@{k}", params={"denominator": "k", "positions": "all"},
                cutoff="required"),
        "ndcg": R("nDCG@{k}", params={"gain": "shifted_exponential"}, cutoff="required",
                  variants=(({"gain": "binary"}, "nDCGRendle2020@{k}"),)),
    },
    settings={"missing_recs": "skip", "relevance_threshold": 0.0},
    differences=(
        "MAE and RMSE score only relevant test ratings and keep a rating without a "
        "prediction in the denominator with no error; the convention does not offer them",
        "with nobody to evaluate (no user with a list, test data and a relevant item) the "
        "means are NaN (np.average of nothing); receval raises EmptyInputError",
        "negative ratings are taken and never relevant; receval refuses them unless "
        "negative_grades='allow', which then gives Elliot's numbers",
        "a user whose list reaches Elliot empty scores 0 on every metric; receval's rows "
        "cannot hold an empty list, so that user has no recommendation and is left out",
    ),
)

_CORNAC = Convention(
    name="cornac",
    library="Cornac",
    versions="cornac 3.0.1",
    summary="binary nDCG, positives rated >= 1, MAP and MRR over the whole ranking, users "
            "without positives left out",
    rules={
        "precision": R("Precision(k={k})", cutoff="required"),
        "recall": R("Recall(k={k})", cutoff="required"),
        "fbeta": R("FMeasure(k={k})", cutoff="required"),
        "hit_rate": R("HitRatio(k={k})", cutoff="required"),
        "mrr": R("", "MRR()", cutoff="none"),
        "ap": R("", "MAP()", {"denominator": "relevant"}, cutoff="none",
                note="over the whole ranking of every candidate item"),
        "ndcg": R("NDCG(k={k})", params={"gain": "binary"}),
        "mae": R("MAE", "MAE"),
        "rmse": R("RMSE", "RMSE"),
    },
    settings={"relevance_threshold": 1.0},
    differences=(
        "MAP ranks tied scores with rankdata(method='max') both overall and among the "
        "relevant items, which is none of the orders of the tied block; receval's tie "
        "policies are orders (or their exact mean)",
        "MAP divides by the relevant items that are among the ranked candidates; with a "
        "relevant item outside the list receval divides by every relevant item (|R|)",
        "MRR raises ValueError when no relevant item is ranked; receval scores 0",
        "Recommender.rank orders tied scores by Cornac's internal item index, descending "
        "(argsort reversed); receval keeps the input order (ties='stable'), which is that "
        "index ascending when the items were indexed in input order",
    ),
)

#: Every preset by name (with the beyond-accuracy rules of ``_beyond_presets`` and the
#: fairness rules of ``_fairness_presets``), then the fairness-only presets.
PRESETS: dict[str, Convention] = {c.name: with_fairness(with_beyond(c)) for c in (
    _TREC_EVAL, _RANX, _SKLEARN, _RECBOLE, _MS_RECOMMENDERS, _LENSKIT, _REPLAY, _TORCHMETRICS,
    _EVIDENTLY, _ELLIOT, _CORNAC, *FAIRNESS_PRESETS.values())}
